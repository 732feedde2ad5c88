/**
 * /agent/runs: runs are created `queued`, started (`running`) when the key has a free slot (a fifth of
 * its request rate, two at the default), researched (./research.ts), and end `completed`, `failed` or
 * `cancelled`. Every step is an event with a sequence number, stored before it is streamed, so a
 * stream can be replayed from any `Last-Event-ID`. Runs and events are durable: the research state is
 * saved at each completed step, and a run whose process died (or stopped) is queued again and resumed
 * from there by whichever process claims it; a run that cannot be resumed fails `interrupted`. docs/agent.md.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { isPaymentRefusal, ServiceError } from '../../errors.js';
import { withoutContent, type Logger } from '../../lib/logger.js';
import type { AgentRunRow, AgentRunsRepo } from '../../store/agent-runs.repo.js';
import type { Accounts } from '../accounts/accounts.service.js';
import type { ChatModel } from '../../providers/model/types.js';
import type { Caller, ServiceContext } from '../context.js';
import type { AgentRunRequest } from './agent-runs.types.js';
import { decodeCursor, encodeCursor } from '../monitors/objects.js';
import { createWakeup } from '../monitors/wakeup.js';
import { toEvent, toRun, schemaSources, type AgentEvent } from './objects.js';
import { EFFORTS, MODEL_FREE_EFFORTS, research, type Effort, type ResearchDeps } from './research.js';
import { nextStart, parseProgress, unresumable, type Progress } from './progress.js';

export type { AgentEvent } from './objects.js';

type Page<T> = { data: T[]; hasMore: boolean; nextCursor: string | null };
const TERMINAL = new Set(['agent_run.completed', 'agent_run.failed', 'agent_run.cancelled']);
const LEASE_MS = 60_000;
/** Zero retention: how long a finished run's output waits to be polled, and its events for a live stream. */
const ZDR_OUTPUT_MS = 10 * 60_000;
const ZDR_EVENTS_MS = 60_000;

export interface AgentRunsDeps {
  repo: AgentRunsRepo;
  research: ResearchDeps;
  accounts: Pick<Accounts, 'meter'>;
  /** The caller a key id stands for now (its rate sets how many of its runs run at once). */
  callerOf: (keyId: string) => Caller | null;
  now: () => number;
  logger: Logger;
  /** Whether the operator configured a language model (efforts above `low` need one). */
  hasModel: boolean;
  /**
   * Runs of one key at once when the key has no rate of its own (the spec's two at its default rate);
   * a key with its own rate runs a fifth of it. 0: no limit.
   */
  defaultRuns: number;
  /** Runs executing at once in this process, whatever the keys. */
  processConcurrency: number;
  /** The operator's ceiling on `budget.maxCostDollars` (TRAWL_AGENT_MAX_COST). */
  maxBudgetDollars: number;
  /** Names of the configured web-search providers (each a data source, beside `trawl`, the local index). */
  providerNames: readonly string[];
}

/** The data source that is Trawl's own index. */
export const INDEX_SOURCE = 'trawl';

