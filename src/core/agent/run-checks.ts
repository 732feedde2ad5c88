/**
 * What a new agent run is checked against before it is stored: its data sources exist, its budget is
 * within the operator's ceiling, zero retention's limits, a schema and an effort a model can serve, and
 * a `previousRunId` that is the caller's completed run. Also what such a previous run found.
 */
import { ServiceError } from '../../errors.js';
import type { AgentRunsRepo } from '../../store/contracts/agent-runs.js';
import { reachOf, reaches } from '../access/access.js';
import type { Caller } from '../context.js';
import type { AgentRunRequest } from './agent-runs.types.js';
import { runOwner, schemaSources } from './objects.js';
import { MODEL_FREE_EFFORTS, type ResearchRequest } from './research.js';

/** The data source that is Trawl's own index. */
export const INDEX_SOURCE = 'trawl';

/** What the checks need to know of the server. */
export interface RunLimits {
  /** Names of the configured web-search providers (each a data source, beside `trawl`). */
  providerNames: readonly string[];
  /** The operator's ceiling on `budget.maxCostDollars` (TRAWL_AGENT_MAX_COST). */
  maxBudgetDollars: number;
}

const invalid = (field: string, message: string) => new ServiceError('INVALID_REQUEST_BODY', message, { field });

/**
 * The sources a run searches: the `dataSources` named, plus any source a property of `outputSchema`
 * names (`"x-source": "brave"`); all of them (undefined) when neither names one. An unknown name is a 400.
 */
export function sourcesOf(input: AgentRunRequest, providerNames: readonly string[]): ResearchRequest['sources'] {
  const available = [INDEX_SOURCE, ...providerNames];
  const named = (input.dataSources ?? []).map((d, i) => ({ name: d.provider, field: `dataSources[${i}].provider` }));
  for (const name of schemaSources(input.outputSchema)) named.push({ name, field: 'outputSchema' });
  for (const { name, field } of named) {
    if (!available.includes(name)) {
      throw invalid(field, `${field}: unknown data source "${name}"; this Trawl offers ${available.join(', ')}`);
    }
  }
  if (named.length === 0) return undefined;
  const names = new Set(named.map((n) => n.name));
  return { index: names.has(INDEX_SOURCE), providers: [...names].filter((n) => n !== INDEX_SOURCE) };
}

/** Throws when this server cannot run `input` for `caller` (`hasModel`: a model can write for it). */
export function checkSupported(input: AgentRunRequest, caller: Caller | null, hasModel: boolean, limits: RunLimits) {
  sourcesOf(input, limits.providerNames);
  const budget = input.budget?.maxCostDollars;
  if (budget !== undefined && budget > limits.maxBudgetDollars) {
    throw invalid(
      'budget.maxCostDollars',
      `budget.maxCostDollars: must be at most ${limits.maxBudgetDollars} on this server (got ${budget})`,
    );
  }
  if (caller?.zeroRetention) {
    // the spec's zero-retention rules: no data partners, no continuing from a run that was not kept
    if (input.dataSources) throw invalid('dataSources', 'dataSources: not available with zero data retention');
    if (input.previousRunId) throw invalid('previousRunId', 'previousRunId: unavailable with zero data retention');
  }
  const schema = input.outputSchema;
  if (schema && (schema.type !== 'object' || typeof schema.properties !== 'object')) {
    throw invalid('outputSchema', 'outputSchema: must be an object schema with properties (put a list in a property)');
  }
  if (schema && !hasModel) {
    throw new ServiceError(
      'FEATURE_DISABLED',
      'outputSchema: structured output needs a language model, and none is configured (TRAWL_MODEL_BASE_URL; docs/synthesis.md)',
      { field: 'outputSchema' },
    );
  }
  if (!hasModel && !MODEL_FREE_EFFORTS.includes(input.effort)) {
    throw new ServiceError(
      'FEATURE_DISABLED',
      `effort: "${input.effort}" needs a language model to plan and write, and none is configured (TRAWL_MODEL_BASE_URL; docs/synthesis.md); without one, use effort "minimal" or "low"`,
      { field: 'effort' },
    );
  }
}

/** Throws unless `previousRunId` (when given) is a completed run of the caller's key. */
export async function checkPrevious(repo: AgentRunsRepo, input: AgentRunRequest, caller: Caller | null) {
  const id = input.previousRunId;
  if (!id) return;
  const found = await repo.get(id);
  const reached = found && reaches(reachOf(caller, 'agentRun'), runOwner(found));
  if (!reached) {
    throw new ServiceError('NOT_FOUND', `previousRunId: agent run ${id} not found`, { field: 'previousRunId' });
  }
  const previous = found;
  if (previous.status !== 'completed') {
    throw invalid(
      'previousRunId',
      `previousRunId: run ${id} is ${previous.status}; only a completed run can be continued`,
    );
  }
}

type Cited = { text?: string; grounding?: { citations: { url: string; title?: string }[] }[] };

/** What a finished earlier run found, for `previousRunId`: its answer and the sources it cited. */
export async function priorOf(repo: AgentRunsRepo, id: string): Promise<ResearchRequest['prior']> {
  const previous = await repo.get(id);
  const output = previous?.output ? (JSON.parse(previous.output) as Cited) : undefined;
  if (!output) return undefined;
  const sources = new Map<string, { url: string; title: string | null }>();
  for (const g of output.grounding ?? []) {
    for (const c of g.citations) sources.set(c.url, { url: c.url, title: c.title ?? null });
  }
  return { text: output.text ?? '', sources: [...sources.values()] };
}
