/**
 * The search types as pipelines that trade latency for depth, from the index alone to several fused
 * retrievals with web providers and pages read live. Without a model; docs/search.md has the table.
 */
import type { SearchType } from '../search-types.js';

export interface Pipeline {
  /** Use only the rarest query terms (bounds the work of long queries). */
  maxTerms?: number;
  /** Re-rank the best candidates by how close the query's words stand. */
  proximity: boolean;
  /** Ask the configured web-search providers. */
  providers: boolean;
  /** Fuse in the nearest documents by embeddings (when an embeddings provider is configured). */
  semantic: boolean;
  /** How long the providers may take (capped by the operator's provider timeout). */
  providerBudgetMs: number;
  /** Fuse retrievals of the caller's `additionalQueries`. */
  additionalQueries: boolean;
  /** Query variations built from the best results (pseudo-relevance feedback): 0, 1 or 2 rounds. */
  feedbackRounds: number;
  /** Provider pages read live, so they are indexed and their text ranks them (0 = none). */
  readProviderPages: number;
  /** Contents come from the cache and the store only, never a live fetch, unless the request says otherwise. */
  cacheOnly: boolean;
  /** With a model: searches it plans from the question (added to `additionalQueries`). */
  plannedQueries: number;
  /** With a model: rounds of reading the results and searching for what is missing (up to 3 queries each). */
  followUpRounds: number;
}

export const PIPELINES: Record<SearchType, Pipeline> = {
  instant: {
    maxTerms: 8,
    proximity: false,
    providers: false,
    semantic: false,
    providerBudgetMs: 0,
    additionalQueries: false,
    feedbackRounds: 0,
    readProviderPages: 0,
    cacheOnly: true,
    plannedQueries: 0,
    followUpRounds: 0,
  },
  fast: {
    proximity: true,
    providers: true,
    semantic: false,
    providerBudgetMs: 1500,
    additionalQueries: false,
    feedbackRounds: 0,
    readProviderPages: 0,
    cacheOnly: false,
    plannedQueries: 0,
    followUpRounds: 0,
  },
  auto: {
    proximity: true,
    providers: true,
    semantic: true,
    providerBudgetMs: 4000,
    additionalQueries: true,
    feedbackRounds: 0,
    readProviderPages: 0,
    cacheOnly: false,
    plannedQueries: 0,
    followUpRounds: 0,
  },
  'deep-lite': {
    proximity: true,
    providers: true,
    semantic: true,
    providerBudgetMs: 6000,
    additionalQueries: true,
    feedbackRounds: 1,
    readProviderPages: 5,
    cacheOnly: false,
    plannedQueries: 3,
    followUpRounds: 0,
  },
  deep: {
    proximity: true,
    providers: true,
    semantic: true,
    providerBudgetMs: 10000,
    additionalQueries: true,
    feedbackRounds: 1,
    readProviderPages: 10,
    cacheOnly: false,
    plannedQueries: 5,
    followUpRounds: 0,
  },
  'deep-reasoning': {
    proximity: true,
    providers: true,
    semantic: true,
    providerBudgetMs: 15000,
    additionalQueries: true,
    feedbackRounds: 2,
    readProviderPages: 20,
    cacheOnly: false,
    plannedQueries: 5,
    followUpRounds: 1,
  },
};

/**
 * Other names a request's `type` may use, and the type each runs as (docs/api.md): `neural` (the
 * legacy name of auto) and `hybrid` (older clients' lexical + embeddings search) are `auto`; `keyword`
 * (older clients' lexical search) is `fast`, the lexical index with proximity and the providers, no
 * embeddings.
 */
export const TYPE_ALIASES: Readonly<Record<string, SearchType>> = { neural: 'auto', hybrid: 'auto', keyword: 'fast' };

/** The pipeline of a request's `type`, aliases resolved; no type is `auto`. */
export function pipelineOf(type: string | undefined): { type: SearchType; pipeline: Pipeline } {
  const t = (type ? (TYPE_ALIASES[type] ?? type) : 'auto') as SearchType;
  return PIPELINES[t] ? { type: t, pipeline: PIPELINES[t] } : { type: 'auto', pipeline: PIPELINES.auto };
}

/** Reciprocal-rank fusion (k = 60): lists of keys, best first → keys by fused score, best first. */
export function fuse(lists: string[][], k = 60): { key: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((key, rank) => scores.set(key, (scores.get(key) ?? 0) + 1 / (k + rank + 1)));
  return [...scores].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score);
}
