/**
 * /answer: a question answered by a language model (the operator's, or an MCP client's) from the first
 * results of an `auto` search, which are returned as the answer's citations; whole or streamed. Without
 * a model a text answer is extracted from the sources (sentences picked from them), with the warning
 * MODEL_MISSING saying so; an object answer (`outputSchema`) needs a model. Search, sources and synthesis
 * are the ones /search uses for `outputSchema` (docs/api.md).
 */
import { ServiceError } from '../../errors.js';
import { warning, type Warning } from '../warnings.js';
import type { ServiceContext } from '../context.js';
import type { ContentsService } from '../contents/contents.service.js';
import { roundDollars } from '../pricing.js';
import { MAX_SOURCES, answerShape, sourcesOf } from './sources.js';
import type { ResultObject, WaitTally } from './results.js';
import { searchPlanOf, type SearchPlan } from './search.plan.js';
import type { SearchOutput, SearchService } from './search.service.js';
import type { Synthesis, SynthesisRequest, SynthesisResult } from '../synthesis/synthesis.service.js';

/** What an /answer call asks, as the service reads it. */
export interface AnswerPlan {
  query: string;
  /** Citations carry their page's text. */
  withText: boolean;
  systemPrompt?: string;
  /** `{type: "text"}` or an object JSON Schema; absent: text. */
  outputSchema?: unknown;
  userLocation?: string;
}

export interface AnswerOutput {
  requestId: string;
  answer: string | Record<string, unknown>;
  /** The search results the answer was written from, best first. */
  citations: ResultObject[];
  costDollars: { total: number };
  /** Not on the wire: the admission queue's wait of the search and of reading its sources. */
  facts: WaitTally;
}

/** A streamed answer: its citations (before any text), the text as it is written, then the whole output. */
export type AnswerEvent =
  | { type: 'citations'; citations: ResultObject[] }
  | { type: 'text'; text: string }
  /** `warnings`: what the answer lacks (MODEL_MISSING: it was extracted, not written), for the stream's last frame. */
  | { type: 'done'; output: AnswerOutput; warnings: Warning[] };

export interface AnswerDeps {
  search: SearchService;
  synthesis: Synthesis;
  contents: ContentsService;
}

export interface AnswerService {
  /** The whole answer. Throws FEATURE_DISABLED for an object answer without a model; UNABLE_TO_GENERATE_RESPONSE. */
  run(plan: AnswerPlan, ctx: ServiceContext): Promise<AnswerOutput>;
  /** The answer streamed; the same errors, before the first event. */
  stream(plan: AnswerPlan, ctx: ServiceContext): AsyncIterable<AnswerEvent>;
}

/** The search type /answer searches with. */
export const ANSWER_SEARCH_TYPE = 'auto';

/** The answer when the search found nothing: said without a model call (an object answer asks the model). */
export const NO_SOURCES_ANSWER = 'The search found no sources to answer this query from.';

const noSources = (): SynthesisResult => ({
  content: NO_SOURCES_ANSWER,
  grounding: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  writer: 'none',
  costDollars: 0,
});

const noModelForObject = () =>
  new ServiceError(
    'FEATURE_DISABLED',
    'outputSchema: an answer shaped by a JSON Schema needs a language model: set TRAWL_MODEL_BASE_URL and TRAWL_MODEL (and TRAWL_MODEL_API_KEY if the server needs one). Without a model, /answer without outputSchema answers with sentences extracted from the sources.',
    { field: 'outputSchema' },
  );

/** The search an /answer runs: `auto`, its first `MAX_SOURCES` results, their text when citations carry it. */
export function answerSearchPlan(plan: Pick<AnswerPlan, 'query' | 'withText' | 'userLocation'>): SearchPlan {
  return searchPlanOf({
    query: plan.query,
    type: ANSWER_SEARCH_TYPE,
    numResults: MAX_SOURCES,
    userLocation: plan.userLocation,
    contents: plan.withText ? { text: true, livecrawlTimeout: 10_000, subpages: 0 } : undefined,
  });
}

/** The /answer service over search, sources and synthesis; its methods' errors are `AnswerService`'s. */
export function createAnswerService(deps: AnswerDeps): AnswerService {
  /**
   * The search and what the model reads of it; an object answer without a model is refused before
   * anything runs, a text answer without one is extracted (and says so).
   */
  const prepare = async (plan: AnswerPlan, ctx: ServiceContext) => {
    const extracted = !deps.synthesis.modelFor(ctx);
    if (extracted && answerShape(plan.outputSchema).type === 'object') throw noModelForObject();
    const warnings = extracted ? [warning('MODEL_MISSING')] : [];
    for (const w of warnings) ctx.onWarning?.(w);
    const found = await deps.search.run(answerSearchPlan(plan), ctx);
    const sources = await sourcesOf(deps.contents, found.results, plan.query, { mode: 'fallback' }, ctx, found.facts);
    const request: SynthesisRequest = {
      query: plan.query,
      shape: answerShape(plan.outputSchema),
      systemPrompt: plan.systemPrompt,
      sources,
    };
    // with nothing to read, a text answer is known without asking the model (and costs nothing)
    const unanswerable = sources.length === 0 && request.shape.type === 'text';
    return { found, request, unanswerable, warnings };
  };
  const output = (found: SearchOutput, answer: SynthesisResult, ctx: ServiceContext): AnswerOutput => ({
    requestId: ctx.requestId,
    answer: answer.content,
    citations: found.results,
    costDollars: { total: roundDollars(found.costDollars.total + answer.costDollars) },
    facts: { queue: found.facts.queue },
  });
  return {
    async run(plan, ctx) {
      const { found, request, unanswerable } = await prepare(plan, ctx);
      return output(found, unanswerable ? noSources() : await deps.synthesis.answer(request, ctx), ctx);
    },
    async *stream(plan, ctx) {
      const { found, request, unanswerable, warnings } = await prepare(plan, ctx);
      yield { type: 'citations', citations: found.results };
      if (unanswerable) {
        yield { type: 'text', text: NO_SOURCES_ANSWER };
        yield { type: 'done', output: output(found, noSources(), ctx), warnings };
        return;
      }
      for await (const chunk of deps.synthesis.stream(request, ctx)) {
        if (chunk.type === 'text') yield chunk;
        else yield { type: 'done', output: output(found, chunk.result, ctx), warnings };
      }
    },
  };
}
