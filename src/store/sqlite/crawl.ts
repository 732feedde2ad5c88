/**
 * Crawl jobs and their frontier: every URL a crawl has found, with its depth and whether it is still
 * queued, done or failed (with the crawl tag). Kept in SQLite so an interrupted crawl resumes where it was;
 * the process walking a job holds its lease (./leases.ts).
 */
import { writeTransaction, type Db } from './database.js';
import {
  crawlLeases,
  toJob,
  toLease,
  type CrawlJob,
  type FrontierEntry,
  type NewEntry,
  type FrontierCounts,
  type CompleteChange,
  type CrawlRepo,
  type NewJob,
  type JobRow,
} from '../contracts/crawl.js';
import { LEASED } from '../contracts/leases.js';
import { sqliteLeases } from './leases.js';

/** Prepared statements over `crawl_jobs` (migrations 3, 19) and `crawl_frontier` (migration 3). */
export function createCrawlRepo(db: Db): CrawlRepo {
  const jobById = db.prepare('SELECT * FROM crawl_jobs WHERE id = ?');
  const activeBySeeds = db.prepare(
    "SELECT * FROM crawl_jobs WHERE seeds = ? AND state = 'active' ORDER BY updated_at DESC",
  );
  // a job another process holds is neither replaced nor made again
  const insertJob = db.prepare(`
    INSERT INTO crawl_jobs (id, seeds, scope, state, sitemaps_done, created_at, updated_at)
    VALUES (@id, @seeds, @scope, 'active', 0, @now, @now) ON CONFLICT (id) DO NOTHING`);
  const deleteJob = db.prepare('DELETE FROM crawl_jobs WHERE id = ? AND (owner IS NULL OR owner = ?)');
  const setJob = db.prepare(
    'UPDATE crawl_jobs SET state = @state, sitemaps_done = @sitemaps, updated_at = @now WHERE id = @id',
  );
  const insertEntry = db.prepare(`
    INSERT INTO crawl_frontier (job_id, url, depth, state, updated_at) VALUES (?, ?, ?, 'queued', ?)
    ON CONFLICT (job_id, url) DO NOTHING`);
  const nextQueued = db.prepare(
    "SELECT id, url, depth FROM crawl_frontier WHERE job_id = ? AND state = 'queued' ORDER BY depth, id LIMIT ?",
  );
  const setDone = db.prepare(
    "UPDATE crawl_frontier SET state = 'done', error_tag = NULL, error = NULL, http_status = NULL, updated_at = ? WHERE id = ?",
  );
  const setFailed = db.prepare(
    "UPDATE crawl_frontier SET state = 'failed', error_tag = ?, error = ?, http_status = ?, updated_at = ? WHERE id = ?",
  );
  const queuedToDone = db.prepare(
    "UPDATE crawl_frontier SET state = 'done', updated_at = ? WHERE job_id = ? AND url = ? AND state = 'queued'",
  );
  const insertDone = db.prepare(`
    INSERT INTO crawl_frontier (job_id, url, depth, state, updated_at) VALUES (?, ?, ?, 'done', ?)
    ON CONFLICT (job_id, url) DO NOTHING`);
  const countStates = db.prepare('SELECT state, COUNT(*) AS n FROM crawl_frontier WHERE job_id = ? GROUP BY state');
  const tagCounts = db.prepare(
    "SELECT error_tag AS tag, COUNT(*) AS n FROM crawl_frontier WHERE job_id = ? AND state = 'failed' GROUP BY error_tag",
  );
  const failedRows = db.prepare(
    "SELECT url, error_tag, error, http_status FROM crawl_frontier WHERE job_id = ? AND state = 'failed' ORDER BY id LIMIT ?",
  );

  const enqueueMany = (jobId: string, entries: readonly NewEntry[], now: string): number => {
    let added = 0;
    for (const e of entries) added += insertEntry.run(jobId, e.url, e.depth, now).changes;
    return added;
  };
  const enqueueTx = writeTransaction(db, enqueueMany);
  const completeTx = writeTransaction(
    db,
    (jobId: string, entryId: number, aliases: readonly NewEntry[], found: readonly NewEntry[], now: string) => {
      setDone.run(now, entryId);
      const change: CompleteChange = { added: 0, aliasesQueuedToDone: 0, aliasesInserted: 0 };
      for (const a of aliases) {
        const updated = queuedToDone.run(now, jobId, a.url).changes;
        change.aliasesQueuedToDone += updated;
        if (updated === 0) change.aliasesInserted += insertDone.run(jobId, a.url, a.depth, now).changes;
      }
      change.added = enqueueMany(jobId, found, now);
      return change;
    },
  );
  const createTx = writeTransaction(db, (job: NewJob, now: string, owner: string | null) => {
    deleteJob.run(job.id, owner);
    insertJob.run({ id: job.id, seeds: JSON.stringify(job.seeds), scope: JSON.stringify(job.scope), now });
    enqueueMany(
      job.id,
      job.seeds.map((url) => ({ url, depth: 0 })),
      now,
    );
  });
  const leases = crawlLeases(sqliteLeases<JobRow>(db, LEASED.crawlJobs));
  const getJob = (id: string): CrawlJob | undefined => {
    const row = jobById.get(id) as JobRow | undefined;
    return row ? toJob(row) : undefined;
  };

  return {
    async getJob(id) {
      return getJob(id);
    },
    async activeJobsForSeeds(seeds) {
      return (activeBySeeds.all(JSON.stringify(seeds)) as JobRow[]).map(toJob);
    },
    async createJob(job, now, owner) {
      createTx(job, now, owner ?? null);
      return getJob(job.id)!;
    },
    ...leases,
    async leaseOf(id) {
      const row = jobById.get(id) as JobRow | undefined;
      return row ? toLease(row) : undefined;
    },
    async updateJob(id, change, now) {
      setJob.run({ id, state: change.state, sitemaps: change.sitemapsDone ? 1 : 0, now });
    },
    async enqueue(jobId, entries, now) {
      return enqueueTx(jobId, entries, now);
    },
    async next(jobId, n, leased) {
      const rows = nextQueued.all(jobId, n + leased.size) as FrontierEntry[];
      return rows.filter((r) => !leased.has(r.id)).slice(0, n);
    },
    async complete(jobId, entryId, aliases, found, now) {
      return completeTx(jobId, entryId, aliases, found, now);
    },
    async fail(entryId, failure, now) {
      setFailed.run(failure.tag, failure.message, failure.httpStatusCode, now, entryId);
    },
    async counts(jobId) {
      const counts: FrontierCounts = { queued: 0, done: 0, failed: 0 };
      for (const row of countStates.all(jobId) as { state: keyof FrontierCounts; n: number }[])
        counts[row.state] = row.n;
      return counts;
    },
    async failuresByTag(jobId) {
      const out: Record<string, number> = {};
      for (const row of tagCounts.all(jobId) as { tag: string | null; n: number }[]) out[row.tag ?? 'unknown'] = row.n;
      return out;
    },
    async failures(jobId, limit) {
      const rows = failedRows.all(jobId, limit) as {
        url: string;
        error_tag: string | null;
        error: string | null;
        http_status: number | null;
      }[];
      return rows.map((r) => ({
        url: r.url,
        tag: r.error_tag ?? 'unknown',
        error: r.error,
        httpStatusCode: r.http_status,
      }));
    },
  };
}
