/**
 * The research loop of an agent run: plan searches, search (the local index and every configured
 * provider), read what was found, plan again from what is missing, and write the answer with grounding
 * from the sources read. Effort sets the breadth (searches planned up front), the depth (follow-up
 * rounds) and the price; metered efforts stop gracefully at their budget with what they found.
 */
import { ServiceError } from '../../errors.js';
import type { ServiceContext } from '../context.js';
import type { ContentsService } from '../contents/contents.service.js';
import type { Prices } from '../pricing.js';
import { roundDollars } from '../pricing.js';
import { sourcesOf } from '../search/sources.js';
import type { ResultObject } from '../search/results.js';
import { searchPlanOf } from '../search/search.plan.js';
import type { SearchService } from '../search/search.service.js';
import type { GroundingEntry } from '../synthesis/grounding.js';
import type { Synthesis } from '../synthesis/synthesis.service.js';
import { schemaProblems } from '../synthesis/validate.js';
import type { DocumentsRepo } from '../../store/contracts/documents.js';
import { checkContacts } from './contacts.js';
import { exclusionTest, instructions, renderStructured, rowText } from './research-text.js';

export type Effort = 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'auto' | 'max';

/** Breadth and depth of an effort: searches in the first round, follow-up rounds, sources read. */
export interface EffortPlan {
  searches: number;
  rounds: number;
  sources: number;
  /** Fixed price (a price table entry), or metered up to a cap. */
  price: { fixed: keyof Prices } | { cap: keyof Prices };
}

export const EFFORTS: Record<Effort, EffortPlan> = {
  minimal: { searches: 1, rounds: 0, sources: 5, price: { fixed: 'agentEffortMinimal' } },
  low: { searches: 2, rounds: 0, sources: 8, price: { fixed: 'agentEffortLow' } },
  medium: { searches: 3, rounds: 1, sources: 10, price: { fixed: 'agentEffortMedium' } },
  high: { searches: 5, rounds: 2, sources: 10, price: { fixed: 'agentEffortHigh' } },
  xhigh: { searches: 8, rounds: 3, sources: 10, price: { fixed: 'agentEffortXhigh' } },
  auto: { searches: 3, rounds: 1, sources: 10, price: { cap: 'agentAutoCap' } },
  max: { searches: 8, rounds: 3, sources: 10, price: { cap: 'agentMaxCap' } },
};

/** Efforts a run can do without a language model: one or two searches and an extractive answer. */
export const MODEL_FREE_EFFORTS: readonly Effort[] = ['minimal', 'low'];

/**
 * Compute units measure a run's model work: one per 10,000 model tokens of its answer, plus a tenth of a
 * unit per step (a search, a reading of the sources, a planning call). docs/agent.md.
 */
export const TOKENS_PER_COMPUTE_UNIT = 10_000;
export const STEP_COMPUTE_UNITS = 0.1;

/** A progress event of the loop; steps of one search share a `callId`. */
export type ResearchEvent =
  | { event: 'agent_run.search'; data: { callId: string; query: string; description: string } }
  | { event: 'agent_run.source.added'; data: { callId: string; url: string; title: string | null } }
  | {
      event: 'agent_run.tool.progress';
      data: { callId: string; item: { call_id: string; type: string; status: string; results?: number } };
    };

export interface ResearchRequest {
  query: string;
  effort: Effort;
  systemPrompt?: string;
  /** The caller's ceiling for metered efforts (dollars). */
  maxCostDollars?: number;
  /** JSON Schema (an object) for `output.structured`; without it the answer is text. */
  outputSchema?: Record<string, unknown>;
  /** The sources the run may search (`dataSources`); absent: the local index and every provider. */
  sources?: { index: boolean; providers: readonly string[] };
  /** `input.data`: rows to enrich or expand; each row's values are searched for, and given to the model. */
  rows?: Record<string, unknown>[];
  /** `input.exclusion`: entries not to surface (by `url`, `domain`, or a name in the title). */
  exclusion?: Record<string, unknown>[];
  /** What an earlier run found (`previousRunId`): its answer and its sources, to continue from. */
  prior?: { text: string; sources: { url: string; title: string | null }[] };
}

export interface ResearchResult {
  text: string;
  structured: unknown;
  grounding: GroundingEntry[];
  usage: { agentComputeUnits: number; searches: number; modelTokens: number; emails: number; phoneNumbers: number };
  costDollars: { total: number; agentCompute: number; search: number; emails: number; phoneNumbers: number };
  stopReason: 'schema_satisfied' | 'budget_reached';
}

