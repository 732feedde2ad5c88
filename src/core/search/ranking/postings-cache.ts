/** The posting lists of recently queried terms, scored and kept up to a byte budget. */
import { positionsAt } from '../../../store/search-index/postings.codec.js';
import type { ReadableSegment, SearchIndexRepo } from '../../../store/search-index/search-index.repo.js';
import { createByteLru } from '../../../lib/lru.js';
import type { DocTable } from '../doc-table.js';
import {
  B,
  BYTES_PER_POSTING,
  FIELD_WEIGHTS,
  locate,
  NO_LIST,
  scoreList,
  type PositionsReader,
  type PostingsPart,
  type PostingsReader,
} from './scored-postings.js';

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
  const cache = createByteLru<PostingsPart | number>(maxBytes);
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
