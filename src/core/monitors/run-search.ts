/**
 * What one monitor run does: check that the key it runs as is still valid, search what was published
 * or crawled since the last run (a window of twice the period, as the spec's 2× overlap), drop results
 * that repeat the last 5 runs' outputs (same page, near-duplicate title or text: ./dedup.ts), and write
 * `output.content` and `output.grounding` from the new results with the synthesis layer.
 */
import { isInvalidInput, ServiceError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import type { DocumentsRepo } from '../../store/contracts/documents.js';
import type { MonitorRow, MonitorsRepo, RunRow } from '../../store/contracts/monitors.js';

import type { Accounts } from '../accounts/accounts.service.js';
import { searchBound } from '../accounts/bounds.js';
import type { KeysService } from '../accounts/keys.service.js';
import type { ContentsService } from '../contents/contents.service.js';
import type { ServiceContext } from '../context.js';
import { answerShape, sourcesOf } from '../search/sources.js';
import type { ContentsRequest } from '../contents/fetch.plan.js';
import type { ResultObject } from '../search/results.js';
import { searchPlanOf, type SearchInput } from '../search/search.plan.js';
import type { SearchService } from '../search/search.service.js';
import type { Synthesis } from '../synthesis/synthesis.service.js';
import { createDeduplicator, type SeenResult } from './dedup.js';
import type { ExecuteRun, RunResult } from './runner.js';
import type { Charge } from '../accounts/meter.js';
import { periodMs } from './schedule.js';

/** Earlier runs whose outputs a run's results are deduplicated against (the spec's 5). */
export const DEDUP_RUNS = 5;
/** The text of `output.content` when a run found nothing new (no `outputSchema` of type object). */
export const NOTHING_NEW = 'No new results since the last run.';

/** What a run's work needs: the monitors' store (earlier runs), the stored pages and the services. */
export interface RunSearchDeps {
  repo: Pick<MonitorsRepo, 'lastCompletedStart' | 'recentOutputs'>;
  /** Stored pages: the texts that results are compared by, whatever contents the monitor asked for. */
  documents: Pick<DocumentsRepo, 'get'>;
  keys: KeysService;
  /** Each run is charged to the monitor's key like a search (the team's credits and budgets apply). */
  accounts: Pick<Accounts, 'meter' | 'pricing'>;
  search: SearchService;
  contents: ContentsService;
  synthesis: Synthesis;
  now: () => number;
  logger: Logger;
}

interface StoredSearch {
  query: string;
  numResults: number;
  contents?: ContentsRequest;
  includeDomains?: string[];
  excludeDomains?: string[];
}

/**
 * The start of the window a run searches: twice the period before now for a scheduled monitor; for a
 * manual-only one, twice the time since its last completed run began; none for its first run.
 */
export function windowStartMs(
  monitor: MonitorRow,
  lastCompletedStart: string | undefined,
  nowMs: number,
): number | undefined {
  if (monitor.period) return nowMs - 2 * periodMs(monitor.period);
  if (!lastCompletedStart) return undefined;
  return nowMs - 2 * Math.max(0, nowMs - Date.parse(lastCompletedStart));
}

/** The spec's fail reason for an error of the search or synthesis. */
export function failReasonOf(err: unknown): string {
  if (!(err instanceof ServiceError)) return 'internal_error';
  if (err.tag === 'RATE_LIMIT_EXCEEDED') return 'rate_limited';
  if (['NO_MORE_CREDITS', 'API_KEY_BUDGET_EXCEEDED', 'TEAM_BUDGET_EXCEEDED'].includes(err.tag))
    return 'insufficient_credits';
  // a key that no longer works, or whose team the operator blocked
  if (err.tag === 'INVALID_API_KEY' || err.tag === 'TEAM_BLOCKED') return 'api_key_invalid';
  if (err.tag === 'SERVICE_UNAVAILABLE') return 'search_unavailable';
  if (isInvalidInput(err.tag)) return 'invalid_params';
  return 'search_failed';
}

export function createRunSearch(deps: RunSearchDeps): ExecuteRun {
  return async (monitor: MonitorRow, run: RunRow, signal: AbortSignal): Promise<RunResult> => {
    const caller = monitor.key_id ? await deps.keys.callerOf(monitor.key_id) : null;
    if (monitor.key_id && !caller) {
      return { ok: false, failReason: 'api_key_invalid', detail: `API key ${monitor.key_id} is unknown or revoked` };
    }
    const ctx: ServiceContext = {
      requestId: run.id,
      logger: deps.logger.child({ runId: run.id, monitorId: monitor.id }),
      signal,
      caller,
      clock: { now: () => new Date(deps.now()) },
      betas: new Set(),
    };
    const search = JSON.parse(monitor.search) as StoredSearch;
    const since = windowStartMs(monitor, await deps.repo.lastCompletedStart(monitor.id), deps.now());
    let charge: Charge | undefined;
    let cost = 0;
    try {
      const input: SearchInput = {
        query: search.query,
        type: 'auto',
        // room for the results that dedup removes
        numResults: Math.min(100, search.numResults * 2),
        includeDomains: search.includeDomains,
        excludeDomains: search.excludeDomains,
        contents: search.contents,
        ...(since !== undefined ? { startCrawlDate: new Date(since).toISOString() } : {}),
      };
      // the search, and an answer written from its results
      const bound = searchBound(searchPlanOf({ ...input, outputSchema: {} }), deps.accounts.pricing);
      charge = await deps.accounts.meter.reserve(monitor.key_id, 'monitors.run', bound);
      const found = await deps.search.run(searchPlanOf(input), ctx);
      cost = found.costDollars.total;
      const failed = found.facts.providerFailures;
      if (found.results.length === 0 && failed.length > 0) {
        // nothing found because the web search is down, not because nothing is new: the next slot tries again
        return {
          ok: false,
          failReason: 'search_unavailable',
          detail: `web search failed: ${[...new Set(failed)].join(', ')}`,
        };
      }
      const earlier = await deps.repo.recentOutputs(monitor.id, DEDUP_RUNS);
      const results = (await newResults(found.results, earlier, deps.documents)).slice(0, search.numResults);
      const schema = monitor.output_schema ? (JSON.parse(monitor.output_schema) as unknown) : undefined;
      const shape = answerShape(schema);
      if (results.length === 0 && shape.type === 'text') {
        return { ok: true, output: { results, content: NOTHING_NEW, grounding: [] } };
      }
      const sources = await sourcesOf(deps.contents, results, search.query, { mode: 'cache-only' }, ctx);
      const answer = await deps.synthesis.answer({ query: search.query, shape, sources }, ctx);
      cost += answer.costDollars;
      return { ok: true, output: { results, content: answer.content, grounding: answer.grounding } };
    } catch (err) {
      if (signal.aborted) throw err;
      const failReason = failReasonOf(err);
      const detail =
        err instanceof ServiceError ? `${err.tag}: ${err.message}` : 'unexpected error; see the server log';
      if (failReason === 'internal_error') ctx.logger.error({ err }, 'monitor run failed');
      return { ok: false, failReason, detail };
    } finally {
      await charge?.settle(cost);
    }
  };
}

/**
 * The results that repeat neither each other nor the earlier outputs (JSON of `{results}`). Results are
 * compared by their stored page text, so near-duplicates are found even when the monitor asks for no
 * text; the earlier results by what their pages hold now.
 */
async function newResults(
  results: ResultObject[],
  earlierOutputs: string[],
  documents: RunSearchDeps['documents'],
): Promise<ResultObject[]> {
  const seen = async (r: SeenResult): Promise<SeenResult> => ({
    ...r,
    text: r.text ?? (await documents.get(r.url))?.text ?? null,
  });
  const earlier = earlierOutputs.flatMap((o) => (JSON.parse(o) as { results?: SeenResult[] }).results ?? []);
  const dedup = createDeduplicator(await Promise.all(earlier.map(seen)));
  const found = await Promise.all(results.map((r) => seen(r as SeenResult)));
  // in order: each result kept is compared with the ones kept before it
  return results.filter((_, i) => dedup.check(found[i]!) === undefined);
}