export function createAgentRunsService(deps: AgentRunsDeps) {
  const { repo } = deps;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const active = new Map<string, AbortController>();
  /** The MCP client's own model (sampling) of runs created over MCP, for as long as this process runs them. */
  const clientModels = new Map<string, ChatModel>();
  const listeners = new Set<() => void>();
  const idle: (() => void)[] = [];
  /** Set when the process stops: it starts no more runs (those it gave back are for the next process). */
  let stopped = false;
  const iso = (ms: number) => new Date(ms).toISOString();

  /** Stores an event (its number taken in a write transaction, so another process's cancel cannot take it too). */
  const append = (runId: string, event: string, data: Record<string, unknown>) => {
    repo.transaction(() => repo.appendEvent(runId, event, JSON.stringify(data), iso(deps.now())));
    for (const l of listeners) l();
  };

  const own = (id: string, caller: Caller | null): AgentRunRow => {
    const row = repo.get(id);
    if (!row || row.key_id !== (caller?.keyId ?? '')) throw new ServiceError('NOT_FOUND', `agent run ${id} not found`);
    return row;
  };

  /** Ends an open run with its terminal event; false if it had ended already. */
  const finish = (
    id: string,
    end: Parameters<AgentRunsRepo['end']>[1],
    event: string,
    data: (row: AgentRunRow) => Record<string, unknown>,
  ) =>
    // prettier-ignore
    repo.transaction(() => {
      if (!repo.end(id, end)) return false;
      append(id, event, data(repo.get(id)!));
      repo.eraseRequest(id); // a zero-retention run's request is not kept once it ended
      return true;
    });

  const fail = (id: string, code: string, message: string) =>
    finish(
      id,
      { status: 'failed', output: null, cost: null, usage: null, error: JSON.stringify({ code, message }), stop_reason: 'error', completed_at: iso(deps.now()) }, // prettier-ignore
      'agent_run.failed',
      (row) => ({ id: row.id, status: 'failed', error: { code, message } }),
    );

  /** Ends a run that cannot be resumed: `interrupted`, saying why. */
  const interrupted = (id: string, why: string) =>
    fail(id, 'interrupted', `the run was interrupted (its process stopped) and cannot be resumed: ${why}`);

  /** Records the run's start (the `agent_run.started` event the first time) and returns its saved progress. */
  const begin = (row: AgentRunRow): Progress => {
    const saved = parseProgress(row.progress);
    const progress = nextStart(saved, clientModels.has(row.id));
    repo.transaction(() => {
      if (!saved) append(row.id, 'agent_run.started', { id: row.id, status: 'running' });
      repo.saveProgress(row.id, owner, JSON.stringify(progress));
    });
    return progress;
  };

  const execute = async (row: AgentRunRow): Promise<void> => {
    const controller = new AbortController();
    active.set(row.id, controller);
    const renew = setInterval(() => {
      if (!repo.renewLease(row.id, deps.now() + LEASE_MS)) controller.abort(new Error('run ended elsewhere'));
    }, LEASE_MS / 3);
    renew.unref();
    const request = JSON.parse(row.request) as AgentRunRequest;
    const ctx: ServiceContext = {
      requestId: row.id,
      logger: (row.zero_retention ? withoutContent(deps.logger) : deps.logger).child({ agentRunId: row.id }),
      signal: controller.signal,
      caller: null,
      clock: { now: () => new Date(deps.now()) },
      betas: new Set(),
      notes: {},
      clientModel: clientModels.get(row.id),
    };
    let charge: ReturnType<Accounts['meter']['reserve']> | undefined;
    let cost = 0;
    try {
      const plan = EFFORTS[request.effort as Effort];
      const max = 'fixed' in plan.price ? deps.research.prices[plan.price.fixed] : Math.min(deps.research.prices[plan.price.cap], request.budget?.maxCostDollars ?? Infinity); // prettier-ignore
      charge = deps.accounts.meter.reserve(row.key_id || null, 'agent.run', max);
      const progress = begin(row);
      const result = await research(
        deps.research,
        {
          query: request.query,
          effort: request.effort as Effort,
          systemPrompt: request.systemPrompt,
          maxCostDollars: request.budget?.maxCostDollars,
          outputSchema: request.outputSchema,
          sources: sourcesOf(request),
          rows: request.input?.data,
          exclusion: request.input?.exclusion,
          prior: request.previousRunId ? priorOf(request.previousRunId) : undefined,
        },
        ctx,
        (e) => append(row.id, e.event, e.data),
        {
          state: progress.research,
          save: (state) => repo.saveProgress(row.id, owner, JSON.stringify({ ...progress, research: state })),
        },
      );
      cost = result.costDollars.total;
      finish(
        row.id,
        {
          status: 'completed',
          output: JSON.stringify({ text: result.text, structured: result.structured, grounding: result.grounding }),
          cost: JSON.stringify(result.costDollars),
          usage: JSON.stringify(result.usage),
          error: null,
          stop_reason: result.stopReason,
          completed_at: iso(deps.now()),
        },
        'agent_run.completed',
        (done) => toRun(done),
      );
    } catch (err) {
      if (controller.signal.aborted) return; // cancelled: the canceller wrote the end
      const known = err instanceof ServiceError;
      if (!known) ctx.logger.error({ err }, 'agent run failed unexpectedly');
      const code = !known
        ? 'internal_error'
        : isPaymentRefusal(err.tag)
          ? 'insufficient_credits'
          : err.tag.toLowerCase();
      fail(row.id, code, known ? err.message : 'Internal error; the server log has the details.');
    } finally {
      clearInterval(renew);
      charge?.settle(cost);
      active.delete(row.id);
      clientModels.delete(row.id);
      pump();
      if (active.size === 0) for (const w of idle.splice(0)) w();
    }
  };

  /**
   * The sources a run searches: the `dataSources` named, plus any source a property of `outputSchema`
   * names (`"x-source": "brave"`); all of them when neither names one. An unknown name is a 400.
   */
  const sourcesOf = (input: AgentRunRequest) => {
    const available = [INDEX_SOURCE, ...deps.providerNames];
    const named = (input.dataSources ?? []).map((d, i) => ({ name: d.provider, field: `dataSources[${i}].provider` }));
    for (const name of schemaSources(input.outputSchema)) named.push({ name, field: 'outputSchema' });
    for (const { name, field } of named) {
      if (!available.includes(name)) {
        throw new ServiceError('INVALID_REQUEST_BODY', `${field}: unknown data source "${name}"; this Trawl offers ${available.join(', ')}`, { field }); // prettier-ignore
      }
    }
    if (named.length === 0) return undefined;
    const names = new Set(named.map((n) => n.name));
    return { index: names.has(INDEX_SOURCE), providers: [...names].filter((n) => n !== INDEX_SOURCE) };
  };

  /** What a finished earlier run found, for `previousRunId`: its answer and the sources it cited. */
  const priorOf = (id: string) => {
    const previous = repo.get(id);
    const output = previous?.output ? (JSON.parse(previous.output) as { text?: string; grounding?: { citations: { url: string; title?: string }[] }[] }) : undefined; // prettier-ignore
    if (!output) return undefined;
    const sources = new Map<string, { url: string; title: string | null }>();
    for (const g of output.grounding ?? []) for (const c of g.citations) sources.set(c.url, { url: c.url, title: c.title ?? null }); // prettier-ignore
    return { text: output.text ?? '', sources: [...sources.values()] };
  };

  /** Starts queued runs while this process and each key have room; the start is claimed atomically. */
  const pump = () => {
    if (stopped) return;
    for (const row of repo.queued()) {
      if (active.size >= deps.processConcurrency) return;
      const limit = row.key_id ? perKey(deps.callerOf(row.key_id)) : Infinity;
      const now = deps.now();
      const started = repo.transaction(() => repo.runningOf(row.key_id) < limit && repo.start(row.id, iso(now), owner, now + LEASE_MS)); // prettier-ignore
      if (started) void execute(repo.get(row.id)!);
    }
  };

  /** Zero retention: a run's stored events are not replayable. */
  const notKept = (row: AgentRunRow) => {
    if (row.zero_retention) {
      throw new ServiceError('FEATURE_DISABLED', `events of agent run ${row.id} are not kept (zero data retention); stream them live when creating the run`); // prettier-ignore
    }
  };

  /** Runs of a key at once: a fifth of its request rate (two at the default 10/s); a revoked key none. */
  const perKey = (caller: Caller | null) => {
    if (!caller) return 0;
    if (caller.qps !== null && caller.qps > 0) return Math.max(1, Math.floor(caller.qps / 5));
    return deps.defaultRuns > 0 ? deps.defaultRuns : Infinity;
  };

  /** Runs whose process died (lease lapsed): queued again to resume, or failed `interrupted`. */
  const recover = () => {
    const now = deps.now();
    for (const row of repo.lapsed(now)) {
      if (active.has(row.id)) continue;
      const why = unresumable(parseProgress(row.progress));
      if (why) interrupted(row.id, why);
      else if (repo.requeue(row.id, null, now, iso(now))) deps.logger.warn({ agentRunId: row.id }, 'agent run of a stopped process queued to resume'); // prettier-ignore
    }
  };

  const erase = () => {
    const now = deps.now();
    repo.eraseRetained(iso(now - ZDR_OUTPUT_MS), iso(now - ZDR_EVENTS_MS));
  };

  const wakeup = createWakeup(
    async () => {
      recover();
      erase();
      pump();
    },
    { pollMs: 5000, name: 'agent runs', logger: deps.logger, now: deps.now },
  );

  const checkSupported = (input: AgentRunRequest, caller: Caller | null, hasModel: boolean) => {
    sourcesOf(input);
    const budget = input.budget?.maxCostDollars;
    if (budget !== undefined && budget > deps.maxBudgetDollars) {
      throw new ServiceError('INVALID_REQUEST_BODY', `budget.maxCostDollars: must be at most ${deps.maxBudgetDollars} on this server (got ${budget})`, { field: 'budget.maxCostDollars' }); // prettier-ignore
    }
    if (caller?.zeroRetention) {
      // the spec's zero-retention rules: no data partners, no continuing from a run that was not kept
      if (input.dataSources) throw new ServiceError('INVALID_REQUEST_BODY', 'dataSources: not available with zero data retention', { field: 'dataSources' }); // prettier-ignore
      if (input.previousRunId) throw new ServiceError('INVALID_REQUEST_BODY', 'previousRunId: unavailable with zero data retention', { field: 'previousRunId' }); // prettier-ignore
    }
    const schema = input.outputSchema;
    if (schema && (schema.type !== 'object' || typeof schema.properties !== 'object')) {
      throw new ServiceError('INVALID_REQUEST_BODY', 'outputSchema: must be an object schema with properties (put a list in a property)', { field: 'outputSchema' }); // prettier-ignore
    }
    if (schema && !hasModel) {
      throw new ServiceError('FEATURE_DISABLED', 'outputSchema: structured output needs a language model, and none is configured (TRAWL_MODEL_BASE_URL; docs/synthesis.md)', { field: 'outputSchema' }); // prettier-ignore
    }
    if (!hasModel && !MODEL_FREE_EFFORTS.includes(input.effort as Effort)) {
      throw new ServiceError(
        'FEATURE_DISABLED',
        `effort: "${input.effort}" needs a language model to plan and write, and none is configured (TRAWL_MODEL_BASE_URL; docs/synthesis.md); without one, use effort "minimal" or "low"`, // prettier-ignore
        { field: 'effort' },
      );
    }
  };

  /** Cancels an open run (its work stops; the run keeps what it had); a finished run is returned as is. */
  const cancel = (id: string, caller: Caller | null) => {
    const row = own(id, caller);
    if (row.status === 'queued' || row.status === 'running') {
      const at = iso(deps.now());
      finish(id, { status: 'cancelled', output: null, cost: null, usage: null, error: null, stop_reason: 'cancelled', completed_at: at }, 'agent_run.cancelled', () => ({ id, status: 'cancelled', cancelledAt: at })); // prettier-ignore
      active.get(id)?.abort(new Error('cancelled'));
    }
    return toRun(repo.get(id)!);
  };

  return {
    /** `clientModel`: the calling MCP client's model (sampling), used when the operator configured none. */
    create(input: AgentRunRequest, caller: Caller | null, clientModel?: ChatModel) {
      checkSupported(input, caller, deps.hasModel || clientModel !== undefined);
      if (input.previousRunId) {
        const previous = repo.get(input.previousRunId);
        if (!previous || previous.key_id !== (caller?.keyId ?? '')) {
          throw new ServiceError('NOT_FOUND', `previousRunId: agent run ${input.previousRunId} not found`, { field: 'previousRunId' }); // prettier-ignore
        }
        if (previous.status !== 'completed') {
          throw new ServiceError('INVALID_REQUEST_BODY', `previousRunId: run ${input.previousRunId} is ${previous.status}; only a completed run can be continued`, { field: 'previousRunId' }); // prettier-ignore
        }
      }
      const keyId = caller?.keyId ?? '';
      const id = `run_${randomBytes(12).toString('hex')}`;
      const now = deps.now();
      if (clientModel) clientModels.set(id, clientModel);
      const row = repo.transaction(() => {
        repo.insert({ id, key_id: keyId, zero_retention: caller?.zeroRetention ? 1 : 0, request: JSON.stringify(input), owner: null, lease_until_ms: null, created_at: iso(now) }); // prettier-ignore
        append(id, 'agent_run.created', { id, status: 'queued', createdAt: iso(now) });
        return repo.get(id)!;
      });
      pump();
      return toRun(repo.get(id) ?? row);
    },
    get: (id: string, caller: Caller | null) => toRun(own(id, caller)),
    list(caller: Caller | null, query: { cursor?: string; limit: number }): Page<ReturnType<typeof toRun>> {
      const rows = repo.page(caller?.keyId ?? '', decodeCursor('a', query.cursor), query.limit + 1);
      const kept = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      return { data: kept.map(toRun), hasMore, nextCursor: hasMore ? encodeCursor('a', kept.at(-1)!.seq) : null };
    },
    cancel: (id: string, caller: Caller | null) => cancel(id, caller),
    /** Deletes a run and its events (cancelling it first if it is still open). */
    remove(id: string, caller: Caller | null) {
      cancel(id, caller);
      repo.delete(id);
      return { id, object: 'agent_run' as const, deleted: true as const };
    },
    events(id: string, caller: Caller | null, query: { cursor?: string; limit: number }): Page<AgentEvent> {
      notKept(own(id, caller));
      const after = query.cursor === undefined ? 0 : decodeCursor('e', query.cursor);
      const rows = repo.events(id, after, query.limit + 1);
      const kept = rows.slice(0, query.limit).map(toEvent);
      const hasMore = rows.length > query.limit;
      return { data: kept, hasMore, nextCursor: hasMore ? encodeCursor('e', kept.at(-1)!.id) : null };
    },
    /**
     * The run's events after `afterId`: the stored ones, then (with `follow`) new ones as they are
     * stored, until the terminal event. A stream that ends does not cancel the run.
     */
    async *stream(
      id: string,
      caller: Caller | null,
      options: { afterId: number; follow: boolean; signal: AbortSignal },
    ): AsyncIterable<AgentEvent> {
      // prettier-ignore
      own(id, caller);
      let after = options.afterId;
      for (;;) {
        const rows = repo.events(id, after, 500);
        for (const row of rows) {
          const event = toEvent(row);
          after = event.id;
          yield event;
          if (TERMINAL.has(event.event)) return;
        }
        if (rows.length === 500) continue;
        if (!options.follow || options.signal.aborted) return;
        // wait for an event stored in this process, or poll for one stored by another
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            listeners.delete(done);
            options.signal.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, 250);
          listeners.add(done);
          options.signal.addEventListener('abort', done, { once: true });
        });
      }
    },
    engine: {
      start: () => wakeup.start(),
      async stop() {
        stopped = true;
        await wakeup.stop();
        for (const controller of active.values()) controller.abort(new Error('shutting down'));
        // this process's runs go back to the queue, to resume in the next process that claims them
        const now = deps.now();
        for (const id of active.keys()) {
          const why = clientModels.has(id) ? 'it used the MCP client’s model, which only this process could reach' : null; // prettier-ignore
          if (why) interrupted(id, why);
          else repo.requeue(id, owner, now, iso(now));
        }
      },
      /** Starts what can start, and queues again (or fails) runs abandoned by a stopped process. */
      tick() {
        recover();
        erase();
        pump();
      },
      /** Resolves when this process runs nothing. */
      drain: () => (active.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
    },
  };
}
export type AgentRunsService = ReturnType<typeof createAgentRunsService>;