export interface ResearchDeps {
  search: SearchService;
  contents: ContentsService;
  synthesis: Synthesis;
  prices: Prices;
  /** Stored pages: the texts contact fields are checked against. */
  documents: Pick<DocumentsRepo, 'get'>;
}

/**
 * The loop's state after its last completed step: each step's result in order (a resumed run replays
 * them instead of redoing the work, and emits nothing for them), the sources found, and what was counted.
 */
export interface ResearchState {
  log: unknown[];
  found: ResultObject[];
  searches: number;
  modelTokens: number;
  steps: number;
  calls: number;
  stopReason: ResearchResult['stopReason'];
}

/** Where a run resumes from (`state`, null for a new run) and where each completed step's state is saved. */
export interface Checkpoint {
  state: ResearchState | null;
  save: (state: ResearchState) => void | Promise<void>;
}

/**
 * Runs the loop; `emit` receives progress events as they happen (each stored before the loop goes on). Throws on cancellation (`ctx.signal`).
 * With a checkpoint, the state is saved after each step and a resumed run continues after the last
 * saved step; the step in progress when a process died is done again (its events too, with new ids).
 */
export async function research(
  deps: ResearchDeps,
  request: ResearchRequest,
  ctx: ServiceContext,
  emit: (event: ResearchEvent) => void | Promise<void>,
  checkpoint: Checkpoint = { state: null, save: () => {} },
): Promise<ResearchResult> {
  const plan = EFFORTS[request.effort];
  const { prices } = deps;
  const cap = 'cap' in plan.price ? Math.min(prices[plan.price.cap], request.maxCostDollars ?? Infinity) : Infinity;
  const state: ResearchState = checkpoint.state
    ? structuredClone(checkpoint.state)
    : {
        log: [],
        found: (request.prior?.sources ?? []) as ResultObject[],
        searches: 0,
        modelTokens: 0,
        steps: 0,
        calls: 0,
        stopReason: 'schema_satisfied',
      };
  const found = new Map<string, ResultObject>(state.found.map((r) => [r.url, r]));
  const systemPrompt = instructions(request);
  const excluded = exclusionTest(request.exclusion ?? []);

  const computeUnits = () => state.modelTokens / TOKENS_PER_COMPUTE_UNIT + state.steps * STEP_COMPUTE_UNITS;
  const metered = () => computeUnits() * prices.agentComputeUnit + state.searches * prices.agentSearchCall;
  /** Whether one more search (and the final answer after it) still fits the budget. */
  const affordable = () => metered() + prices.agentSearchCall + 2 * STEP_COMPUTE_UNITS * prices.agentComputeUnit <= cap;

  /** One step: replayed from the saved state if it completed before, else done and saved. */
  let replayed = 0;
  const step = async <T>(work: () => Promise<T>): Promise<T> => {
    if (replayed < state.log.length) return state.log[replayed++] as T;
    const out = await work();
    if (ctx.signal.aborted) throw ctx.signal.reason;
    state.log.push(out ?? null);
    replayed++;
    await checkpoint.save({ ...state, found: [...found.values()] });
    return out;
  };

  const searchFor = (query: string) => step(() => searchOnce(query));
  const searchOnce = async (query: string) => {
    if (!affordable()) {
      state.stopReason = 'budget_reached';
      return;
    }
    const callId = `call_${++state.calls}`;
    await emit({ event: 'agent_run.search', data: { callId, query, description: `Searching the web for: ${query}` } });
    const out = await deps.search.run(
      searchPlanOf({ query, type: 'auto', numResults: 10, sources: request.sources }),
      ctx,
    );
    if (ctx.signal.aborted) throw ctx.signal.reason; // stopped meanwhile: another process may resume the run
    state.searches++;
    state.steps++;
    let added = 0;
    for (const r of out.results) {
      if (found.has(r.url) || excluded(r)) continue;
      found.set(r.url, r);
      added++;
      await emit({ event: 'agent_run.source.added', data: { callId, url: r.url, title: r.title ?? null } });
    }
    await emit({
      event: 'agent_run.tool.progress',
      data: { callId, item: { call_id: callId, type: 'web_search', status: 'completed', results: added } },
    });
  };

  const planMore = async (max: number, seen?: string[]) => {
    if (max <= 0 || !deps.synthesis.modelFor(ctx)) return [];
    return step(async () => {
      const planned = await deps.synthesis.plan({ query: request.query, max, systemPrompt, seen }, ctx);
      state.steps++; // a planning call is a step (its tokens are not reported by the planner)
      return planned.queries;
    });
  };

  // the task itself, what the model plans, and (for rows to enrich) each row's values with the task
  const rowQueries = (request.rows ?? []).slice(0, plan.searches * 2).map((row) => `${request.query} ${rowText(row)}`);
  const queries = [request.query, ...(await planMore(plan.searches - 1))].slice(0, plan.searches).concat(rowQueries);
  for (const q of queries) await searchFor(q);
  for (let round = 0; round < plan.rounds && state.stopReason !== 'budget_reached'; round++) {
    const read = await step(async () => {
      const sources = await sourcesOf(deps.contents, [...found.values()], request.query, { mode: 'cache-only' }, ctx);
      state.steps++;
      return sources.map((s) => `${s.title}: ${s.evidence.replace(/\s+/g, ' ').slice(0, 300)}`);
    });
    const more = await planMore(2, read);
    if (more.length === 0) break;
    for (const q of more) await searchFor(q);
  }
  if (ctx.signal.aborted) throw ctx.signal.reason;

  const sources = await sourcesOf(
    deps.contents,
    [...found.values()].slice(0, plan.sources),
    request.query,
    { mode: 'cache-only' },
    ctx,
  );
  state.steps++;
  const schema = request.outputSchema;
  const answer = await deps.synthesis.answer(
    {
      query: request.query,
      shape: schema ? ({ ...(schema as object), type: 'object' } as never) : { type: 'text' },
      systemPrompt,
      sources,
    },
    ctx,
  );
  state.modelTokens += answer.usage.inputTokens + answer.usage.outputTokens;

  let structured: unknown = null;
  let contacts = { email: 0, phone: 0 };
  if (schema) {
    // contact fields only from what the pages read show; then the whole answer must still fit the schema
    // a page's text, the addresses its mailto: and tel: links give, and its structured data's contact points
    const pages = await Promise.all(
      sources.map(async (s) => {
        const doc = await deps.documents.get(s.url);
        const meta = doc?.metadata as
          | { contacts?: { emails: string[]; phones: string[] }; organization?: { email?: string; telephone?: string } }
          | undefined;
        const org = meta?.organization;
        return [
          doc?.text ?? s.evidence,
          ...(meta?.contacts?.emails ?? []),
          ...(meta?.contacts?.phones ?? []),
          org?.email ?? '',
          org?.telephone ?? '',
        ].join('\n');
      }),
    );
    const checked = checkContacts(answer.content, schema, pages);
    if (checked.dropped.length)
      ctx.logger.info({ dropped: checked.dropped.length }, 'unverified contact fields set to null');
    const problem = await schemaProblems(schema, checked.value);
    if (problem) {
      ctx.logger.warn({ problem: problem.text }, 'structured output does not match outputSchema');
      throw new ServiceError(
        'UNABLE_TO_GENERATE_RESPONSE',
        `output.structured does not match outputSchema once unverified contact fields (${checked.dropped.join(', ') || 'none'}) are null: ${problem.safe}. Make fields that may be unverifiable nullable and not required.`,
      );
    }
    structured = checked.value;
    contacts = { email: checked.kept.email, phone: checked.kept.phone };
  }
  const text = typeof answer.content === 'string' ? answer.content : renderStructured(structured);
  if (!text.trim()) throw new ServiceError('UNABLE_TO_GENERATE_RESPONSE', 'the run found nothing to answer from');

  const agentCompute = roundDollars(computeUnits() * prices.agentComputeUnit);
  const search = roundDollars(state.searches * prices.agentSearchCall);
  const emails = roundDollars(contacts.email * prices.agentEmailEnrichment);
  const phoneNumbers = roundDollars(contacts.phone * prices.agentPhoneEnrichment);
  const work = 'fixed' in plan.price ? prices[plan.price.fixed] : Math.min(cap, roundDollars(agentCompute + search));
  return {
    text,
    structured,
    // grounding names fields of the run's output: `text`, or `structured.<path>`
    grounding: answer.grounding.map((g) => ({
      ...g,
      field: g.field.replace(/^content/, schema ? 'structured' : 'text'),
    })),
    usage: {
      agentComputeUnits: Math.round(computeUnits() * 1000) / 1000,
      searches: state.searches,
      modelTokens: state.modelTokens,
      emails: contacts.email,
      phoneNumbers: contacts.phone,
    },
    costDollars: { total: roundDollars(work + emails + phoneNumbers), agentCompute, search, emails, phoneNumbers },
    stopReason: state.stopReason,
  };
}
