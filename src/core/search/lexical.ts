/**
 * Lexical ranking over the search index: BM25F (title ×2, headings, body, URL; k1 1.2, b 0.75) summed
 * over the query's terms, the best candidates re-ranked by how close the query's adjacent words stand
 * in their text. Measured on BEIR SciFact by bench/retrieval.mjs; the model is in docs/search.md.
 *
 * Scoring is exact but pruned (MaxScore, term at a time): terms are scored rarest first, and once the
 * best score any unseen document could still reach (the sum of the remaining terms' upper bounds) is
 * below the `limit`-th best score so far, the remaining — common, long — posting lists are only probed
 * for the documents that can still make the cut, instead of being read through.
 */
import { decodeInto, positionsAt } from '../../store/search-index/postings.codec.js';
import type { ReadableSegment, SearchIndexRepo } from '../../store/search-index/search-index.repo.js';
import { FIELD_COUNT, type PostingList } from '../../store/search-index/search-index.types.js';
import type { AnalyzedQuery } from './analyzer.js';
import type { DocTable } from './doc-table.js';

export const K1 = 1.2;
export const B = 0.75;
/** Field weights, `FIELDS` order: title, headings (which are in the body too), body, URL words. */
export const FIELD_WEIGHTS = [2, 1, 1, 1];
/** Weight of the proximity bonus against a term's BM25 contribution. */
const PROXIMITY_WEIGHT = 0.5;
/** Words at most this far apart count as near. */
const NEAR = 2;
/** Candidates re-ranked by proximity. */
export const RERANK_DEPTH = 100;

/** A scored document. */
export interface Hit {
  id: number;
  score: number;
}

export interface RankOptions {
  /** How many hits to return. */
  limit: number;
  /** Filters: a document must pass to be returned (applied while selecting, so `limit` still fills). */
  accept?: (id: number) => boolean;
  /** Re-rank the best `RERANK_DEPTH` by proximity (default true). */
  proximity?: boolean;
  /** Use only the rarest `maxTerms` query terms (the `instant` type bounds its work so). */
  maxTerms?: number;
  /** Skip documents that cannot reach the top (default true; false scores every match, same result). */
  prune?: boolean;
  /** Counts the work done, when given: postings read through, and posting lookups for candidates. */
  trace?: RankTrace;
  /** Field weights of the index (default `FIELD_WEIGHTS`); the proximity bonus reads them. */
  weights?: readonly number[];
}

export interface RankTrace {
  postingsRead: number;
  lookups: number;
}

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

