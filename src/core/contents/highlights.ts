/**
 * Highlights: the passages of a page that best answer a query (or, without one, the page's key
 * passages), each scored by a cosine similarity — of embeddings when an `Embedder` is given, else of
 * the lexical vectors of src/core/text/lexical.ts. Budgets and the dynamic mode are documented below.
 */
import type { Embedder } from '../../providers/embeddings.js';
import { centroid, cosine, createLexicalModel, type LexicalModel, type SparseVector } from '../text/lexical.js';
import { splitSentences } from '../text/sentences.js';
import { terms } from '../text/tokenize.js';
import { denseCentroid, denseCosine } from '../text/vectors.js';
import type { Block, Page } from './page.js';

/** Characters per URL when neither `maxCharacters` nor `numSentences` is given. */
export const DEFAULT_HIGHLIGHT_CHARACTERS = 2000;
/** The deprecated `numSentences` maps to this many characters per sentence. */
export const CHARACTERS_PER_SENTENCE = 1333;
/** Upper bound of a highlights budget (the spec's `maxCharacters` limit). */
export const MAX_HIGHLIGHT_CHARACTERS = 10_000;
/** Total characters of dynamic highlights. */
export const DYNAMIC_HIGHLIGHT_CHARACTERS = 4000;
/** Dynamic mode keeps passages within this share of the gap between the median and the best score... */
export const DYNAMIC_MARGIN = 0.4;
/** ...and at or above this absolute score. */
export const DYNAMIC_FLOOR = 0.05;
/** Passages sent to an embedder per page (a long page's best lexical candidates, else its first ones). */
export const MAX_EMBEDDED_PASSAGES = 256;

// Sentences are packed into passages of about this many characters; a longer sentence is cut at MAX.
const PASSAGE_TARGET = 320;
const PASSAGE_MAX = 600;
const MIN_PASSAGE_TERMS = 3;

export interface HighlightOptions {
  query?: string;
  maxCharacters?: number;
  /** Deprecated: maps to `numSentences × 1333` characters when `maxCharacters` is absent. */
  numSentences?: number;
  dynamic?: boolean;
  embedder?: Embedder;
  signal?: AbortSignal;
  /** Told when the embedder failed and lexical scores were used instead. */
  onEmbedderError?: (err: unknown) => void;
}

export interface Highlights {
  highlights: string[];
  /** Cosine per highlight in [0, 1], rounded to 4 decimals, in descending order. */
  scores: number[];
}

/** A run of consecutive sentences (or code lines) of one block. */
export interface Passage {
  text: string;
  /** Position of the block in `page.blocks`. */
  block: number;
  /** Text of the nearest section heading (level 2 and below) above, for context. */
  heading: string;
  /** The passage's own index terms (`terms(text)`). */
  terms: string[];
}

/**
 * The blocks highlights and summaries read: the main content's; else the body section's; else any
 * block with text. Headings and rules are left out unless nothing else has text.
 */
