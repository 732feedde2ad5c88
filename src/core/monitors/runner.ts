/**
 * The life of a run: created `pending` (with the `monitor.run.created` event), `running` once one of
 * this process's run slots is free, then `completed` or `failed` (with `monitor.run.completed`), or
 * `cancelled` when the next scheduled slot comes first. The process that creates a run executes it and
 * holds a lease on it, renewed while it works; a process that stops hands its runs back (pending, no
 * owner) and the next process that recovers takes them over and runs them from the start; a run whose
 * lease lapses belonged to a process that died, and is finished as `failed` with `internal_error` (the
 * next slot searches the same window again). The leases are held through the one
 * lease engine (core/jobs/lease-engine.ts).
 */
import type { Logger } from '../../lib/logger.js';
import type { MonitorRow, MonitorsRepo, NewDelivery, RunEnd, RunPlan, RunRow } from '../../store/contracts/monitors.js';
import { createLeaseEngine } from '../jobs/lease-engine.js';
import type { MonitorEvents } from './events.js';
import { newId, toRun } from './objects.js';

/** What executing a run produced: the output, or why there is none. */
export type RunResult =
  { ok: true; output: Record<string, unknown> } | { ok: false; failReason: string; detail: string };

/** Does the work of one run (search, dedup, synthesis); must honour `signal`. */
export type ExecuteRun = (monitor: MonitorRow, run: RunRow, signal: AbortSignal) => Promise<RunResult>;

/** Failed runs with this reason in a row disable a monitor (the spec's 10). */
export const KEY_FAILURES_TO_DISABLE = 10;
/** Runs kept per monitor; older ended runs are forgotten when a run ends. */
export const RUNS_KEPT = 1000;

/** Executes this process's runs, each under a lease, and ends them with their events. */
export interface Runner {
  /** A pending run of `monitor` owned by this process, for the repository to create; `enqueue` it after. */
  planRun(monitor: MonitorRow, origin: 'schedule' | 'trigger', nowMs: number): RunPlan;
  /** How a run superseded by the next slot ends (the repository cancels it in the claiming transaction). */
  cancelEnd(nowMs: number): RunEnd;
  /** Starts the run when a slot is free. */
  enqueue(runId: string): void;
  /** Runs cancelled (or deleted) in the store: aborts their work if this process runs or queues them. */
  cancelled(runIds: readonly string[]): void;
  /** Fails runs whose process died, and stops local runs cancelled by another process. */
  recover(): Promise<void>;
  /** Resolves when every queued and running run of this process has ended. */
  drain(): Promise<void>;
  /** Runs in this process: queued and executing. */
  readonly load: { queued: number; running: number };
  stop(): Promise<void>;
}

/** What the runner needs: the store, the event maker, the work of a run, and its limits. */
export interface RunnerDeps {
  repo: MonitorsRepo;
  events: MonitorEvents;
  execute: ExecuteRun;
  now: () => number;
  logger: Logger;
  /** Runs executing at once in this process. */
  concurrency: number;
  /** This process, as the owner of its runs' leases. */
  owner: string;
  /** How long a lease lasts without renewal; renewed every third of it. */
  leaseMs: number;
  /** Called after a transaction wrote events, so the outbox sends them. */
  onEvents: () => void;
}

