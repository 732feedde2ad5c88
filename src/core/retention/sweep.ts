/**
 * One retention sweep: for each kind with a retention, the line (now minus its days), then on
 * PostgreSQL the whole months past it dropped, then batches of at most BATCH_ROWS rows until none is
 * left, the event loop given back between two batches so a serving process keeps answering. A dry run
 * only counts. The lease around it is ./retention.service.ts's.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  lineOf,
  STORE_KINDS,
  type Pruner,
  type RetentionRepo,
  type StoreKind,
} from '../../store/contracts/retention.js';

/** Rows one statement deletes at most: a short transaction, whichever backend. */
export const BATCH_ROWS = 1000;
/** Months of partitions made ahead of the current one (PostgreSQL). */
export const MONTHS_AHEAD = 2;

/** The kinds a sweep prunes, in order: the store's, then the page cache (a store of its own on SQLite). */
export const RETENTION_KINDS = [...STORE_KINDS, 'pageCache'] as const;
export type RetentionKind = StoreKind | 'pageCache';

/** Days each kind is kept; null: for ever. */
export type RetentionPolicy = Readonly<Record<RetentionKind, number | null>>;

/** What a sweep did (or, dry, would do) to one kind. */
export interface KindReport {
  kind: RetentionKind;
  /** The retention in days; null: kept for ever (nothing done). */
  days: number | null;
  /** The line, ISO-8601: what ended or expired before it goes (usage: whole months before its month). */
  line: string | null;
  /** Rows deleted, or folded for usage (dry run: that would be). */
  rows: number;
  /** Monthly partitions dropped whole (PostgreSQL; none in a dry run). */
  partitions: string[];
}

export interface SweepReport {
  dryRun: boolean;
  at: string;
  kinds: KindReport[];
  /** Partitions made for the coming months (PostgreSQL). */
  created: string[];
}

export interface SweepDeps {
  repo: RetentionRepo;
  /** The page cache's entries by fetch time (store/contracts/cache.ts `fetchedBefore`). */
  cache: Pruner;
  policy: RetentionPolicy;
  now: () => number;
}

/** One sweep; `signal` stops it between two batches (the lease was lost, the process stops). */
export async function sweep(deps: SweepDeps, options: { dryRun: boolean; signal?: AbortSignal }): Promise<SweepReport> {
  const nowMs = deps.now();
  const created =
    !options.dryRun && deps.repo.preparePartitions ? await deps.repo.preparePartitions(nowMs, MONTHS_AHEAD) : [];
  const kinds: KindReport[] = [];
  for (const kind of RETENTION_KINDS) {
    const days = deps.policy[kind];
    if (days === null) {
      kinds.push({ kind, days, line: null, rows: 0, partitions: [] });
      continue;
    }
    const line = lineOf(nowMs, days);
    const report: KindReport = { kind, days, line: new Date(line).toISOString(), rows: 0, partitions: [] };
    kinds.push(report);
    await pruneKind(kind === 'pageCache' ? deps.cache : deps.repo.pruners[kind], line, report, options);
  }
  return { dryRun: options.dryRun, at: new Date(nowMs).toISOString(), kinds, created };
}

async function pruneKind(
  pruner: Pruner,
  line: number,
  report: KindReport,
  options: { dryRun: boolean; signal?: AbortSignal },
): Promise<void> {
  if (options.dryRun) {
    report.rows = await pruner.count(line);
    return;
  }
  if (pruner.dropPartitions) {
    const dropped = await pruner.dropPartitions(line);
    report.rows += dropped.rows;
    report.partitions.push(...dropped.partitions);
  }
  for (;;) {
    options.signal?.throwIfAborted();
    const batch = await pruner.prune(line, BATCH_ROWS);
    report.rows += batch.rows;
    if (batch.rows === 0) return;
    await nextTurn(); // the requests waiting on the event loop go first
  }
}
