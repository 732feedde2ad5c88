/**
 * The engine of agent runs: it claims queued runs while this process and each key have room (the claim
 * is one atomic repository call, so no run starts twice), holds a lease on each run it executes, saves
 * the research state at each step, and queues again (or fails `interrupted`) runs whose process died.
 * Agent runs are a kind of job (core/jobs/): the claiming loop and the leases are the jobs' own.
 */
import { isPaymentRefusal, ServiceError } from '../../errors.js';
import { withoutContent } from '../../lib/logger.js';
import type { AgentRunRow } from '../../store/contracts/agent-runs.js';
import type { ChatModel } from '../../providers/model/types.js';
import type { Accounts } from '../accounts/accounts.service.js';
import type { Caller, ServiceContext } from '../context.js';
import { createJobQueue } from '../jobs/job-queue.js';
import { createLeaseEngine } from '../jobs/lease-engine.js';
import { createWakeup } from '../monitors/wakeup.js';
import type { AgentRunRequest, AgentRunsDeps, AgentRunsEngine } from './agent-runs.types.js';
import { toRun } from './objects.js';
import { nextStart, parseProgress, unresumable, type Progress } from './progress.js';
import { priorOf, sourcesOf } from './run-checks.js';
import type { RunLog } from './run-log.js';
import { EFFORTS, research } from './research.js';

/** Zero retention: how long a finished run's output waits to be polled, and its events for a live stream. */
const ZDR_OUTPUT_MS = 10 * 60_000;
const ZDR_EVENTS_MS = 60_000;
/** How long stopping waits for aborted runs to write their last row before the store closes. */
const STOP_WAIT_MS = 5_000;

/** The engine as the service sees it: the public engine, plus starting runs now and stopping one here. */
export interface RunEngine {
  engine: AgentRunsEngine;
  /** Starts queued runs while there is room; resolves once those it could start are started. */
  pump(): Promise<void>;
  /** Stops run `id`'s work if this process executes it (the canceller wrote its end). */
  abort(id: string, reason: string): void;
}

/**
 * How often a running run's row is looked at between renewals: a cancel made through another replica
 * (the row ended there) aborts the work here within this time. In one process a cancel aborts at once.
 */
export const RUN_CHECK_MS = 1000;

