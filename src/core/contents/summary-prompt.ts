/**
 * What a model reads to summarise one page, and how it is asked. The page text is bounded (a short
 * page whole; a long one as its most query-relevant passages topped up with its lead, in page order) so a
 * summary's cost does not grow with the page. docs/contents.md states the bounds.
 */
import type { ChatMessage, ChatRequest } from '../../providers/model/types.js';
import { pagePassages, selectHighlights } from './highlights.js';
import type { Page } from './page.js';
import { mainText } from './render.js';

/** Characters of page text a summary's model reads at most (about 1500 tokens). */
export const SUMMARY_INPUT_CHARACTERS = 6000;
/** Completion tokens of a text summary (a few sentences). */
export const SUMMARY_MAX_TOKENS = 400;
/** Completion tokens of a schema-shaped summary (JSON is wordier). */
export const SCHEMA_SUMMARY_MAX_TOKENS = 1000;
/** Bumped whenever the wording below changes, so cached summaries of the old prompt are not reused. */
export const SUMMARY_PROMPT_VERSION = 1;

/** What the caller asked of one page's summary. */
export interface SummaryAsk {
  /** The focus: `summary.query`, else the search query; none means a general summary. */
  query?: string;
  /** JSON Schema the summary must follow. */
  schema?: Record<string, unknown>;
}

const GAP = '[…]';
const SEPARATOR = '\n\n';

/**
 * The page text a model reads: the main text when it fits `SUMMARY_INPUT_CHARACTERS`; else passages
 * (the highlights' split) chosen by lexical cosine to `query` (lexical, not embeddings: free and
 * deterministic, so the summary cache key is stable), then the page's first passages while room is
 * left, given back in page order with `[…]` where text was skipped.
 */
export async function summaryInput(page: Page, query: string | undefined): Promise<string> {
  const whole = mainText(page);
  if (whole.length <= SUMMARY_INPUT_CHARACTERS) return whole;
  const passages = pagePassages(page);
  const position = new Map<string, number>();
  passages.forEach((p, i) => position.has(p.text) || position.set(p.text, i));
  const chosen = new Set<number>();
  let left = SUMMARY_INPUT_CHARACTERS;
  // each passage is charged for the separator and a possible gap marker too, so the whole stays in bounds
  const cost = (i: number) => passages[i]!.text.length + SEPARATOR.length * 2 + GAP.length;
  const take = (i: number | undefined) => {
    if (i === undefined || chosen.has(i) || cost(i) > left) return;
    chosen.add(i);
    left -= cost(i);
  };
  if (query?.trim()) {
    const relevant = await selectHighlights(page, { query, maxCharacters: SUMMARY_INPUT_CHARACTERS });
    relevant.highlights.forEach((text) => take(position.get(text)));
  }
  for (let i = 0; i < passages.length && left > 0; i++) take(i);
  const order = [...chosen].sort((a, b) => a - b);
  const parts: string[] = order[0] === 0 ? [] : [GAP];
  order.forEach((i, k) => {
    if (k > 0 && i !== order[k - 1]! + 1) parts.push(GAP);
    parts.push(passages[i]!.text);
  });
  if (order.at(-1) !== passages.length - 1) parts.push(GAP);
  return parts.join(SEPARATOR);
}

const TEXT_RULES = `You summarise one web page for a reader.
- Use only what the page says; never add outside knowledge.
- Write 2 to 4 plain sentences (at most about 80 words): no Markdown, no lists, no preamble such as "This page".
- Keep names, numbers and dates as the page gives them.`;

const SCHEMA_RULES = `You extract a summary of one web page as one JSON object that follows the JSON Schema below.
- Use only what the page says; never add outside knowledge.
- Where the page does not say something, use null if the schema allows it, else the closest honest value.
- Reply with the JSON object only.`;

function focus(query: string | undefined, schema: boolean): string {
  if (!query?.trim()) return schema ? '' : '\n- Say what the page is about and its main points.';
  return `\n- Focus on what the page says about: ${query.trim()}\n- When the page does not address that, say so${schema ? ' where the schema has room for it' : ' in one sentence, then say briefly what the page is about'}.`;
}

/** The chat request for one page's summary (`text` from `summaryInput`). */
export function summaryRequest(page: Page, text: string, ask: SummaryAsk): ChatRequest {
  const schema = ask.schema;
  const system = schema
    ? `${SCHEMA_RULES}${focus(ask.query, true)}\n\nJSON Schema:\n${JSON.stringify(schema)}`
    : `${TEXT_RULES}${focus(ask.query, false)}`;
  const head = `Title: ${page.title || '(none)'}\nURL: ${page.url}`;
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    // the focus again after the text: small models weigh the end of the user turn most
    {
      role: 'user',
      content: `${head}\n\nPage text:\n${text}${ask.query?.trim() ? `\n\nFocus: ${ask.query.trim()}` : ''}`,
    },
  ];
  return schema
    ? { messages, maxTokens: SCHEMA_SUMMARY_MAX_TOKENS, json: { schema, name: 'summary' } }
    : { messages, maxTokens: SUMMARY_MAX_TOKENS };
}