interface QueryTerm {
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
function satOf(postings: TermPostings, id: number): number {
  for (const part of postings.parts) {
    const k = indexIn(part, id);
    if (k >= 0) return part.sat[k]!;
  }
  return -1;
}

/** Bytes a posting takes in a scored list: its id and its saturation. */
const BYTES_PER_POSTING = 8;
const NO_LIST: ScoredList = { n: 0, ids: new Uint32Array(0), sat: new Float32Array(0), maxSat: 0 };

/** A term's scored postings, and its documents' positions for the proximity re-rank. */
export interface PostingsCache {
  read: PostingsReader;
  positions: PositionsReader;
  /**
   * Documents listing `term` (the length of what `read` returns), without scoring its list: a query
   * that keeps only its rarest terms scores just those.
   */
  count: (term: string) => number;
}

/** A least-recently-used cache of up to `maxBytes`, each entry put with what it takes. */
function lru<V>(maxBytes: number) {
  const map = new Map<string, { value: V; bytes: number }>();
  let bytes = 0;
  return {
    get(key: string): V | undefined {
      const hit = map.get(key);
      if (hit === undefined) return undefined;
      map.delete(key); // most recently used last
      map.set(key, hit);
      return hit.value;
    },
    set(key: string, value: V, size: number): void {
      if (size > maxBytes / 4) return; // a list this long is read each time rather than flush the cache
      for (const [old, v] of map) {
        if (bytes + size <= maxBytes) break;
        map.delete(old);
        bytes -= v.bytes;
      }
      map.set(key, { value, bytes: size });
      bytes += size;
    },
    clear(): void {
      map.clear();
      bytes = 0;
    },
  };
}

/**
 * Posting lists of recently queried terms, up to `maxBytes`: each segment's list of a term, decoded and
 * scored once, is kept while the segment and the norms' epoch live (a sealed segment never changes; the
 * open one is keyed by its size too; the norms change only in a new epoch, see doc-table.ts). A term's
 * postings are its segments' lists side by side, never copied into one, so a write or a merge costs the
 * next query only the lists of the segments it made, and a deletion costs nothing (the ranking skips
 * documents that are not live). Positions are read per segment when the proximity re-rank first asks.
 */
export function createPostingsCache(
  repo: SearchIndexRepo,
  table: DocTable,
  maxBytes = 64 * 2 ** 20,
  weights: readonly number[] = FIELD_WEIGHTS,
): PostingsCache {
  // `d…` keys hold scored segment lists, `c…` the length of a segment's list not scored (a capped
  // query's dropped term)
  const cache = lru<PostingsPart | number>(maxBytes);
  const positionLists = new WeakMap<PostingsPart, Buffer | null>();
  let generation = -1;
  let epoch = -1;
  let segments: ReadableSegment[] = [];
  const current = () => {
    if (generation === table.generation) return;
    generation = table.generation;
    segments = repo.readableSegments();
    if (epoch !== table.epoch) cache.clear(); // every list was scored under the old norms
    epoch = table.epoch;
  };
  /** A segment's scored list of `term`, from the cache or read and scored. */
  const scored = (s: ReadableSegment, term: string): PostingsPart => {
    const key = `d${s.id}:${s.docs}:${term}`;
    let list = cache.get(key) as PostingsPart | undefined;
    if (!list) {
      const raw = repo.postingsIn(s.id, term);
      list = { ...(raw ? scoreList(raw, table.norms(B), weights) : NO_LIST), segment: s.id };
      cache.set(key, list, 64 + list.n * BYTES_PER_POSTING);
    }
    return list;
  };
  /** How long a segment's list of `term` is, without decoding it. */
  const lengthIn = (s: ReadableSegment, term: string): number => {
    const list = cache.get(`d${s.id}:${s.docs}:${term}`) as PostingsPart | undefined;
    if (list) return list.n;
    const key = `c${s.id}:${s.docs}:${term}`;
    let n = cache.get(key) as number | undefined;
    if (n === undefined) {
      n = repo.postingsIn(s.id, term)?.n ?? 0;
      cache.set(key, n, 64);
    }
    return n;
  };
  const count = (term: string): number => {
    current();
    return segments.reduce((n, s) => n + lengthIn(s, term), 0);
  };
  const read: PostingsReader = (term) => {
    current();
    const parts = segments.map((s) => scored(s, term)).filter((p) => p.n > 0);
    return {
      term,
      n: parts.reduce((n, p) => n + p.n, 0),
      parts,
      maxSat: parts.reduce((m, p) => Math.max(m, p.maxSat), 0),
    };
  };
  const positions: PositionsReader = (postings, id) => {
    const at = locate(postings, id);
    if (!at) return undefined;
    let pos = positionLists.get(at.part);
    if (pos === undefined) {
      pos = repo.postingsIn(at.part.segment, postings.term, true)?.pos ?? null;
      positionLists.set(at.part, pos);
    }
    return pos ? positionsAt(pos, at.part.n, at.k) : undefined;
  };
  return { read, positions, count };
}

function queryTerms(
  { read, count }: PostingsCache,
  table: DocTable,
  query: AnalyzedQuery,
  maxTerms?: number,
): QueryTerm[] {
  // with a cap, only the kept (rarest) terms' lists are scored
  const lazy = maxTerms !== undefined && query.terms.size > maxTerms;
  const terms: (Omit<QueryTerm, 'postings'> & { postings: TermPostings | null })[] = [];
  for (const [term, weight] of query.terms) {
    const postings = lazy ? null : read(term);
    const df = postings ? postings.n : count(term);
    if (df > 0) terms.push({ term, weight, idf: idf(Math.max(table.count, df), df), postings });
  }
  terms.sort((a, b) => b.idf - a.idf);
  const kept = maxTerms ? terms.slice(0, maxTerms) : terms;
  return kept.map((t) => ({ ...t, postings: t.postings ?? read(t.term) }));
}

/** Ranks the documents matching any query term; returns at most `limit` hits, best first. */
export function rank(cache: PostingsCache, table: DocTable, query: AnalyzedQuery, options: RankOptions): Hit[] {
  const { positions } = cache;
  table.refresh();
  const terms = queryTerms(cache, table, query, options.maxTerms);
  if (terms.length === 0) return [];
  const depth = options.proximity === false ? options.limit : Math.max(options.limit, RERANK_DEPTH);
  const accept = options.accept && remembered(options.accept);
  let hits = bestScored(table, terms, depth, accept, options.prune !== false, options.trace);
  if (options.proximity !== false && query.sequence.length > 1) {
    hits = proximityRerank(hits, terms, query.sequence, table, positions, options.weights ?? FIELD_WEIGHTS);
  }
  return hits.slice(0, options.limit);
}

/** `accept` asked at most once per document (pruning asks again for the candidates it keeps). */
function remembered(accept: (id: number) => boolean): (id: number) => boolean {
  const answers = new Map<number, boolean>();
  return (id) => {
    let ok = answers.get(id);
    if (ok === undefined) answers.set(id, (ok = accept(id)));
    return ok;
  };
}

// One score array per process, reused by every query (ranking is synchronous), with the list of the
// documents it holds scores for: allocating and zeroing arrays the size of the index per query cost more
// than scoring a short query.
interface Scratch {
  scores: Float64Array;
  /** Ids with a non-zero score, `touched[0…n)`: each document is listed once, so the index's size suffices. */
  touched: Uint32Array;
  n: number;
}
let pool: Scratch | null = null;

/** Room for an eighth more documents, so that each write into a large index does not reallocate. */
const withRoom = (size: number) => Math.max(1024, size + (size >> 3));

function borrow(size: number): Scratch {
  const scratch =
    pool && pool.scores.length >= size
      ? pool
      : { scores: new Float64Array(withRoom(size)), touched: new Uint32Array(withRoom(size)), n: 0 };
  pool = null;
  return scratch;
}

/** Zeroes the touched entries and returns the arrays to the pool. */
function release(scratch: Scratch): void {
  for (let i = 0; i < scratch.n; i++) scratch.scores[scratch.touched[i]!] = 0;
  scratch.n = 0;
  pool = scratch;
}

/** The most a term can add to any document's score. */
function upperBound(t: QueryTerm): number {
  // a hair above the exact bound, so float rounding in the sums can never prune a document that ties
  return t.weight * t.idf * (K1 + 1) * t.postings.maxSat * (1 + 1e-9) + 1e-12;
}

/**
 * The `depth` best-scored live documents that pass `accept`. Terms are added rarest first into a dense
 * score array; before each long list, if the remaining terms' bounds cannot lift an unseen document to
 * the current `depth`-th score, the rest is scored by probing those lists for the candidates still in
 * reach. Each document's terms are summed in the same order either way, so pruning changes no score.
 */
function bestScored(
  table: DocTable,
  terms: QueryTerm[],
  depth: number,
  accept: ((id: number) => boolean) | undefined,
  prune: boolean,
  trace: RankTrace | undefined,
): Hit[] {
  const scratch = borrow(table.maxId + 1);
  const { scores } = scratch;
  try {
    const bounds = terms.map(upperBound);
    const restBound = suffixSums(bounds);
    const restPostings = suffixSums(terms.map((t) => t.postings.n));
    for (let i = 0; i < terms.length; i++) {
      // a check costs a pass over the documents scored so far: made only when it may save longer lists,
      // and when it can succeed (no partial score exceeds the bounds of the terms already added)
      const check = prune && scratch.n >= depth && restPostings[i]! > scratch.n;
      if (check && restBound[i]! < restBound[0]! - restBound[i]!) {
        const touched = scratch.touched.subarray(0, scratch.n);
        const threshold = kthScore(scores, touched, depth, accept);
        if (restBound[i]! < threshold) {
          const candidates: number[] = [];
          for (const id of touched) {
            if (scores[id]! + restBound[i]! >= threshold && (!accept || accept(id))) candidates.push(id);
          }
          return completeBest(terms, i, scores, candidates, { restBound, depth, trace });
        }
      }
      scoreTerm(table, terms[i]!, scratch);
      if (trace) trace.postingsRead += terms[i]!.postings.n;
    }
    return topK(scores, scratch.touched.subarray(0, scratch.n), depth, accept);
  } finally {
    release(scratch);
  }
}

function suffixSums(values: number[]): number[] {
  const sums = new Array<number>(values.length + 1).fill(0);
  for (let i = values.length - 1; i >= 0; i--) sums[i] = sums[i + 1]! + values[i]!;
  return sums;
}

/** Adds a term's BM25F contribution to every live document in its postings. */
function scoreTerm(table: DocTable, t: QueryTerm, scratch: Scratch): void {
  const c = t.weight * t.idf * (K1 + 1);
  const { scores, touched } = scratch;
  let count = scratch.n;
  for (const { n, ids, sat } of t.postings.parts) {
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      if (!table.isLive(id)) continue;
      if (scores[id] === 0) touched[count++] = id;
      scores[id] = scores[id]! + c * sat[i]!;
    }
  }
  scratch.n = count;
}

