/**
 * The life of a run: created `pending` (with the `monitor.run.created` event), `running` once one of
 * this process's run slots is free, then `completed` or `failed` (with `monitor.run.completed`), or
 * `cancelled` when the next scheduled slot comes first. The process that creates a run executes it and
 * holds a lease on it, renewed while it works; a run whose lease lapses belonged to a process that
 * died, and is finished as `failed` with `internal_error` (runs are not resumed: a run is a search of
 * seconds, and the next slot searches the same window again).
 */
import type { Logger } from '../../lib/logger.js';
import type { MonitorRow, MonitorsRepo, RunEnd, RunRow } from '../../store/monitors.repo.js';
import type { EventWriter } from './events.js';
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

export interface Runner {
  /** Creates a pending run of `monitor` (inside the caller's transaction) and returns its id; call `enqueue` after commit. */
  createRun(monitor: MonitorRow, origin: 'schedule' | 'trigger', nowMs: number): RunRow;
  /** Starts the run when a slot is free. */
  enqueue(runId: string): void;
  /** Cancels an open run (inside the caller's transaction); aborts its work if this process runs it. */
  cancelRun(monitor: MonitorRow, run: RunRow, nowMs: number): void;
  /** Fails runs whose process died, and stops local runs cancelled by another process. */
  recover(): void;
  /** Resolves when every queued and running run of this process has ended. */
  drain(): Promise<void>;
  /** Runs in this process: queued and executing. */
  readonly load: { queued: number; running: number };
  stop(): Promise<void>;
}

export interface RunnerDeps {
  repo: MonitorsRepo;
  events: EventWriter;
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
  const active = new Map<string, AbortController>();
  const waiters: (() => void)[] = [];
  let stopped = false;

  const iso = (ms: number) => new Date(ms).toISOString();

  /** Ends an open run with its events and the monitor's key-failure count; false if it had ended already. */
  const finish = (runId: string, end: RunEnd, atMs: number): boolean =>
    repo.transaction(() => {
      if (!repo.endRun(runId, end, iso(atMs))) return false;
      const run = repo.runById(runId)!;
      const monitor = repo.monitor(run.monitor_id);
      if (!monitor) return true;
      if (end.status === 'completed' || end.status === 'failed') {
        const failures = end.fail_reason === 'api_key_invalid' ? monitor.key_failures + 1 : 0;
        const disable = failures >= KEY_FAILURES_TO_DISABLE && monitor.status === 'active';
        if (failures !== monitor.key_failures || disable) {
          const changed: MonitorRow = {
            ...monitor,
            key_failures: failures,
            ...(disable ? { status: 'disabled', next_run_ms: null, updated_at: iso(atMs) } : {}),
          };
          repo.saveMonitor(changed);
          if (disable) deps.events.monitorEvent('monitor.updated', changed, atMs);
        }
        deps.events.runEvent('monitor.run.completed', monitor, toRun(run), atMs);
      }
      repo.pruneRuns(monitor.id, RUNS_KEPT);
      return true;
    });

  const settle = () => {
    if (queue.length === 0 && active.size === 0) for (const w of waiters.splice(0)) w();
  };

