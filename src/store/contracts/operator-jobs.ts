/**
 * The contract of the operator jobs store (sqlite/operator-jobs.ts, pg/operator-jobs.ts): one row per
 * job an operator started from the console (a crawl, an import, a code index), run in the background by
 * the process that took the request, under its lease (LEASED.operatorJobs, src/core/jobs/README.md).
 * Progress is written by the holder only; the first end wins.
 */
import type { TableLeases } from './leases.js';

/** A job's kind. */
export type OperatorJobKind = 'crawl' | 'import' | 'code';
/** A job's state: running until it ends, once. */
export type OperatorJobState = 'running' | 'completed' | 'failed' | 'interrupted';

/** A row of `operator_jobs` (both backends store the same columns). */
export interface OperatorJobRow {
  seq: number;
  id: string;
  kind: OperatorJobKind;
  /** The key that started it and its team. */
  key_id: string;
  team_id: string;
  /** What was asked (JSON). */
  input: string;
  state: OperatorJobState;
  /** The latest progress (JSON), written at most about once a second. */
  progress: string | null;
  /** What it did (JSON), once completed. */
  result: string | null;
  error: string | null;
  /** The process running it (lease engine owner) and its lease; cleared at the end. */
  owner: string | null;
  lease_until_ms: number | null;
  created_at: string;
  updated_at: string;
}

/** A new job: running from its creation, under `owner`'s lease. */
export type NewOperatorJob = Omit<OperatorJobRow, 'seq' | 'state' | 'result' | 'error'> & {
  owner: string;
  lease_until_ms: number;
};

/** How a job ends: its state, result or error; `lapsedBefore`: only if its lease lapsed before then. */
export interface OperatorJobEnd {
  state: Exclude<OperatorJobState, 'running'>;
  result: string | null;
  error: string | null;
  updatedAt: string;
  /** The last progress (JSON), when there is a newer one than the row's. */
  progress?: string;
  lapsedBefore?: number;
}

/** The jobs; every method is one atomic statement. */
export interface OperatorJobsRepo {
  insert(job: NewOperatorJob): Promise<OperatorJobRow>;
  get(id: string): Promise<OperatorJobRow | undefined>;
  /** The jobs with `seq < before`, newest first; of one team when `teamId` is given. */
  page(before: number, limit: number, teamId?: string): Promise<OperatorJobRow[]>;
  /** Writes a running job's progress, by its holder only; false once it ended or another process holds it. */
  progress(id: string, owner: string, progress: string, updatedAt: string): Promise<boolean>;
  /** Ends a running job (the lease cleared); false when it had ended already (the first end wins). */
  end(id: string, end: OperatorJobEnd): Promise<boolean>;
  /** Extends `owner`'s lease of a running job; false once it ended or is not its. */
  renewLease(id: string, owner: string, untilMs: number): Promise<boolean>;
}

/** The lease methods of a repository over its table's leases, alike on both backends. */
export function operatorJobLeases(leases: TableLeases<OperatorJobRow>): Pick<OperatorJobsRepo, 'renewLease'> {
  return { renewLease: (id, owner, untilMs) => leases.renew(id, owner, untilMs) };
}
