/** The search index's stored shapes, shared by its repository and its byte format. */

/** Fields of a document as the ranking sees them, in this order in every `Uint8Array(4)` of frequencies. */
export const FIELDS = ['title', 'headings', 'body', 'url'] as const;
export const FIELD_COUNT = FIELDS.length;

/** A document, analyzed, ready to be written. */
export interface IndexedDoc {
  url: string;
  host: string;
  /** The document's distinct terms. */
  terms: string[];
  /** Each term's count per field, `i * FIELD_COUNT + f` (`FIELDS` order), each capped at 255. */
  freqs: Uint8Array;
  /** Field lengths in terms, `FIELDS` order. */
  lengths: number[];
  /**
   * Each term's title and body positions where it stands first at a position (the proximity re-rank
   * reads them), encoded (`encodePositions`) one after another: term `i`'s entry ends at
   * `positionEnds[i]` and starts where term `i − 1`'s ended (an empty entry: no positions).
   */
  positions: Uint8Array;
  positionEnds: Uint32Array;
  publishedAt: number | null;
  crawledAt: number;
  /** Category bit mask (see core/search/categories). */
  categories: number;
  unsafe: boolean;
  country: string | null;
  /** Company entities as JSON, or null. */
  entities: string | null;
  /** What decides whether a re-written document needs re-indexing (a short hash). */
  contentHash: string;
}

/**
 * The per-document facts the ranking and the filters keep in memory, as a row of plain values (a million
 * of them load at start: no object, no buffer per row): id, host, published at, crawled at, categories,
 * unsafe (0/1), country, then the four field lengths (`FIELDS` order).
 */
export type DocRow = [
  id: number,
  host: string,
  publishedAt: number | null,
  crawledAt: number,
  categories: number,
  unsafe: number,
  country: string | null,
  ...lengths: number[],
];

/** One segment's postings of a term, in the format of `postings.codec.ts`. */
export interface PostingList {
  n: number;
  data: Buffer;
}

/** A segment's postings of a term with their positions (null when the list has none). */
export interface PositionedList extends PostingList {
  pos: Buffer | null;
}