/**
 * Completes the scores of `candidates` (live, accepted, each able to reach the threshold) over terms
 * `from…`, looking each remaining term up by binary search. The best partial scores go first, so the
 * bar (the `depth`-th complete score) rises near its final height at once; every other candidate is
 * then skipped as soon as its partial score plus the remaining terms' bounds falls below the bar.
 */
function completeBest(
  terms: QueryTerm[],
  from: number,
  scores: Float64Array,
  candidates: number[],
  bounds: { restBound: number[]; depth: number; trace?: RankTrace },
): Hit[] {
  const { restBound, depth, trace } = bounds;
  const best: Hit[] = []; // min-heap of complete scores: best[0] is the weakest kept
  const weaker = (a: Hit, b: Hit) => a.score < b.score || (a.score === b.score && a.id > b.id);
  const bar = () => (best.length === depth ? best[0]!.score : Number.NEGATIVE_INFINITY);
  const complete = (id: number) => {
    let score = scores[id]!;
    let j = from;
    for (; j < terms.length && score + restBound[j]! >= bar(); j++) {
      const t = terms[j]!;
      const sat = satOf(t.postings, id);
      if (trace) trace.lookups++;
      if (sat >= 0) score = score + t.weight * t.idf * (K1 + 1) * sat;
    }
    if (j < terms.length) return; // abandoned: it cannot reach the bar
    const hit = { id, score };
    if (best.length < depth) heapPush(best, hit, weaker);
    else if (weaker(best[0]!, hit)) heapReplaceTop(best, hit, weaker);
  };
  const leaders = topK(scores, candidates, 2 * depth);
  for (const { id } of leaders) complete(id);
  const done = new Set(leaders.map((h) => h.id));
  for (const id of candidates) {
    if (!done.has(id) && scores[id]! + restBound[from]! >= bar()) complete(id);
  }
  return best.sort((a, b) => b.score - a.score || a.id - b.id);
}

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

