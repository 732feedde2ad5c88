/**
 * A page → one search result object with the contents the caller asked for (text, highlights,
 * summary, extras). Shared by /contents and, later, /search and /findSimilar.
 */
import type { Embedder } from '../../providers/embeddings.js';
import type { SummaryFailure } from './model-summary.js';
import type { Page, SectionKind } from './page.js';
import type { LoadedPage } from './pages.service.js';
import { selectHighlights } from './highlights.js';
import { renderText } from './render.js';
import { extractiveSummary } from './summary.js';
import type { SummaryAsk } from './summary-prompt.js';

export interface TextOptionsIn {
  maxCharacters?: number;
  includeHtmlTags?: boolean;
  verbosity?: 'compact' | 'standard' | 'full';
  includeSections?: SectionKind[];
  excludeSections?: SectionKind[];
}

export interface HighlightsIn {
  query?: string;
  dynamic?: boolean;
  maxCharacters?: number;
  numSentences?: number;
}

export interface ExtrasIn {
  links?: number;
  imageLinks?: number;
  richLinks?: number;
  richImageLinks?: number;
  codeBlocks?: number;
}

/** The content options of /contents (top-level) and of `contents` in /search and /findSimilar. */
export interface ContentOptions {
  text?: boolean | TextOptionsIn | null;
  highlights?: boolean | HighlightsIn | null;
  summary?: boolean | SummaryAsk | null;
  extras?: ExtrasIn | null;
}

export interface ResultContext {
  /** The search query: the highlights' and summary's topic when they name none. */
  query?: string;
  embedder?: Embedder;
  /** Characters of text to skip (the MCP tool's `offset`, for reading a long page in parts). */
  textOffset?: number;
  signal?: AbortSignal;
  /** Called when the embeddings provider fails and highlights fall back to lexical scores. */
  onEmbedderError?: (err: unknown) => void;
  /**
   * Writes summaries with a language model (model-summary.ts); a failure says why, and the result goes
   * without one. Absent: summaries are extractive.
   */
  summarize?: (page: Page, ask: SummaryAsk) => Promise<string | SummaryFailure>;
}

/** A result plus what the doors may want to say about it (not part of the wire object). */
export interface BuiltResult {
  result: Record<string, unknown> & { title: string; url: string; id: string };
  /** Length of the whole rendered text before offset and `maxCharacters` (when text was asked for). */
  textLength?: number;
  /** Why the summary asked for could not be written, in safe words (the status `message` says it). */
  summaryFailed?: string;
}

const asObject = <T extends object>(value: boolean | T | null | undefined): T | undefined =>
  value === true ? ({} as T) : value ? value : undefined;

/** True when the caller asked for any page content at all. */
export function wantsContent(options: ContentOptions): boolean {
  return Boolean(options.text || options.highlights || options.summary);
}

/** Builds the wire result for one loaded page. */
export async function toResult(loaded: LoadedPage, options: ContentOptions, rctx: ResultContext): Promise<BuiltResult> {
  const { page } = loaded;
  const result: BuiltResult['result'] = { id: page.url, url: page.url, title: page.title };
  result.publishedDate = page.publishedDate;
  result.author = page.author;
  if (page.image) result.image = page.image;
  if (page.favicon) result.favicon = page.favicon;
  let textLength: number | undefined;
  let summaryFailed: string | undefined;

  const text = asObject(options.text);
  if (text) {
    const full = renderText(page, text);
    textLength = full.length;
    const start = Math.min(rctx.textOffset ?? 0, full.length);
    result.text = full.slice(start, text.maxCharacters === undefined ? undefined : start + text.maxCharacters);
  }

  const highlights = asObject(options.highlights);
  if (highlights) {
    const picked = await selectHighlights(page, {
      query: highlights.query ?? rctx.query,
      maxCharacters: highlights.maxCharacters,
      numSentences: highlights.numSentences,
      dynamic: highlights.dynamic,
      embedder: rctx.embedder,
      signal: rctx.signal,
      onEmbedderError: rctx.onEmbedderError,
    });
    result.highlights = picked.highlights;
    result.highlightScores = picked.scores;
  }

  const summary = asObject(options.summary);
  if (summary) {
    const ask: SummaryAsk = { query: summary.query ?? rctx.query, schema: summary.schema };
    const written = rctx.summarize ? await rctx.summarize(page, ask) : extractiveSummary(page, { query: ask.query });
    if (typeof written === 'string') result.summary = written;
    else summaryFailed = written.failed;
  }

  const extras = extrasOf(loaded, options.extras);
  if (extras) result.extras = extras;
  return { result, textLength, ...(summaryFailed ? { summaryFailed } : {}) };
}

function extrasOf(loaded: LoadedPage, wanted: ExtrasIn | null | undefined): Record<string, unknown> | undefined {
  if (!wanted) return undefined;
  const { page } = loaded;
  const out: Record<string, unknown> = {};
  if (wanted.links) out.links = page.links.slice(0, wanted.links).map((l) => l.url);
  if (wanted.imageLinks) out.imageLinks = page.images.slice(0, wanted.imageLinks).map((i) => i.url);
  if (wanted.richLinks)
    out.richLinks = page.links.slice(0, wanted.richLinks).map((l) => ({ url: l.url, text: l.text }));
  if (wanted.richImageLinks) {
    out.richImageLinks = page.images.slice(0, wanted.richImageLinks).map((i) => ({ url: i.url, alt: i.alt }));
  }
  if (wanted.codeBlocks) {
    out.codeBlocks = page.codeBlocks.slice(0, wanted.codeBlocks).map((c) => ({ language: c.language, code: c.code }));
  }
  return Object.keys(out).length ? out : undefined;
}

/** Whether a result came back without any of the contents that were asked for (`filterEmptyResults`). */
export function isEmptyResult(result: Record<string, unknown>, options: ContentOptions): boolean {
  if (!wantsContent(options)) return false;
  const text = typeof result.text === 'string' && result.text.trim() !== '';
  const highlights = Array.isArray(result.highlights) && result.highlights.length > 0;
  const summary = typeof result.summary === 'string' && result.summary.trim() !== '';
  return !text && !highlights && !summary;
}
