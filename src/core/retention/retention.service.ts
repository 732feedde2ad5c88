/**
 * Retention as a job: the sweep (./sweep.ts) held by one process of all those sharing the store, under
 * the lease engine (core/jobs) on the `maintenance` row `retention`. A serving process looks every
 * minute and sweeps when the row is due (`TRAWL_PRUNE_INTERVAL_MINUTES` after the last sweep's end,
 * whichever process ran it); `trawl prune` sweeps at once unless another process holds the sweep.
 */
import { ServiceError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import type { Pruner, RetentionRepo } from '../../store/contracts/retention.js';
import { RETENTION_ROW } from '../../store/contracts/retention.js';
import { createLeaseEngine, newOwner } from '../jobs/lease-engine.js';
import { createWakeup } from '../monitors/wakeup.js';
import { sweep, type RetentionPolicy, type SweepReport } from './sweep.js';

export type { KindReport, RetentionKind, RetentionPolicy, SweepReport } from './sweep.js';

/** How often a serving process looks whether the sweep is due (at most: sooner when it is due sooner). */
const LOOK_MS = 60_000;

export interface RetentionDeps {
  repo: RetentionRepo;
  /** The page cache's entries by fetch time (the app's cache store, `fetchedBefore`). */
  cache: Pruner;
  policy: RetentionPolicy;
  now: () => number;
  logger: Logger;
  /** The sweep's lease, renewed every third of it. */
  leaseMs: number;
  /** Between the end of a sweep and the next periodic one; 0: no periodic sweep (only `trawl prune`). */
  intervalMs: number;
}

export interface Retention {
  /**
   * One sweep now (`trawl prune`): the report of what was deleted per kind, or with `dryRun` what would
   * be (nothing is changed, not even the lease). SERVICE_UNAVAILABLE when another process holds the sweep.
   */
  sweep(options?: { dryRun?: boolean }): Promise<SweepReport>;
  /** The periodic sweep, when it is due and no one holds it: its report; undefined when it did not run. */
  tick(): Promise<SweepReport | undefined>;
  /** Starts the periodic sweep (nothing when the interval is 0). */
  start(): void;
  /** Stops it, and a sweep under way between two batches (the lease is handed back). */
  stop(): Promise<void>;
}

export function createRetention(deps: RetentionDeps, owner: string = newOwner()): Retention {
  const { repo, now, logger } = deps;
  const leases = createLeaseEngine(
    {
      store: { renew: (_id, holder, untilMs) => repo.lease.renew(holder, untilMs) },
      now,
      leaseMs: deps.leaseMs,
      concurrency: 1,
      lostReason: 'the retention sweep was taken over by another process',
    },
    owner,
  );

  /** Claims the sweep, runs it, and hands the lease back with the next due time and the report. */
  async function leased(anyTime: boolean): Promise<SweepReport | undefined> {
    if (!(await repo.lease.claim(leases.owner, now(), leases.leaseUntil(), anyTime))) return undefined;
    const held = leases.hold(RETENTION_ROW);
    let report: SweepReport | undefined;
    try {
      report = await sweep(deps, { dryRun: false, signal: held.signal });
      logger.info({ retention: summary(report) }, 'retention sweep done');
      return report;
    } finally {
      held.stopRenewing();
      const end = now();
      const written = JSON.stringify(report ?? { failed: true, at: new Date(end).toISOString() });
      await repo.lease.release(leases.owner, end, end + deps.intervalMs, written);
      held.release();
      leases.settle();
    }
  }

  const wakeup = createWakeup(
    async () => {
      await leased(false);
      const next = (await repo.lease.row()).next_run_ms;
      wakeup.at(Math.max(next, now() + 1000));
    },
    { pollMs: Math.min(LOOK_MS, Math.max(deps.intervalMs, 1000)), name: 'retention', logger, now },
  );

  return {
    async sweep(options = {}) {
      if (options.dryRun) return sweep(deps, { dryRun: true });
      const report = await leased(true);
      if (report) return report;
      const row = await repo.lease.row();
      throw new ServiceError(
        'SERVICE_UNAVAILABLE',
        `another process is pruning (${row.owner ?? 'unknown'}, its lease until ${new Date(row.lease_until_ms ?? 0).toISOString()}); try again when it is done`,
      );
    },
    tick: () => leased(false),
    start() {
      if (deps.intervalMs > 0) wakeup.start();
    },
    async stop() {
      leases.abortAll('the process is stopping');
      await wakeup.stop();
      await leases.idle(deps.leaseMs);
    },
  };
}

/** The log line's summary: rows per kind that changed anything. */
function summary(report: SweepReport): Record<string, number> {
  return Object.fromEntries(report.kinds.filter((k) => k.rows > 0).map((k) => [k.kind, k.rows]));
}