export function contentBlocks(page: Page): { block: Block; index: number }[] {
  const all = page.blocks.map((block, index) => ({ block, index })).filter(({ block }) => block.text.trim());
  const prose = all.filter(({ block }) => block.kind !== 'heading' && block.kind !== 'rule');
  for (const pick of [prose.filter((b) => b.block.main), prose.filter((b) => b.block.section === 'body'), prose]) {
    if (pick.length > 0) return pick;
  }
  return all;
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const at = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, at > max / 2 ? at : max - 1).trimEnd()}…`;
}

function units(block: Block): { parts: string[]; joiner: string } {
  if (block.kind === 'code' || block.kind === 'list' || block.kind === 'table') {
    return { parts: block.text.split('\n').filter((line) => line.trim()), joiner: '\n' };
  }
  return { parts: splitSentences(block.text), joiner: ' ' };
}

/** The nearest heading above each block, section headings only (the page title applies to every block). */
function sectionHeadings(page: Page): string[] {
  let current = '';
  return page.blocks.map((b) => {
    const heading = current;
    if (b.kind === 'heading' && (b.level ?? 1) >= 2) current = b.text;
    return heading;
  });
}

function blockPassages(block: Block, index: number, heading: string, out: Omit<Passage, 'terms'>[]): void {
  const { parts, joiner } = units(block);
  let current = '';
  for (const part of parts) {
    if (current && current.length + joiner.length + part.length > PASSAGE_TARGET) {
      out.push({ text: current, block: index, heading });
      current = '';
    }
    current = current ? current + joiner + part : part;
    while (current.length > PASSAGE_MAX) {
      const head = cut(current, PASSAGE_MAX);
      out.push({ text: head, block: index, heading });
      current = current.slice(head.replace(/…$/, '').length).trimStart();
    }
  }
  if (current.trim()) out.push({ text: current, block: index, heading });
}

/**
 * Splits the page's content blocks into passages, never across a block boundary. Passages with fewer
 * than three terms ("Output:", vote counts, "Add a comment") are left out unless no passage has more.
 */
export function pagePassages(page: Page): Passage[] {
  // Pages are immutable and the page cache keeps hot ones in memory: split and stem each page once.
  let passages = passagesMemo.get(page);
  if (!passages) passagesMemo.set(page, (passages = splitPassages(page)));
  return passages;
}

const passagesMemo = new WeakMap<Page, Passage[]>();
const modelMemo = new WeakMap<Passage[], { model: LexicalModel; vectors: SparseVector[] }>();

function splitPassages(page: Page): Passage[] {
  const raw: Omit<Passage, 'terms'>[] = [];
  const headings = sectionHeadings(page);
  for (const { block, index } of contentBlocks(page)) blockPassages(block, index, headings[index] ?? '', raw);
  const all = raw.map((p) => ({ ...p, terms: terms(p.text) }));
  const substantive = all.filter((p) => p.terms.length >= MIN_PASSAGE_TERMS);
  return substantive.length > 0 ? substantive : all;
}

/** Lead weights for the query-less centroid: the first passage weighs 2, the last 1, linearly between. */
export function leadWeights(count: number): number[] {
  return Array.from({ length: count }, (_, i) => 1 + (count > 1 ? 1 - i / (count - 1) : 1));
}

function passageModel(passages: Passage[]) {
  let built = modelMemo.get(passages);
  if (!built) {
    const headingTerms = new Map(passages.map((p) => [p.heading, terms(p.heading)]));
    // A section heading's terms count once in each of its passages: "## Timeouts" makes them about timeouts.
    const passageTerms = passages.map((p) => [...p.terms, ...headingTerms.get(p.heading)!]);
    const model = createLexicalModel(passageTerms);
    built = { model, vectors: passageTerms.map((t) => model.vectorize(t)) };
    modelMemo.set(passages, built);
  }
  return built;
}

function lexicalScores(passages: Passage[], query: string | undefined): number[] {
  const { model, vectors } = passageModel(passages);
  const queryTerms = query ? terms(query) : [];
  const target = queryTerms.length > 0 ? model.vectorize(queryTerms) : centroid(vectors, leadWeights(vectors.length));
  return vectors.map((v) => cosine(target, v));
}

async function embeddingScores(
  passages: Passage[],
  query: string | undefined,
  embedder: Embedder,
  signal?: AbortSignal,
): Promise<number[]> {
  const inputs = passages.map((p) => (p.heading ? `${p.heading}\n${p.text}` : p.text));
  const hasQuery = Boolean(query?.trim());
  const vectors = await embedder.embed(hasQuery ? [query!, ...inputs] : inputs, signal);
  const passageVectors = hasQuery ? vectors.slice(1) : vectors;
  const target = hasQuery ? vectors[0]! : denseCentroid(passageVectors, leadWeights(passageVectors.length));
  return passageVectors.map((v) => Math.max(0, denseCosine(target, v)));
}

/** The passages an embedder sees on a long page: the best lexical candidates, in page order. */
function embeddingCandidates(passages: Passage[], query: string | undefined): Passage[] {
  if (passages.length <= MAX_EMBEDDED_PASSAGES) return passages;
  const lexical = lexicalScores(passages, query);
  const keep = passages
    .map((_, i) => i)
    .sort((a, b) => lexical[b]! - lexical[a]! || a - b)
    .slice(0, MAX_EMBEDDED_PASSAGES);
  return keep.sort((a, b) => a - b).map((i) => passages[i]!);
}

interface Scored {
  passages: Passage[];
  scores: number[];
}

async function score(page: Page, options: HighlightOptions): Promise<Scored> {
  const passages = pagePassages(page);
  if (options.embedder && passages.length > 0) {
    const candidates = embeddingCandidates(passages, options.query);
    try {
      return {
        passages: candidates,
        scores: await embeddingScores(candidates, options.query, options.embedder, options.signal),
      };
    } catch (err) {
      if (options.signal?.aborted) throw err;
      options.onEmbedderError?.(err);
    }
  }
  return { passages, scores: lexicalScores(passages, options.query) };
}

const round = (s: number) => Math.round(Math.min(1, Math.max(0, s)) * 10_000) / 10_000;

/** The character budget: `maxCharacters`, else `numSentences × 1333`, else 2000; at most 10000. */
export function highlightBudget(options: Pick<HighlightOptions, 'maxCharacters' | 'numSentences'>): number {
  const asked =
    options.maxCharacters ?? (options.numSentences ? options.numSentences * CHARACTERS_PER_SENTENCE : undefined);
  return Math.max(1, Math.min(MAX_HIGHLIGHT_CHARACTERS, Math.floor(asked ?? DEFAULT_HIGHLIGHT_CHARACTERS)));
}

const squash = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Takes items in score order while they fit the budget; the best one is cut to fit when none does. */
function fit(items: { text: string; score: number }[], budget: number): Highlights {
  const ordered = items.map((item, i) => ({ ...item, i })).sort((a, b) => b.score - a.score || a.i - b.i);
  const out: Highlights = { highlights: [], scores: [] };
  let left = budget;
  const taken: string[] = [];
  for (const item of ordered) {
    if (item.text.length > left) continue;
    // A passage quoted elsewhere on the page (forum replies quote questions) is shown once.
    const key = squash(item.text);
    if (taken.some((t) => t.includes(key) || key.includes(t))) continue;
    taken.push(key);
    out.highlights.push(item.text);
    out.scores.push(round(item.score));
    left -= item.text.length;
  }
  if (out.highlights.length === 0 && ordered[0]) {
    out.highlights.push(cut(ordered[0].text, budget));
    out.scores.push(round(ordered[0].score));
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Dynamic mode: passages near the best score, adjacent ones merged, within 4000 characters. */
function dynamicPick({ passages, scores }: Scored): { text: string; score: number }[] {
  const best = Math.max(...scores);
  const bestIndex = scores.indexOf(best);
  const threshold = Math.max(DYNAMIC_FLOOR, best - DYNAMIC_MARGIN * (best - median(scores)));
  const groups: { text: string; score: number; last: number }[] = [];
  passages.forEach((p, i) => {
    if (scores[i]! < threshold && i !== bestIndex) return;
    const prev = groups[groups.length - 1];
    if (
      prev &&
      prev.last === i - 1 &&
      passages[i - 1]!.heading === p.heading &&
      p.block - passages[i - 1]!.block <= 1
    ) {
      prev.text += (passages[i - 1]!.block === p.block ? ' ' : '\n') + p.text;
      prev.score = Math.max(prev.score, scores[i]!);
      prev.last = i;
    } else groups.push({ text: p.text, score: scores[i]!, last: i });
  });
  // A merged run longer than the whole budget is cut to it rather than dropped.
  return groups.map((g) =>
    g.text.length > DYNAMIC_HIGHLIGHT_CHARACTERS ? { ...g, text: cut(g.text, DYNAMIC_HIGHLIGHT_CHARACTERS) } : g,
  );
}

/**
 * Picks a page's highlights. With a query: passages in descending cosine to the query, those with a
 * positive score, while they fit the budget (`highlightBudget`). Without one: passages in descending
 * cosine to the page's lead-weighted centroid. `dynamic`: see `dynamicPick`. A page with text always
 * gets at least one highlight (its best passage, cut to the budget, with its score, even 0).
 */
export async function selectHighlights(page: Page, options: HighlightOptions = {}): Promise<Highlights> {
  const scored = await score(page, options);
  if (scored.passages.length === 0) return { highlights: [], scores: [] };
  if (options.dynamic) return fit(dynamicPick(scored), DYNAMIC_HIGHLIGHT_CHARACTERS);
  const items = scored.passages.map((p, i) => ({ text: p.text, score: scored.scores[i]! }));
  const positive = items.filter((item) => item.score > 0);
  return fit(positive.length > 0 ? positive : [items[0]!], highlightBudget(options));
}
