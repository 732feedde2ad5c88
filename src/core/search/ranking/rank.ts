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
import type { AnalyzedQuery } from '../analyzer.js';
import type { DocTable } from '../doc-table.js';
import type { PostingsCache } from './postings-cache.js';
import { proximityRerank } from './proximity.js';
import { FIELD_WEIGHTS, idf, K1, satOf, type QueryTerm, type TermPostings } from './scored-postings.js';
import { heapPush, heapReplaceTop, kthScore, topK, type Hit } from './top-k.js';

/** Candidates re-ranked by proximity. */
export const RERANK_DEPTH = 100;

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