function heapPush<T>(heap: T[], item: T, weaker: (a: T, b: T) => boolean): void {
  heap.push(item);
  for (let i = heap.length - 1; i > 0;) {
    const p = (i - 1) >> 1;
    if (!weaker(heap[i]!, heap[p]!)) break;
    [heap[i], heap[p]] = [heap[p]!, heap[i]!];
    i = p;
  }
}

function heapReplaceTop<T>(heap: T[], item: T, weaker: (a: T, b: T) => boolean): void {
  heap[0] = item;
  for (let i = 0; ;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && weaker(heap[l]!, heap[m]!)) m = l;
    if (r < heap.length && weaker(heap[r]!, heap[m]!)) m = r;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m]!, heap[i]!];
    i = m;
  }
}

/** The `k`-th best score among `ids` that pass `accept` (−∞ when fewer than `k` pass). */
function kthScore(scores: Float64Array, ids: ArrayLike<number>, k: number, accept?: (id: number) => boolean): number {
  const best = topK(scores, ids, k, accept);
  return best.length < k ? Number.NEGATIVE_INFINITY : best.at(-1)!.score;
}

/** The `k` best-scored of `touched` that pass `accept`, best first (ties: lower id first), via a min-heap. */
function topK(scores: Float64Array, touched: ArrayLike<number>, k: number, accept?: (id: number) => boolean): Hit[] {
  const heap: number[] = []; // ids; heap[0] is the weakest kept
  const weaker = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  for (let i = 0; i < touched.length; i++) {
    const id = touched[i]!;
    if (heap.length === k && !weaker(heap[0]!, id)) continue;
    if (accept && !accept(id)) continue;
    if (heap.length < k) heapPush(heap, id, weaker);
    else heapReplaceTop(heap, id, weaker);
  }
  return heap.map((id) => ({ id, score: scores[id]! })).sort((a, b) => b.score - a.score || a.id - b.id);
}

