/**
 * A term's postings scored for BM25F (title ×2, headings, body, URL; k1 1.2, b 0.75): each segment's
 * list decoded once into ascending ids and saturated term frequencies, and the lookups ranking makes in
 * them. The model is in docs/search.md.
 */
import { decodeInto } from '../../../store/search-index/postings.codec.js';
import { FIELD_COUNT, type PostingList } from '../../../store/search-index/search-index.types.js';

export const K1 = 1.2;
export const B = 0.75;
/** Field weights, `FIELDS` order: title, headings (which are in the body too), body, URL words. */
export const FIELD_WEIGHTS = [2, 1, 1, 1];

export const idf = (docs: number, df: number) => Math.log(1 + (docs - df + 0.5) / (df + 0.5));

/**
 * One segment's list of a term, scored: ascending document ids and, for each, the saturated BM25F term
 * frequency wtf / (wtf + k1), where wtf = Σ field weight × tf / length norm. `maxSat` bounds the list.
 */
export interface ScoredList {
  n: number;
  ids: Uint32Array;
  sat: Float32Array;
  maxSat: number;
}

/** A segment's scored list as part of a term's postings. */
export interface PostingsPart extends ScoredList {
  /** The segment (positions are read from it). */
  segment: number;
}

/**
 * A term's postings ready to score: one part per segment listing the term. A document is in one part;
 * the parts' id ranges may overlap (the open segment's runs through later sealed ones), so they are not
 * joined: a lookup tries each part whose range holds the id. A document's score is Σ over query terms
 * of weight × idf × (k1 + 1) × sat; `maxSat` bounds what the term can add.
 */
export interface TermPostings {
  term: string;
  /** Postings over all parts. */
  n: number;
  parts: PostingsPart[];
  maxSat: number;
}

/** Reads a term's scored postings (through a cache, see `createPostingsCache`). */
export type PostingsReader = (term: string) => TermPostings;

/** A document's title and body positions of a term (undefined when it has none there). */
export type PositionsReader = (postings: TermPostings, id: number) => { title: number[]; body: number[] } | undefined;

/** A query term as ranking uses it: its weight, idf and scored postings. */
export interface QueryTerm {
  term: string;
  weight: number;
  idf: number;
  postings: TermPostings;
}

/**
 * Decodes one segment's list and scores it under the length norms: each posting's saturated BM25F term
 * frequency wtf / (wtf + k1), where wtf = Σ field weight × tf / norm.
 */
export function scoreList(
  { n, data }: PostingList,
  norms: Float32Array,
  weights: readonly number[] = FIELD_WEIGHTS,
): ScoredList {
  const ids = new Uint32Array(n);
  const freqs = new Uint8Array(n * FIELD_COUNT);
  decodeInto(n, data, ids, freqs, 0);
  const sat = new Float32Array(n); // 4 bytes a posting: a million documents' hot lists fit the cache
  let maxSat = 0;
  for (let i = 0; i < n; i++) {
    const f = i * FIELD_COUNT;
    const nb = ids[i]! * FIELD_COUNT;
    let wtf = 0;
    for (let k = 0; k < FIELD_COUNT; k++) if (freqs[f + k]) wtf += (weights[k]! * freqs[f + k]!) / norms[nb + k]!;
    sat[i] = wtf / (wtf + K1);
    if (sat[i]! > maxSat) maxSat = sat[i]!;
  }
  return { n, ids, sat, maxSat };
}

/** The index of `id` in a part, or −1 (its id range is checked first: most parts cannot hold it). */
function indexIn(part: ScoredList, id: number): number {
  return id < part.ids[0]! || id > part.ids[part.n - 1]! ? -1 : find(part.ids, part.n, id);
}

/** Where `id` is in `postings`: its part and its index there, or null. */
export function locate(postings: TermPostings, id: number): { part: PostingsPart; k: number } | null {
  for (const part of postings.parts) {
    const k = indexIn(part, id);
    if (k >= 0) return { part, k };
  }
  return null;
}

/** The saturation of `id` in `postings`, or −1 when it is not there (no object made: ranking's inner loop). */
export function satOf(postings: TermPostings, id: number): number {
  for (const part of postings.parts) {
    const k = indexIn(part, id);
    if (k >= 0) return part.sat[k]!;
  }
  return -1;
}

/** Bytes a posting takes in a scored list: its id and its saturation. */
export const BYTES_PER_POSTING = 8;
export const NO_LIST: ScoredList = { n: 0, ids: new Uint32Array(0), sat: new Float32Array(0), maxSat: 0 };

/** The index of `id` in ascending `ids`, or −1. */
export function find(ids: Uint32Array, n: number, id: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid]!;
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
