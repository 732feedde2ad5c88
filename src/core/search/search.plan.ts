/**
 * The search plan: a /search request read once (type → pipeline, compliance, filters, contents, the
 * answer asked for) into what the search service, its price bound and its callers work from.
 */
import type { DocumentCategory } from './classify/index.js';
import { COMPLIANCE_LIMITS, inComplianceMode } from '../compliance.js';
import { filtersOf, type RequestFilters } from './filters.js';
import type { SearchType } from '../search-types.js';
import { pipelineOf, type Pipeline } from './pipelines.js';
import { fetchOptionsOf, type ContentsRequest, type FetchOptions } from '../contents/fetch.plan.js';
import type { Freshness } from '../contents/freshness.js';
import { answerShape } from './sources.js';
import type { AnswerShape } from '../synthesis/prompt.js';

/** A /search request as the core reads it (the validated wire body, or a monitor's or agent's search). */
export interface SearchInput extends RequestFilters {
  query: string;
  type?: string;
  numResults: number;
  userLocation?: string;
  additionalQueries?: string[];
  contents?: ContentsRequest;
  filterEmptyResults?: boolean;
  outputSchema?: unknown;
  systemPrompt?: string;
  stream?: boolean;
  compliance?: string;
  /**
   * Not on the wire: the sources a caller restricts itself to (an agent run's `dataSources`): the local
   * index, and providers by name. Absent: all of them.
   */
  sources?: SearchSources;
}

/** The sources a search may use: the local index, and web-search providers by name. */
export interface SearchSources {
  index: boolean;
  providers: readonly string[];
}

/** What a search does, decided once from its request. */
export interface SearchPlan {
  query: string;
  /** The type that answers (aliases resolved; none is `auto`). */
  type: SearchType;
  /** The type's pipeline, with compliance mode's limits applied. */
  pipeline: Pipeline;
  /** Compliance mode: stored pages and the local index only (src/core/compliance.ts). */
  compliance: boolean;
  numResults: number;
  filters: RequestFilters;
  category?: DocumentCategory;
  userLocation?: string;
  /** The caller's extra queries (fused only when the pipeline says so). */
  additionalQueries: readonly string[];
  /** The contents each result gets, when asked for (cache-only by default when the pipeline is). */
  contents?: FetchOptions;
  /** How the passages an answer (or a follow-up round) reads are loaded. */
  evidence: Freshness;
  filterEmptyResults?: boolean;
  systemPrompt?: string;
  /** The answer to write from the results (`outputSchema`, or `stream`), absent when none is asked for. */
  answer?: { shape: AnswerShape };
  /** Whether the answer is streamed (a door that cannot stream still gets it whole). */
  stream: boolean;
  /** Absent: every source. */
  sources?: SearchSources;
}

/** The plan of a search request: the one place a request's type, compliance and filters are read. */
export function searchPlanOf(input: SearchInput): SearchPlan {
  const { type, pipeline: typePipeline } = pipelineOf(input.type);
  const compliance = inComplianceMode(input.compliance);
  const answering = input.outputSchema !== undefined || input.stream === true;
  const pipeline = compliance ? { ...typePipeline, ...COMPLIANCE_LIMITS } : typePipeline;
  const stored: Freshness | undefined = pipeline.cacheOnly ? { mode: 'cache-only' } : undefined;
  return {
    query: input.query,
    type,
    pipeline,
    compliance,
    numResults: input.numResults,
    filters: filtersOf(input),
    category: input.category,
    userLocation: input.userLocation,
    additionalQueries: input.additionalQueries ?? [],
    contents: input.contents && fetchOptionsOf(input.contents, stored),
    evidence: stored ?? { mode: 'fallback' },
    filterEmptyResults: input.filterEmptyResults,
    systemPrompt: input.systemPrompt,
    answer: answering ? { shape: answerShape(input.outputSchema) } : undefined,
    stream: input.stream === true,
    sources: input.sources,
  };
}

/** The plan with the queries a model planned added to the caller's. */
export function withQueries(plan: SearchPlan, queries: readonly string[]): SearchPlan {
  return queries.length === 0 ? plan : { ...plan, additionalQueries: [...plan.additionalQueries, ...queries] };
}