function proximityRerank(
  hits: Hit[],
  terms: QueryTerm[],
  sequence: string[],
  table: DocTable,
  positions: PositionsReader,
  weights: readonly number[],
): Hit[] {
  const byTerm = new Map(terms.map((t) => [t.term, t]));
  const pairs: [QueryTerm, QueryTerm, number][] = [];
  for (let i = 0; i + 1 < sequence.length; i++) {
    const a = byTerm.get(sequence[i]!);
    const b = byTerm.get(sequence[i + 1]!);
    if (a && b && a !== b) pairs.push([a, b, Math.min(a.idf, b.idf)]);
  }
  if (pairs.length === 0) return hits;
  const avg = table.avgLengths;
  return hits
    .map((hit) => {
      let bonus = 0;
      const at = new Map<QueryTerm, { title: number[]; body: number[] } | undefined>();
      const of = (t: QueryTerm) => {
        if (!at.has(t)) at.set(t, positions(t.postings, hit.id));
        return at.get(t);
      };
      // title (field 0) and body (field 2) positions
      for (const [f, key] of [
        [0, 'title'],
        [2, 'body'],
      ] as const) {
        const norm = avg[f]! > 0 ? 1 - B + (B * table.length(hit.id, f)) / avg[f]! : 1;
        for (const [a, b, pairIdf] of pairs) {
          const pa = of(a)?.[key];
          const pb = pa?.length ? of(b)?.[key] : undefined;
          const cnt = pa && pb ? nearPositions(pa, pb) : 0;
          if (cnt > 0) bonus += (PROXIMITY_WEIGHT * weights[f]! * pairIdf * cnt * (K1 + 1)) / (cnt + K1 * norm);
        }
      }
      return { id: hit.id, score: hit.score + bonus };
    })
    .sort((x, y) => y.score - x.score || x.id - y.id);
}

/** Position pairs (one from each ascending list) at most `NEAR` apart, in either order. */
export function nearPositions(a: readonly number[], b: readonly number[]): number {
  let count = 0;
  let lo = 0;
  for (const i of a) {
    while (lo < b.length && b[lo]! < i - NEAR) lo++;
    for (let j = lo; j < b.length && b[j]! <= i + NEAR; j++) if (b[j] !== i) count++;
  }
  return count;
}
