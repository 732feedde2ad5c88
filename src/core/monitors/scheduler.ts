/**
 * Starts scheduled runs. A tick takes the active monitors whose `next_run_ms` has come, moves each to
 * its next slot after now with a conditional UPDATE (the process that wins it runs it; a slot missed
 * while no process ran is run once, not once per missed slot), cancels a run of the monitor still in
 * progress, and creates the new run. Between ticks a wake-up is set for the earliest next run, and a
 * poll notices monitors that another process created or changed.
 */
import type { Logger } from '../../lib/logger.js';
import type { MonitorsRepo, RunRow } from '../../store/monitors.repo.js';
import type { Runner } from './runner.js';
import { nextSlot, periodMs } from './schedule.js';
import { createWakeup } from './wakeup.js';

/** Monitors claimed per transaction. */
const BATCH = 200;

export interface Scheduler {
  /** Starts the runs that are due now; resolves with how many it started. */
  tick(): Promise<number>;
  /** A monitor's next run changed to `ms` (created, resumed, rescheduled). */
  wake(ms: number): void;
  start(): void;
  stop(): Promise<void>;
}

export interface SchedulerDeps {
  repo: MonitorsRepo;
  runner: Runner;
  now: () => number;
  logger: Logger;
  pollMs: number;
  onEvents: () => void;
}

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { repo, runner } = deps;

  const claimBatch = (now: number): { runs: RunRow[]; full: boolean } =>
    repo.transaction(() => {
      const due = repo.dueMonitors(now, BATCH);
      const runs: RunRow[] = [];
      for (const monitor of due) {
        if (!monitor.period || monitor.next_run_ms === null) continue;
        const next = nextSlot(monitor.anchor_ms, periodMs(monitor.period), now);
        if (!repo.claimSlot(monitor.id, monitor.next_run_ms, next)) continue;
        const claimed = { ...monitor, next_run_ms: next };
        for (const open of repo.openRuns(monitor.id)) runner.cancelRun(claimed, open, now);
        runs.push(runner.createRun(claimed, 'schedule', now));
      }
      return { runs, full: due.length === BATCH };
    });

  const tick = async (): Promise<number> => {
    runner.recover();
    let started = 0;
    for (;;) {
      const { runs, full } = claimBatch(deps.now());
      if (runs.length > 0) deps.onEvents();
      for (const run of runs) runner.enqueue(run.id);
      started += runs.length;
      if (!full) break;
      await new Promise((resolve) => setImmediate(resolve)); // let the runs and requests in between batches
    }
    const earliest = repo.earliestRun();
    if (earliest !== undefined) wakeup.at(earliest);
    return started;
  };

  const wakeup = createWakeup(
    async () => {
      await tick();
    },
    { pollMs: deps.pollMs, name: 'monitor scheduler', logger: deps.logger, now: deps.now },
  );

  return {
    tick,
    wake: (ms) => wakeup.at(ms),
    start: () => wakeup.start(),
    stop: () => wakeup.stop(),
  };
}
