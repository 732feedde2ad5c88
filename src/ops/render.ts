/**
 * Renderings of operation outputs written for a model to read: Trawl's own lines say what each part is,
 * and what came from pages or models goes into untrusted blocks (the MCP door fences them). The
 * structured entries carry ids, URLs and scores only: the text is for the model, not repeated.
 */
import type { SearchResult } from '../schemas/common.schema.js';
import type { Answer, AnswerBlock } from './reply.js';

/** The lines of a result that came from its page: title, dates, summary, highlights, text. */
function resultContent(r: SearchResult): string {
  const lines = [`Title: ${r.title || '(untitled)'}`];
  if (r.publishedDate) lines.push(`Published: ${r.publishedDate}`);
  if (r.author) lines.push(`Author: ${r.author}`);
  if (r.summary) lines.push(`Summary: ${r.summary}`);
  if (r.highlights?.length) lines.push('Highlights:', ...r.highlights.map((h) => `- ${h}`));
  if (typeof r.text === 'string') lines.push('Text:', r.text);
  return lines.join('\n');
}

/** A result's structured entry: what a program needs to cite or fetch it, without its text. */
export function resultEntry(r: SearchResult): Record<string, unknown> {
  const entry: Record<string, unknown> = { id: r.id, url: r.url, title: r.title };
  for (const key of ['publishedDate', 'author', 'score', 'image', 'favicon'] as const) {
    const value = (r as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) entry[key] = value;
  }
  return entry;
}

/** One result as a block: `[n]`, then its page's lines as untrusted content named by its URL. */
export function resultBlock(r: SearchResult, index: number): AnswerBlock {
  const block: AnswerBlock = {
    label: `[${index + 1}]`,
    source: r.url,
    content: resultContent(r),
    entry: resultEntry(r),
  };
  if (r.subpages?.length) block.after = `Subpages of [${index + 1}]: ${r.subpages.length} (ids in structuredContent)`;
  return block;
}

/** An answer's `warnings` (src/core/warnings.ts) as Trawl's lines, one each: `Warning CODE: message`. */
export function warningLines(warnings: unknown): string[] {
  if (!Array.isArray(warnings)) return [];
  return (warnings as { code: string; message: string }[]).map((w) => `Warning ${w.code}: ${w.message}`);
}

/**
 * A list of results under a heading, then what is wrong with it when anything is (no results, its
 * `warnings`); `structured` holds the fields besides the results.
 */
export function resultsAnswer(results: SearchResult[], heading: string, structured: Record<string, unknown>): Answer {
  const head = [heading, ...(results.length === 0 ? ['No results.'] : []), ...warningLines(structured.warnings)];
  return {
    head: head.join('\n'),
    blocks: results.map(resultBlock),
    structured,
    entriesKey: 'results',
  };
}

/** Key facts of a record, one `key: value` per line (objects as compact JSON, long ones cut). */
export function renderRecord(title: string, record: Record<string, unknown>): string {
  const clip = (s: string) => (s.length <= 800 ? s : `${s.slice(0, 800)}… (${s.length - 800} more characters)`);
  const lines = Object.entries(record)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? clip(JSON.stringify(v)) : String(v)}`);
  return [title, ...lines].join('\n');
}

/**
 * A page of records, one line each; each record is an entry of `structuredContent.data`, without the
 * `output` of a run (pages' and models' words, as long as they like: the `get` action reads it).
 */
export function pageAnswer(
  title: string,
  page: { data: Record<string, unknown>[]; hasMore: boolean; nextCursor: string | null },
  line: (item: Record<string, unknown>) => string,
): Answer {
  const { data, ...rest } = page;
  const outputs = data.some((item) => item.output !== undefined && item.output !== null);
  const more = page.hasMore ? `More available: pass cursor "${page.nextCursor}".` : '';
  const tail = [outputs ? 'Outputs are left out of lists: read one with the get action.' : '', more]
    .filter(Boolean)
    .join('\n');
  return {
    head: data.length ? title : `${title}\n(none)`,
    blocks: data.map((item) => {
      const { output: _output, ...entry } = item;
      return { label: line(item), entry };
    }),
    ...(tail ? { tail } : {}),
    structured: rest,
    entriesKey: 'data',
  };
}

/** The rendering of an operation that answers a page: `pageAnswer` under `title`, one `line` per item. */
export const renderPage =
  (title: string, line: (item: Record<string, unknown>) => string) =>
  (page: Parameters<typeof pageAnswer>[1]): Answer =>
    pageAnswer(title, page, line);

/**
 * A record whose `key` holds content from pages or a model (a run's output): the other fields as
 * Trawl's lines, that one as an untrusted block; the structured record is the other fields (the content
 * is given once, fenced in the text).
 */
export function recordAnswer(title: string, record: Record<string, unknown>, key: string, source: string): Answer {
  const { [key]: untrusted, ...rest } = record;
  const content = typeof untrusted === 'string' ? untrusted : JSON.stringify(untrusted, null, 1);
  return {
    head: renderRecord(title, rest),
    blocks: untrusted === undefined || untrusted === null ? [] : [{ label: `${key}:`, source, content }],
    structured: rest,
  };
}
