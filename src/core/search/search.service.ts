/**
 * /search: the local index and the configured web-search providers, queried in parallel by the type's
 * pipeline, fused by reciprocal rank, filtered, and turned into results with contents from the
 * contents pipeline. A slow or failing provider degrades the answer with a warning, never an error.
 */
import { ServiceError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import { observe, since, timed } from '../../lib/observe.js';
import type { WebSearchProvider } from '../../providers/search/types.js';
import type { DocumentsRepo } from '../../store/contracts/documents.js';
import type { ServiceContext } from '../context.js';
import type { ContentsService } from '../contents/contents.service.js';
import { createRequestFilter, type SearchFilter } from './filters.js';
import type { SearchType } from '../search-types.js';
import { LOCAL_DEPTH, retrieveLocal } from './retrieve.js';
import { searchCost, type Prices } from '../pricing.js';
import { acceptable, rankCandidates } from './rank-candidates.js';
import { buildResults, type ResultObject, type WaitTally } from './results.js';
import type { SearchIndex } from './search-index.js';
import type { SemanticSearch } from './semantic.js';
import type { GroundingEntry } from '../synthesis/grounding.js';
import type { Synthesis, SynthesisRequest, SynthesisResult } from '../synthesis/synthesis.service.js';
import { sourcesOf } from './sources.js';
import { withQueries, type SearchPlan } from './search.plan.js';
import { askProviders, readProviderPages } from './web-providers.js';
import { warning } from '../warnings.js';

export interface SearchOutput {
  [key: string]: unknown;
  requestId: string;
  results: ResultObject[];
  /** The synthesized answer, when `outputSchema` was given (or the request streams). */
  output?: { content: string | Record<string, unknown>; grounding: GroundingEntry[] };
  costDollars: { total: number };
  searchTime: number;
  /** Which search type answered (the `neural` alias reads as `auto`). */
  resolvedSearchType: SearchType;
  /** Not on the wire: what the doors and callers learn beside the body. */
  facts: SearchFacts;
}

/** Facts of a search that its wire body does not carry. */
export interface SearchFacts extends WaitTally {
  /** Web-search providers that failed or timed out during it, once per failed call (a monitor run reports them). */
  providerFailures: string[];
}

/** A streamed /search: the answer's text as it is written, then the whole response. */
export type SearchStreamEvent = { type: 'text'; text: string } | { type: 'done'; response: SearchOutput };

export interface SearchDeps {
  index: SearchIndex;
  documents: DocumentsRepo;
  contents: ContentsService;
  providers: WebSearchProvider[];
  /** Nearest documents by embeddings, when an embeddings provider is configured. */
  semantic?: SemanticSearch;
  /** Answers from results (`outputSchema`, `stream`). */
  synthesis: Synthesis;
  /** The operator's cap on any provider call. */
  providerTimeoutMs: number;
  /** The price table (src/core/pricing.ts). */
  prices: Prices;
  logger: Logger;
}

export interface SearchService {
  /** Results, and the synthesized `output` when `outputSchema` is given. */
  run(plan: SearchPlan, ctx: ServiceContext): Promise<SearchOutput>;
  /** `stream: true`: the answer streamed, then the response with `output` (docs/synthesis.md). */
  stream(plan: SearchPlan, ctx: ServiceContext): AsyncIterable<SearchStreamEvent>;
}

export function createSearchService(deps: SearchDeps): SearchService {
  /** What to answer from, when the request asks for an answer. */
  const synthesisRequest = async (plan: SearchPlan, found: Found, ctx: ServiceContext): Promise<SynthesisRequest> => ({
    query: plan.query,
    shape: plan.answer?.shape ?? { type: 'text' },
    systemPrompt: plan.systemPrompt,
    sources: await sourcesOf(deps.contents, found.response.results, plan.query, plan.evidence, ctx, found.facts),
  });
  const withAnswer = (found: Found, answer: SynthesisResult, started: number): SearchOutput => ({
    ...found.response,
    output: { content: answer.content, grounding: answer.grounding },
    costDollars: { total: roundDollars(found.response.costDollars.total + answer.costDollars) },
    searchTime: Math.round((performance.now() - started) * 100) / 100,
  });
  /** The search, widened for the deep types by the searches a model plans (their cost included). */
  const search = async (plan: SearchPlan, ctx: ServiceContext): Promise<Found> => {
    const { pipeline } = plan;
    // an empty index and no provider: nothing to search, so no planning and no charge (INDEX_EMPTY says why)
    const emptyCorpus = () => deps.providers.length === 0 && deps.index.count() === 0;
    const planning = pipeline.plannedQueries > 0 && !emptyCorpus();
    const step = progressSteps(ctx);
    const facts: SearchFacts = { providerFailures: [] };
    let cost = 0;
    let asked = plan;
    const widen = async (max: number, seen?: string[]) => {
      step(seen ? 'reading the results for what is missing' : 'planning searches');
      const asking = { query: plan.query, max, systemPrompt: plan.systemPrompt, seen };
      const planned = await timed('searchStageSeconds', ['plan'], () => deps.synthesis.plan(asking, ctx));
      cost += planned.costDollars;
      asked = withQueries(asked, planned.queries);
      return planned.queries.length > 0;
    };
    if (planning) await widen(pipeline.plannedQueries);
    step('searching');
    let found = await find(deps, asked, ctx, facts);
    for (let round = 0; planning && round < pipeline.followUpRounds; round++) {
      // read what was found (titles and the passages that match the question) before asking what is missing
      const read = await sourcesOf(deps.contents, found.response.results, plan.query, plan.evidence, ctx, facts);
      const seen = read.map((s) => `${s.title}: ${s.evidence.replace(/\s+/g, ' ').slice(0, FOLLOW_UP_READ)}`);
      if (!(await widen(FOLLOW_UP_QUERIES, seen))) break;
      step('searching again');
      found = await find(deps, asked, ctx, facts);
    }
    if (cost > 0) found.response.costDollars.total = roundDollars(found.response.costDollars.total + cost);
    const nothingToSearch = found.response.results.length === 0 && emptyCorpus();
    if (nothingToSearch) found.response.costDollars.total = 0;
    if (plan.answer) step('writing the answer');
    reportWarnings(deps, plan, found, ctx, { planning, nothingToSearch });
    return found;
  };
  return {
    async run(plan, ctx) {
      const started = performance.now();
      const found = await search(plan, ctx);
      // `stream` through a door that cannot stream (an MCP tool) still gets its answer, whole
      if (!plan.answer) return found.response;
      try {
        const request = await synthesisRequest(plan, found, ctx);
        const answer = await timed('searchStageSeconds', ['answer'], () => deps.synthesis.answer(request, ctx));
        return withAnswer(found, answer, started);
      } catch (err) {
        // the results stand without the answer the model failed to write; the warning says so
        if (!(err instanceof ServiceError) || err.tag !== 'UNABLE_TO_GENERATE_RESPONSE') throw err;
        ctx.onWarning?.(warning('MODEL_FAILED', err.message));
        return found.response;
      }
    },
    async *stream(plan, ctx) {
      const started = performance.now();
      const found = await search(plan, ctx);
      for await (const chunk of deps.synthesis.stream(await synthesisRequest(plan, found, ctx), ctx)) {
        if (chunk.type === 'text') yield chunk;
        else yield { type: 'done', response: withAnswer(found, chunk.result, started) };
      }
    },
  };
}

/** Follow-up searches a deep-reasoning round adds at most. */
const FOLLOW_UP_QUERIES = 3;
/** Characters of each result's matching passages the follow-up planning reads. */
const FOLLOW_UP_READ = 300;

const roundDollars = (n: number) => Math.round(n * 1e6) / 1e6;

/** Progress notes for a caller that listens (the MCP door's progress notifications). */
function progressSteps(ctx: ServiceContext): (message: string) => void {
  let progress = 0;
  return (message) => ctx.onProgress?.({ progress: ++progress, message });
}

/**
 * The warnings of a search (src/core/warnings.ts): providers that failed during it, why it found
 * nothing, and a model it lacked to plan or to write.
 */
function reportWarnings(
  deps: SearchDeps,
  plan: SearchPlan,
  found: Found,
  ctx: ServiceContext,
  seen: { planning: boolean; nothingToSearch: boolean },
): void {
  if (!ctx.onWarning) return;
  for (const name of new Set(found.facts.providerFailures)) {
    ctx.onWarning(warning('PROVIDER_FAILED', name));
  }
  if (found.response.results.length === 0 && deps.providers.length === 0) {
    ctx.onWarning(warning(seen.nothingToSearch ? 'INDEX_EMPTY' : 'NO_SEARCH_PROVIDER'));
  }
  // an object answer without a model is an error (FEATURE_DISABLED), not a poorer answer
  const answering = plan.answer !== undefined && plan.answer.shape.type !== 'object';
  if ((seen.planning || answering) && !deps.synthesis.modelFor(ctx)) ctx.onWarning(warning('MODEL_MISSING'));
}

interface Found {
  response: SearchOutput;
  /** The search's facts so far (the response's `facts`), which the answer's reading adds to. */
  facts: SearchFacts;
}

/**
 * The search itself: local and provider lists fused, filtered, and turned into results; failed
 * providers and the admission queue's wait are added to `facts`.
 */
async function find(deps: SearchDeps, plan: SearchPlan, ctx: ServiceContext, facts: SearchFacts): Promise<Found> {
  const started = performance.now();
  const { type, pipeline } = plan;
  let filter = createRequestFilter(deps.index, plan.filters);
  const providers = plan.sources
    ? deps.providers.filter((p) => plan.sources!.providers.includes(p.name))
    : deps.providers;
  const useIndex = plan.sources?.index ?? true;
  const asking = pipeline.providers && !ctx.federated && providers.length > 0;
  const providerHits = asking ? timed('searchStageSeconds', ['providers'], () => askProviders({ ...deps, providers }, plan, ctx)) : null; // prettier-ignore
  const semantic = useIndex && pipeline.semantic && deps.semantic ? timed('searchStageSeconds', ['semantic'], () => nearestIds(deps, plan.query, ctx)) : null; // prettier-ignore
  // a lone local list (nothing fused with it, no location boost) is the answer as ranked: its first
  // numResults are all that is needed; anything fused needs the deeper lists
  const alone =
    !providerHits &&
    !semantic &&
    !plan.userLocation &&
    pipeline.feedbackRounds === 0 &&
    !(pipeline.additionalQueries && plan.additionalQueries.length);
  const depth = alone ? plan.numResults : LOCAL_DEPTH;
  let stage = performance.now();
  const local = useIndex ? localLists(deps.index, plan, filter, depth) : [];
  if (useIndex) observe.searchStage('local', since(stage));
  if (semantic) local.push(acceptable(deps.index, filter, await semantic));
  const asked = providerHits ? await providerHits : { hits: [], failed: [] };
  facts.providerFailures.push(...asked.failed);
  const remote = asked.hits;
  // provider pages are read (and so indexed) by the deep types, and whenever a filter needs the page
  const read = Math.max(pipeline.readProviderPages, filter.needsPage ? plan.numResults : 0);
  if (read > 0 && remote.some((l) => l.length > 0)) {
    await timed('searchStageSeconds', ['read_pages'], () => readProviderPages(deps, remote, read, ctx, facts));
    if (filter.needsPage) filter = createRequestFilter(deps.index, plan.filters);
  }
  stage = performance.now();
  const candidates = rankCandidates(deps.index, plan, local, remote, filter);
  observe.searchStage('rank', since(stage));
  stage = performance.now();
  const spent = { dollars: 0 }; // model-written summaries
  const results = await buildResults(
    { documents: deps.documents, contents: deps.contents, index: deps.index },
    candidates.slice(0, plan.numResults),
    plan,
    ctx,
    spent,
    facts,
  );
  observe.searchStage('results', since(stage));
  const response: SearchOutput = {
    requestId: ctx.requestId,
    results,
    costDollars: { total: roundDollars(searchCost(deps.prices, type, results.length, plan.contents) + spent.dollars) },
    searchTime: Math.round((performance.now() - started) * 100) / 100,
    resolvedSearchType: type,
    facts,
  };
  return { response, facts };
}

/** The local retrievals of the pipeline, restricted to documents that pass the request's filters. */
function localLists(index: SearchIndex, plan: SearchPlan, filter: SearchFilter, depth: number): number[][] {
  const urlOf = (id: number) => index.urls([id]).get(id) ?? '';
  const accept = filter.active ? (id: number) => filter.doc(id, index.table.facts(id), () => urlOf(id)) : undefined;
  return retrieveLocal(index, plan.query, plan.additionalQueries, plan.pipeline, accept, depth);
}

/** The query's nearest documents by embeddings; a failing or slow provider leaves them out with a warning. */
async function nearestIds(deps: SearchDeps, query: string, ctx: ServiceContext): Promise<number[]> {
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(deps.providerTimeoutMs)]);
  try {
    return await deps.semantic!.nearest(query, LOCAL_DEPTH, signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.logger.warn({ reason: (err as Error).message }, 'semantic search failed; answering with lexical ranking');
    return [];
  }
}
