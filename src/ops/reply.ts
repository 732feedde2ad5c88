/**
 * An operation's answer as a model reads it, before any budget or fence is applied: Trawl's own lines
 * (trusted) and blocks of content that came from pages, providers or models (untrusted). The MCP door
 * fences the untrusted parts, fits the whole into a token budget and pages the rest by cursor.
 */

/** One result of an answer: Trawl's label, then content from `source`, then Trawl's notes on it. */
export interface AnswerBlock {
  /** Trawl's own line before the content, e.g. `[3]`. */
  label: string;
  /** Where the content came from: a URL, or `model`, `code index`; named in the fence. None: Trawl's own lines. */
  source?: string;
  /** Untrusted content (titles, page text, highlights, model text). May be split across parts. */
  content?: string;
  /** Trawl's own lines after the content (e.g. how to read on). */
  after?: string;
  /** This block's entry of `structuredContent.results` (ids, URLs, scores): given once, in order. */
  entry?: Record<string, unknown>;
}

export interface Answer {
  /** Trawl's summary line(s), first in the first part. */
  head: string;
  blocks: AnswerBlock[];
  /** Trawl's closing lines (failures, hints), last in the last part. */
  tail?: string;
  /** The structured fields besides the blocks' entries (ids, costs, statuses): in every part. */
  structured: Record<string, unknown>;
  /**
   * The structured field that lists the blocks' entries (`results`, `data` for pages), in every part
   * (empty where no entry starts); none: the answer is a record, not a list.
   */
  entriesKey?: string;
}

/** An answer with no untrusted content: a record or a list the door renders as it is. */
export function plainAnswer(text: string, structured: Record<string, unknown>): Answer {
  return { head: text, blocks: [], structured };
}
