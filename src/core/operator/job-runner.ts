/**
 * Running operator jobs in this process, as a kind of job (src/core/jobs/README.md): each job's row is
 * made with this process's lease, renewed by the lease engine while its work goes on; its progress is
 * written at most about once a second (the latest report wins); its end is written once (completed with
 * its result, failed with why, or interrupted when the server stopped it). A running job whose lease
 * lapsed (its process died) is ended `interrupted` by whoever reads it next.
 */
import { ServiceError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import type { OperatorJobEnd, OperatorJobRow, OperatorJobsRepo } from '../../store/contracts/operator-jobs.js';
import { createLeaseEngine } from '../jobs/lease-engine.js';
import type { JobProgress } from './operator-jobs.types.js';

/** What a job's work ends with: its result, and why it failed when it ran through but did not succeed. */
export interface WorkOutcome {
  result: Record<string, unknown>;
  failure?: string;
}

/** A job's work: it stops when `signal` aborts, and reports its progress as often as it likes. */
export type JobWork = (signal: AbortSignal, report: (p: JobProgress) => void) => Promise<WorkOutcome>;

/** The error of a job whose process stopped before it finished. */
export const INTERRUPTED = 'interrupted: the Trawl process running it stopped before it finished; start it again';
/** Why the server's shutdown aborts a job. */
const STOPPING = 'the server is stopping';

/** A job to start: its row (without the lease, which the runner sets) and its work. */
export type JobStart = Omit<OperatorJobRow, 'seq' | 'state' | 'result' | 'error' | 'owner' | 'lease_until_ms'>;

export interface JobRunner {
  /** Inserts the job's row under this process's lease and starts its work; the row as inserted. */
  start(job: JobStart, work: JobWork, onEnd?: () => Promise<void>): Promise<OperatorJobRow>;
  /** `row` as it reads now: a running job whose lease lapsed, and which this process does not run, ended interrupted. */
  settle(row: OperatorJobRow): Promise<OperatorJobRow>;
  /** Whether the server is stopping (no job starts then). */
  readonly stopping: boolean;
  /** Aborts every job of this process, waits up to `waitMs` for their work, and ends the rest interrupted. */
  stop(waitMs: number): Promise<void>;
}

/** What the runner is built on. */
export interface JobRunnerDeps {
  repo: OperatorJobsRepo;
  now: () => number;
  logger: Logger;
  leaseMs: number;
  progressEveryMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The progress of one job written at most once per `everyMs`: a report within that time is written when
 * it is up (the latest one), so what the row shows is never older than about `everyMs`.
 */
function throttled(write: (p: JobProgress) => Promise<void>, everyMs: number, now: () => number) {
  let latest: JobProgress | undefined;
  let dirty = false;
  let lastAt = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  const flush = () => {
    timer = undefined;
    if (!dirty || !latest) return;
    dirty = false;
    lastAt = now();
    const p = latest;
    chain = chain.then(() => write(p));
  };
  return {
    report(p: JobProgress) {
      latest = p;
      dirty = true;
      if (timer) return;
      timer = setTimeout(flush, Math.max(0, lastAt + everyMs - now()));
      timer.unref();
    },
    /** No more writes; resolves once the one under way is done, with the latest report. */
    async close(): Promise<JobProgress | undefined> {
      clearTimeout(timer);
      await chain;
      return latest;
    },
  };
}

/** The message a failed job shows: a ServiceError's own, else a pointer to the log (which has the cause). */
function failureOf(err: unknown, logger: Logger, id: string): string {
  if (err instanceof ServiceError) return `${err.tag}: ${err.message}`;
  logger.error({ err, jobId: id }, 'operator job failed');
  return 'INTERNAL_ERROR: the job failed; the server log has the cause (search it for the job id)';
}

export function createJobRunner(deps: JobRunnerDeps): JobRunner {
  const { repo, now, logger } = deps;
  const leases = createLeaseEngine({
    store: { renew: (id, owner, untilMs) => repo.renewLease(id, owner, untilMs) },
    now,
    leaseMs: deps.leaseMs,
    lostReason: 'the job was ended elsewhere',
    onCheckError: (err, id) => logger.warn({ err, jobId: id }, 'operator job lease not renewed'),
  });
  let stopping = false;

  /** The end a job's work came to. */
  const endOf = (id: string, signal: AbortSignal, outcome: WorkOutcome | undefined, err: unknown): OperatorJobEnd => {
    const updatedAt = iso(now());
    const result = outcome ? JSON.stringify(outcome.result) : null;
    if (signal.aborted) return { state: 'interrupted', result, error: INTERRUPTED, updatedAt };
    if (!outcome) return { state: 'failed', result: null, error: failureOf(err, logger, id), updatedAt };
    if (outcome.failure) return { state: 'failed', result, error: outcome.failure, updatedAt };
    return { state: 'completed', result, error: null, updatedAt };
  };

  const run = async (id: string, work: JobWork, onEnd?: () => Promise<void>): Promise<void> => {
    const held = leases.hold(id);
    const progress = throttled(
      (p) =>
        repo
          .progress(id, leases.owner, JSON.stringify(p), iso(now()))
          .then(() => undefined)
          .catch((err: unknown) => logger.warn({ err, jobId: id }, 'operator job progress not written')),
      deps.progressEveryMs,
      now,
    );
    let outcome: WorkOutcome | undefined;
    let error: unknown;
    try {
      outcome = await work(held.signal, progress.report);
    } catch (err) {
      error = err;
    }
    held.stopRenewing();
    const last = await progress.close();
    const end = endOf(id, held.signal, outcome, error);
    try {
      await repo.end(id, { ...end, progress: last ? JSON.stringify(last) : undefined });
      await onEnd?.();
    } catch (err) {
      logger.error({ err, jobId: id }, 'operator job end not written; it reads interrupted once its lease lapses');
    } finally {
      held.release();
      leases.settle();
    }
  };

  return {
    get stopping() {
      return stopping;
    },
    async start(job, work, onEnd) {
      if (stopping) throw new ServiceError('SERVICE_UNAVAILABLE', 'The server is stopping; start the job again on a running one.'); // prettier-ignore
      const row = await repo.insert({ ...job, owner: leases.owner, lease_until_ms: leases.leaseUntil() });
      void run(row.id, work, onEnd);
      return row;
    },
    async settle(row) {
      const nowMs = now();
      if (row.state !== 'running' || (row.lease_until_ms ?? 0) >= nowMs || leases.has(row.id)) return row;
      const end = { state: 'interrupted' as const, result: null, error: INTERRUPTED, updatedAt: iso(nowMs) };
      await repo.end(row.id, { ...end, lapsedBefore: nowMs });
      return (await repo.get(row.id)) ?? row;
    },
    async stop(waitMs) {
      stopping = true;
      leases.abortAll(STOPPING);
      await leases.idle(waitMs);
      // work that did not end in time: its row says so now, not when its lease lapses
      for (const id of leases.ids()) {
        const end = { state: 'interrupted' as const, result: null, error: INTERRUPTED, updatedAt: iso(now()) };
        await repo.end(id, end).catch(() => undefined);
      }
    },
  };
}
