/**
 * The local retrievals of a search type's pipeline: the query, the caller's additional queries, and
 * pseudo-relevance-feedback variations, each a ranked list of document ids for reciprocal-rank fusion.
 */
import { analyzeQuery } from './analyzer.js';
import { expandQuery } from './feedback.js';
import { fuse, type Pipeline } from './pipelines.js';
import type { SearchIndex } from './search-index.js';

/** Results a local retrieval returns before fusion (enough to fill `numResults` after filters). */
export const LOCAL_DEPTH = 100;

/** Ranked id lists (each at most `depth` long), the query's own first; `accept` filters while selecting. */
export function retrieveLocal(
  index: SearchIndex,
  query: string,
  additionalQueries: readonly string[] | undefined,
  pipeline: Pipeline,
  accept?: (id: number) => boolean,
  depth = LOCAL_DEPTH,
): number[][] {
  const opts = { limit: depth, accept, proximity: pipeline.proximity, maxTerms: pipeline.maxTerms };
  const analyzed = analyzeQuery(query);
  const first = index.searchAnalyzed(analyzed, opts).map((h) => h.id);
  const lists = [first];
  if (pipeline.additionalQueries) {
    for (const q of additionalQueries ?? []) lists.push(index.search(q, opts).map((h) => h.id));
  }
  let seed = first;
  for (let round = 0; round < pipeline.feedbackRounds; round++) {
    const expanded = expandQuery(analyzed, seed, index);
    if (expanded === analyzed) break;
    lists.push(index.searchAnalyzed(expanded, opts).map((h) => h.id));
    seed = fuse(lists.map((l) => l.map(String))).map((f) => Number(f.key));
  }
  return lists;
}