export function createRunner(deps: RunnerDeps): Runner {
  const { repo } = deps;
  const queue: string[] = [];
  let stopped = false;
  // each run executing here holds a lease, renewed while it works; a run ended meanwhile (cancelled by
  // another process) is aborted
  const leases = createLeaseEngine(
    {
      store: { renew: (id, _owner, untilMs) => repo.renewLease(id, untilMs) },
      now: deps.now,
      leaseMs: deps.leaseMs,
      concurrency: deps.concurrency,
      lostReason: 'run cancelled',
      onCheckError: (err, runId) => deps.logger.error({ err, runId }, 'monitor run lease not renewed'),
      busy: () => queue.length > 0,
    },
    deps.owner,
  );

  const iso = (ms: number) => new Date(ms).toISOString();

  /** What ending a run changes in its monitor: the key-failure count (disabling at 10) and the events. */
  const settlement = (end: RunEnd, atMs: number) => (monitor: MonitorRow, run: RunRow) => {
    if (end.status !== 'completed' && end.status !== 'failed') return { events: [] };
    const events: NewDelivery[] = [];
    const failures = end.fail_reason === 'api_key_invalid' ? monitor.key_failures + 1 : 0;
    const disable = failures >= KEY_FAILURES_TO_DISABLE && monitor.status === 'active';
    let changed: MonitorRow | undefined;
    if (failures !== monitor.key_failures || disable) {
      changed = {
        ...monitor,
        key_failures: failures,
        ...(disable ? { status: 'disabled', next_run_ms: null, updated_at: iso(atMs) } : {}),
      };
      if (disable) events.push(...deps.events.monitorEvent('monitor.updated', changed, atMs));
    }
    events.push(...deps.events.runEvent('monitor.run.completed', monitor, toRun(run), atMs));
    return { monitor: changed, events };
  };

  /** Ends an open run with its events and the monitor's key-failure count; false if it had ended already. */
  const finish = (runId: string, end: RunEnd, atMs: number): Promise<boolean> =>
    repo.finishRun(runId, end, iso(atMs), settlement(end, atMs), RUNS_KEPT);

  const execute = async (runId: string): Promise<void> => {
    const held = leases.hold(runId);
    try {
      const run = await repo.runById(runId);
      const monitor = run && (await repo.monitor(run.monitor_id));
      if (!run || !monitor) return;
      const started = deps.now();
      if (!(await repo.startRun(runId, iso(started), started + deps.leaseMs))) return; // cancelled meanwhile
      deps.logger.debug({ runId, monitorId: monitor.id, origin: run.origin }, 'monitor run started');
      let result: RunResult;
      try {
        result = await deps.execute(monitor, (await repo.runById(runId))!, held.signal);
      } catch (err) {
        deps.logger.error({ err, runId, monitorId: monitor.id }, 'monitor run failed unexpectedly');
        result = { ok: false, failReason: 'internal_error', detail: 'unexpected error; see the server log' };
      } finally {
        held.stopRenewing();
      }
      if (held.signal.aborted) {
        // cancelled: the canceller wrote its end; shutting down: handed back for another process
        if (stopped) await handBack(runId);
        return;
      }
      const at = deps.now();
      const duration = Math.max(0, Math.round(at - started));
      const end: RunEnd = result.ok
        ? {
            ...NO_END,
            status: 'completed',
            output: JSON.stringify(result.output),
            completed_at: iso(at),
            duration_ms: duration,
          }
        : {
            ...NO_END,
            status: 'failed',
            fail_reason: result.failReason,
            fail_detail: result.detail,
            failed_at: iso(at),
            duration_ms: duration,
          };
      if (await finish(runId, end, at)) deps.onEvents();
      if (!result.ok)
        deps.logger.info(
          { runId, monitorId: monitor.id, failReason: result.failReason, detail: result.detail },
          'monitor run failed',
        );
    } finally {
      held.release();
      pump();
      leases.settle();
    }
  };

  /** A run this process stops before it ended: pending again, without owner or lease, for another process. */
  const handBack = async (runId: string) => {
    const at = deps.now();
    if (await repo.handBackRun(runId, deps.owner, at, iso(at)))
      deps.logger.info({ runId }, 'monitor run handed back for another process');
  };

  /** Takes over the runs other processes handed back as they stopped, and queues them here. */
  const takeOver = async () => {
    for (const run of await repo.handedBackRuns()) {
      if (stopped) return;
      const now = deps.now();
      if (await repo.takeOverRun(run.id, deps.owner, now, now + deps.leaseMs)) {
        queue.push(run.id);
        pump();
      }
    }
  };

  const pump = () => {
    while (!stopped && leases.room() && queue.length > 0) {
      const runId = queue.shift()!;
      // the store failing (a PostgreSQL restart) rejects a run's reads and writes: heard here, not as an
      // unhandled rejection that ends the process; the run keeps its lease, which lapses, and recovery
      // (this process's or another's) ends it failed with its events
      void execute(runId).catch((err: unknown) =>
        deps.logger.error({ err, runId }, 'monitor run not recorded; it ends failed once its lease lapses'),
      );
    }
  };

  return {
    planRun(monitor, origin, nowMs) {
      const run = {
        id: newId('run'),
        monitor_id: monitor.id,
        status: 'pending' as const,
        origin,
        owner: deps.owner,
        lease_until_ms: nowMs + deps.leaseMs,
        created_at: iso(nowMs),
      };
      return {
        run,
        events: (stored) => deps.events.runEvent('monitor.run.created', monitor, toRun(stored), nowMs),
      };
    },
    cancelEnd(nowMs) {
      return { ...NO_END, status: 'cancelled', cancelled_at: iso(nowMs) };
    },
    enqueue(runId) {
      if (stopped) return;
      queue.push(runId);
      pump();
    },
    cancelled(runIds) {
      for (const runId of runIds) {
        leases.abort(runId, 'run cancelled');
        const queued = queue.indexOf(runId);
        if (queued >= 0) queue.splice(queued, 1);
      }
    },
    async recover() {
      // a run this process holds is alive: its renewal is just late
      const wrote = await leases.recover(
        (now) => repo.lapsedRuns(now),
        async (run, now) => {
          const end: RunEnd = {
            ...NO_END,
            status: 'failed',
            fail_reason: 'internal_error',
            // the spec's reasons have none for this; the next scheduled run searches the same window again
            fail_detail: 'interrupted: the process running it stopped before it finished',
            failed_at: iso(now),
          };
          const ended = await finish(run.id, end, now);
          deps.logger.warn(
            { runId: run.id, monitorId: run.monitor_id },
            'monitor run abandoned by a stopped process; failed',
          );
          return ended;
        },
      );
      if (wrote) deps.onEvents();
      await takeOver();
    },
    drain: () => leases.idle(),
    get load() {
      return { queued: queue.length, running: leases.size };
    },
    async stop() {
      stopped = true;
      leases.abortAll('shutting down');
      // queued here and not started, or aborted above: handed back (those running, once their work returns)
      for (const runId of queue.splice(0)) await handBack(runId);
      await leases.idle();
    },
  };
}

const NO_END: RunEnd = {
  status: 'failed',
  output: null,
  fail_reason: null,
  fail_detail: null,
  completed_at: null,
  failed_at: null,
  cancelled_at: null,
  duration_ms: null,
};
