/**
 * Starts scheduled runs. A tick takes the active monitors whose `next_run_ms` has come, moves each to
 * its next slot after now with a conditional UPDATE (the process that wins it runs it; a slot missed
 * while no process ran is run once, not once per missed slot), cancels a run of the monitor still in
 * progress, and creates the new run. Between ticks a wake-up is set for the earliest next run, and a
 * poll notices monitors that another process created or changed.
 */
import type { Logger } from '../../lib/logger.js';
import type { DueClaim, DuePlan, MonitorsRepo } from '../../store/contracts/monitors.js';
import type { Runner } from './runner.js';
import { nextSlot, periodMs } from './schedule.js';
import { createWakeup } from './wakeup.js';

/** Monitors claimed per transaction. */
const BATCH = 200;

/** Starts the scheduled runs of due monitors, once per slot across processes. */
export interface Scheduler {
  /** Starts the runs that are due now; resolves with how many it started. */
  tick(): Promise<number>;
  /** A monitor's next run changed to `ms` (created, resumed, rescheduled). */
  wake(ms: number): void;
  start(): void;
  stop(): Promise<void>;
}

/** What the scheduler needs: the store, the runner, the clock and the poll interval. */
export interface SchedulerDeps {
  repo: MonitorsRepo;
  runner: Runner;
  now: () => number;
  logger: Logger;
  pollMs: number;
  onEvents: () => void;
}

/** The scheduler over `deps`; `start` sets its timers. */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { repo, runner } = deps;

  /** What claiming does to each due monitor at `now`: its next slot, its run, how its open runs end. */
  const duePlan = (now: number): DuePlan => ({
    nextRunMs: (m) => (m.period && m.next_run_ms !== null ? nextSlot(m.anchor_ms, periodMs(m.period), now) : null),
    run: (claimed) => runner.planRun(claimed, 'schedule', now),
    cancel: { end: runner.cancelEnd(now), at: new Date(now).toISOString() },
  });

  const claimBatch = (now: number): Promise<DueClaim> => repo.claimDue(now, BATCH, duePlan(now));

  const tick = async (): Promise<number> => {
    await runner.recover();
    let started = 0;
    for (;;) {
      const { runs, cancelled, full } = await claimBatch(deps.now());
      runner.cancelled(cancelled);
      if (runs.length > 0) deps.onEvents();
      for (const run of runs) runner.enqueue(run.id);
      started += runs.length;
      if (!full) break;
      await new Promise((resolve) => setImmediate(resolve)); // let the runs and requests in between batches
    }
    const earliest = await repo.earliestRun();
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