/** The engine of one process; `clientModels` holds the MCP client's model of runs created here. */
export function createRunEngine(deps: AgentRunsDeps, log: RunLog, clientModels: Map<string, ChatModel>): RunEngine {
  const { repo } = deps;
  const { leaseMs } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();
  const leases = createLeaseEngine({
    store: {
      renew: (id, _owner, untilMs) => repo.renewLease(id, untilMs),
      // a cancel written by another replica stops the work within RUN_CHECK_MS, not at the next renewal
      isOpen: async (id) => (await repo.statusOf(id)) === 'running',
    },
    now: deps.now,
    leaseMs,
    checkMs: RUN_CHECK_MS,
    concurrency: deps.processConcurrency,
    lostReason: 'run ended elsewhere',
    busy: () => queue.pumping,
  });
  const { owner } = leases;

  /**
   * Records the run's start (the `agent_run.started` event the first time) and returns its saved
   * progress; throws the abort reason when the run ended meanwhile (a cancel between claim and start).
   */
  const begin = async (row: AgentRunRow, signal: AbortSignal): Promise<Progress> => {
    const saved = parseProgress(row.progress);
    const progress = nextStart(saved, clientModels.has(row.id));
    const started = {
      event: 'agent_run.started',
      data: JSON.stringify({ id: row.id, status: 'running' }),
      at: iso(deps.now()),
    };
    if (!(await repo.markStarted(row.id, owner, JSON.stringify(progress), saved ? null : started))) {
      leases.abort(row.id, 'run ended elsewhere');
    }
    if (signal.aborted) throw signal.reason;
    return progress;
  };

  const contextOf = (row: AgentRunRow, signal: AbortSignal): ServiceContext => ({
    requestId: row.id,
    logger: (row.zero_retention ? withoutContent(deps.logger) : deps.logger).child({ agentRunId: row.id }),
    signal,
    caller: null,
    clock: { now: () => new Date(deps.now()) },
    betas: new Set(),
    clientModel: clientModels.get(row.id),
  });

  /** Researches a claimed run to its end, saving its state at each step. */
  const work = async (row: AgentRunRow, ctx: ServiceContext, onCharge: (max: number) => Promise<void>) => {
    const request = JSON.parse(row.request) as AgentRunRequest;
    const plan = EFFORTS[request.effort];
    const max =
      'fixed' in plan.price
        ? deps.research.prices[plan.price.fixed]
        : Math.min(deps.research.prices[plan.price.cap], request.budget?.maxCostDollars ?? Infinity);
    await onCharge(max);
    const progress = await begin(row, ctx.signal);
    const input = {
      query: request.query,
      effort: request.effort,
      systemPrompt: request.systemPrompt,
      maxCostDollars: request.budget?.maxCostDollars,
      outputSchema: request.outputSchema,
      sources: sourcesOf(request, deps.providerNames),
      rows: request.input?.data,
      exclusion: request.input?.exclusion,
      prior: request.previousRunId ? await priorOf(repo, request.previousRunId) : undefined,
    };
    const save = async (state: Progress['research']) =>
      void (await repo.saveProgress(row.id, owner, JSON.stringify({ ...progress, research: state })));
    const result = await research(deps.research, input, ctx, (e) => log.append(row.id, e.event, e.data), {
      state: progress.research,
      save: (state) => save(state),
    });
    const end = {
      status: 'completed' as const,
      output: JSON.stringify({ text: result.text, structured: result.structured, grounding: result.grounding }),
      cost: JSON.stringify(result.costDollars),
      usage: JSON.stringify(result.usage),
      error: null,
      stop_reason: result.stopReason,
      completed_at: iso(deps.now()),
    };
    await log.finish(row.id, end, 'agent_run.completed', (done) => ({ ...toRun(done) }));
    return result.costDollars.total;
  };

  const execute = async (row: AgentRunRow): Promise<void> => {
    // a lease renewed while the run executes; a run ended elsewhere (a cancel) aborts the work
    const held = leases.hold(row.id);
    const ctx = contextOf(row, held.signal);
    let charge: Awaited<ReturnType<Accounts['meter']['reserve']>> | undefined;
    let cost = 0;
    try {
      cost = await work(row, ctx, async (max) => {
        charge = await deps.accounts.meter.reserve(row.key_id || null, 'agent.run', max);
      });
    } catch (err) {
      if (held.signal.aborted) return; // cancelled: the canceller wrote the end
      const known = err instanceof ServiceError;
      if (!known) ctx.logger.error({ err }, 'agent run failed unexpectedly');
      const code = !known
        ? 'internal_error'
        : isPaymentRefusal(err.tag)
          ? 'insufficient_credits'
          : err.tag.toLowerCase();
      await log.fail(row.id, code, known ? err.message : 'Internal error; the server log has the details.');
    } finally {
      held.stopRenewing();
      await charge?.settle(cost).catch((err: unknown) => ctx.logger.error({ err }, 'agent run charge not settled'));
      held.release();
      clientModels.delete(row.id);
      await pump().catch((err: unknown) => deps.logger.error({ err }, 'agent runs: starting queued runs failed'));
      leases.settle();
    }
  };

  /** Runs of a key at once: a fifth of its request rate (two at the default 10/s); a revoked key none. */
  const perKey = (caller: Caller | null) => {
    if (!caller) return 0;
    if (caller.qps !== null && caller.qps > 0) return Math.max(1, Math.floor(caller.qps / 5));
    return deps.defaultRuns > 0 ? deps.defaultRuns : Infinity;
  };

  /** Agent runs as a kind of job: queued runs, claimed within their key's share, researched here. */
  const queue = createJobQueue<AgentRunRow>(
    {
      ready: () => repo.queued(),
      limitOf: async (row) => (row.key_id ? perKey(await deps.callerOf(row.key_id)) : Infinity),
      claim: async (row, limit, by, leaseUntilMs) =>
        (await repo.claim(row.id, limit, iso(deps.now()), by, leaseUntilMs)) ? repo.get(row.id) : undefined,
      run: (row) => void execute(row),
    },
    leases,
  );
  const pump = () => queue.pump();

  /** Runs whose process died (lease lapsed): queued again to resume, or failed `interrupted`. */
  const recover = () =>
    leases.recover(
      (now) => repo.lapsed(now),
      async (row, now) => {
        const why = unresumable(parseProgress(row.progress));
        if (why) await log.interrupted(row.id, why);
        else if (await repo.requeue(row.id, null, now, iso(now)))
          deps.logger.warn({ agentRunId: row.id }, 'agent run of a stopped process queued to resume');
        return true;
      },
    );

  const tick = async () => {
    await recover();
    const now = deps.now();
    await repo.eraseRetained(iso(now - ZDR_OUTPUT_MS), iso(now - ZDR_EVENTS_MS));
    await pump();
  };
  const wakeup = createWakeup(tick, {
    pollMs: deps.pollMs,
    name: 'agent runs',
    logger: deps.logger,
    now: deps.now,
  });

  const stop = async () => {
    // it starts no more runs (those it gives back are for the next process); a run claimed by the pass
    // under way is held by the time this resolves, so it is given back below rather than left running
    // under a lease nobody renews once the store closes (it would wait out TRAWL_LEASE_MS elsewhere)
    await queue.stop();
    await wakeup.stop();
    leases.abortAll('shutting down');
    // this process's runs go back to the queue, to resume in the next process that claims them
    const now = deps.now();
    let handedBack = 0;
    for (const id of leases.ids()) {
      if (clientModels.has(id))
        await log.interrupted(id, 'it used the MCP client’s model, which only this process could reach');
      else if (await repo.requeue(id, owner, now, iso(now))) handedBack += 1;
    }
    if (handedBack > 0) deps.logger.info({ handedBack }, 'agent runs handed back to the queue for another process');
    // every run has written its last row (or the wait ran out) before the store closes
    await leases.idle(STOP_WAIT_MS);
  };

  return {
    engine: {
      start: () => wakeup.start(),
      stop,
      tick,
      drain: () => leases.idle(),
    },
    pump,
    abort: (id, reason) => void leases.abort(id, reason),
  };
}