  const execute = async (runId: string): Promise<void> => {
    const controller = new AbortController();
    active.set(runId, controller);
    try {
      const run = repo.runById(runId);
      const monitor = run && repo.monitor(run.monitor_id);
      if (!run || !monitor) return;
      const started = deps.now();
      if (!repo.startRun(runId, iso(started), started + deps.leaseMs)) return; // cancelled meanwhile
      deps.logger.debug({ runId, monitorId: monitor.id, origin: run.origin }, 'monitor run started');
      const renew = setInterval(() => {
        if (!repo.renewLease(runId, deps.now() + deps.leaseMs)) controller.abort(new Error('run cancelled'));
      }, deps.leaseMs / 3);
      renew.unref();
      let result: RunResult;
      try {
        result = await deps.execute(monitor, repo.runById(runId)!, controller.signal);
      } catch (err) {
        deps.logger.error({ err, runId, monitorId: monitor.id }, 'monitor run failed unexpectedly');
        result = { ok: false, failReason: 'internal_error', detail: 'unexpected error; see the server log' };
      } finally {
        clearInterval(renew);
      }
      if (controller.signal.aborted) {
        // cancelled: the canceller wrote its end; shutting down: say so now rather than at the next start
        if (stopped) failStopped(runId);
        return;
      }
      const at = deps.now();
      const duration = Math.max(0, Math.round(at - started));
      const end: RunEnd = result.ok
        ? { ...NO_END, status: 'completed', output: JSON.stringify(result.output), completed_at: iso(at), duration_ms: duration } // prettier-ignore
        : { ...NO_END, status: 'failed', fail_reason: result.failReason, fail_detail: result.detail, failed_at: iso(at), duration_ms: duration }; // prettier-ignore
      if (finish(runId, end, at)) deps.onEvents();
      if (!result.ok) deps.logger.info({ runId, monitorId: monitor.id, failReason: result.failReason, detail: result.detail }, 'monitor run failed'); // prettier-ignore
    } finally {
      active.delete(runId);
      pump();
      settle();
    }
  };

  const failStopped = (runId: string) => {
    const at = deps.now();
    const end: RunEnd = { ...NO_END, status: 'failed', fail_reason: 'internal_error', fail_detail: 'interrupted: the server stopped before the run finished', failed_at: iso(at) }; // prettier-ignore
    if (finish(runId, end, at)) deps.onEvents();
  };

  const pump = () => {
    while (!stopped && active.size < deps.concurrency && queue.length > 0) void execute(queue.shift()!);
  };

  return {
    createRun(monitor, origin, nowMs) {
      const id = newId('run');
      repo.insertRun({
        id,
        monitor_id: monitor.id,
        status: 'pending',
        origin,
        owner: deps.owner,
        lease_until_ms: nowMs + deps.leaseMs,
        created_at: iso(nowMs),
      });
      const run = repo.runById(id)!;
      deps.events.runEvent('monitor.run.created', monitor, toRun(run), nowMs);
      return run;
    },
    enqueue(runId) {
      if (stopped) return;
      queue.push(runId);
      pump();
    },
    cancelRun(monitor, run, nowMs) {
      const end: RunEnd = { ...NO_END, status: 'cancelled', cancelled_at: iso(nowMs) };
      if (!repo.endRun(run.id, end, iso(nowMs))) return;
      active.get(run.id)?.abort(new Error('run cancelled'));
      const queued = queue.indexOf(run.id);
      if (queued >= 0) queue.splice(queued, 1);
    },
    recover() {
      const now = deps.now();
      let wrote = false;
      for (const run of repo.lapsedRuns(now)) {
        if (active.has(run.id)) continue; // ours, and alive: the renewal timer is just late
        const end: RunEnd = {
          ...NO_END,
          status: 'failed',
          fail_reason: 'internal_error',
          // the spec's reasons have none for this; the next scheduled run searches the same window again
          fail_detail: 'interrupted: the process running it stopped before it finished',
          failed_at: iso(now),
        };
        if (finish(run.id, end, now)) wrote = true;
        deps.logger.warn({ runId: run.id, monitorId: run.monitor_id }, 'monitor run abandoned by a stopped process; failed'); // prettier-ignore
      }
      if (wrote) deps.onEvents();
    },
    drain() {
      if (queue.length === 0 && active.size === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    get load() {
      return { queued: queue.length, running: active.size };
    },
    async stop() {
      stopped = true;
      for (const runId of queue.splice(0)) failStopped(runId);
      for (const controller of active.values()) controller.abort(new Error('shutting down'));
      if (active.size > 0) await new Promise<void>((resolve) => waiters.push(resolve));
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
