/**
 * Crawl jobs and their frontier over PostgreSQL: the same contract as `createCrawlRepo` (SQLite); the
 * process walking a job holds its lease (./leases.ts), so two replicas never walk one crawl.
 */
import type pg from 'pg';
import {
  crawlLeases,
  toJob,
  toLease,
  type CompleteChange,
  type CrawlRepo,
  type FrontierCounts,
  type FrontierEntry,
  type JobRow,
  type NewEntry,
} from '../contracts/crawl.js';
import { LEASED } from '../contracts/leases.js';
import { pgLeases } from './leases.js';
import { inTransaction, type Run } from './sql.js';

/** Adds entries not yet in the job's frontier, in their order, in one statement; how many were new. */
async function enqueueIn(db: Run, jobId: string, entries: readonly NewEntry[], now: string, state = 'queued') {
  if (entries.length === 0) return 0;
  const r = await db.query(
    `INSERT INTO crawl_frontier (job_id, url, depth, state, updated_at)
     SELECT $1, t.url, t.depth, $5, $4 FROM unnest($2::text[], $3::int[]) WITH ORDINALITY AS t(url, depth, ord)
     ORDER BY t.ord
     ON CONFLICT (job_id, url) DO NOTHING`,
    [jobId, entries.map((e) => e.url), entries.map((e) => e.depth), now, state],
  );
  return r.rowCount ?? 0;
}

export function createPgCrawlRepo(pool: pg.Pool): CrawlRepo {
  const leases = crawlLeases(pgLeases<JobRow>(pool, LEASED.crawlJobs));
  const rowOf = async (db: Run, id: string) =>
    (await db.query<JobRow>('SELECT * FROM crawl_jobs WHERE id = $1', [id])).rows[0];
  const getJob = async (db: Run, id: string) => {
    const row = await rowOf(db, id);
    return row ? toJob(row) : undefined;
  };
  return {
    getJob: (id) => getJob(pool, id),
    async activeJobsForSeeds(seeds) {
      const { rows } = await pool.query<JobRow>(
        "SELECT * FROM crawl_jobs WHERE seeds = $1 AND state = 'active' ORDER BY updated_at DESC",
        [JSON.stringify(seeds)],
      );
      return rows.map(toJob);
    },
    createJob: (job, now, owner) =>
      inTransaction(pool, async (db) => {
        // a job another process holds is neither replaced nor made again
        await db.query('DELETE FROM crawl_jobs WHERE id = $1 AND (owner IS NULL OR owner = $2)', [
          job.id,
          owner ?? null,
        ]);
        await db.query(
          `INSERT INTO crawl_jobs (id, seeds, scope, state, sitemaps_done, created_at, updated_at)
           VALUES ($1, $2, $3, 'active', 0, $4, $4) ON CONFLICT (id) DO NOTHING`,
          [job.id, JSON.stringify(job.seeds), JSON.stringify(job.scope), now],
        );
        await enqueueIn(db, job.id, job.seeds.map((url) => ({ url, depth: 0 })), now); // prettier-ignore
        return (await getJob(db, job.id))!;
      }),
    ...leases,
    async leaseOf(id) {
      const row = await rowOf(pool, id);
      return row ? toLease(row) : undefined;
    },
    async updateJob(id, change, now) {
      await pool.query('UPDATE crawl_jobs SET state = $2, sitemaps_done = $3, updated_at = $4 WHERE id = $1', [
        id,
        change.state,
        change.sitemapsDone ? 1 : 0,
        now,
      ]);
    },
    enqueue: (jobId, entries, now) => enqueueIn(pool, jobId, entries, now),
    async next(jobId, n, leased) {
      const { rows } = await pool.query<FrontierEntry>(
        "SELECT id, url, depth FROM crawl_frontier WHERE job_id = $1 AND state = 'queued' ORDER BY depth, id LIMIT $2",
        [jobId, n + leased.size],
      );
      return rows.filter((r) => !leased.has(r.id)).slice(0, n);
    },
    complete: (jobId, entryId, aliases, found, now) =>
      inTransaction(pool, async (db) => {
        await db.query(
          "UPDATE crawl_frontier SET state = 'done', error_tag = NULL, error = NULL, http_status = NULL, updated_at = $1 WHERE id = $2", // prettier-ignore
          [now, entryId],
        );
        const change: CompleteChange = { added: 0, aliasesQueuedToDone: 0, aliasesInserted: 0 };
        for (const a of aliases) {
          const r = await db.query(
            "UPDATE crawl_frontier SET state = 'done', updated_at = $1 WHERE job_id = $2 AND url = $3 AND state = 'queued'",
            [now, jobId, a.url],
          );
          const updated = r.rowCount ?? 0;
          change.aliasesQueuedToDone += updated;
          if (updated === 0) change.aliasesInserted += await enqueueIn(db, jobId, [a], now, 'done');
        }
        change.added = await enqueueIn(db, jobId, found, now);
        return change;
      }),
    async fail(entryId, failure, now) {
      await pool.query(
        "UPDATE crawl_frontier SET state = 'failed', error_tag = $1, error = $2, http_status = $3, updated_at = $4 WHERE id = $5",
        [failure.tag, failure.message, failure.httpStatusCode, now, entryId],
      );
    },
    async counts(jobId) {
      const counts: FrontierCounts = { queued: 0, done: 0, failed: 0 };
      const { rows } = await pool.query<{ state: keyof FrontierCounts; n: number }>(
        'SELECT state, COUNT(*)::int AS n FROM crawl_frontier WHERE job_id = $1 GROUP BY state',
        [jobId],
      );
      for (const row of rows) counts[row.state] = row.n;
      return counts;
    },
    async failuresByTag(jobId) {
      const { rows } = await pool.query<{ tag: string | null; n: number }>(
        "SELECT error_tag AS tag, COUNT(*)::int AS n FROM crawl_frontier WHERE job_id = $1 AND state = 'failed' GROUP BY error_tag",
        [jobId],
      );
      const out: Record<string, number> = {};
      for (const row of rows) out[row.tag ?? 'unknown'] = row.n;
      return out;
    },
    async failures(jobId, limit) {
      const { rows } =
        await pool.query<{ url: string; error_tag: string | null; error: string | null; http_status: number | null }>( // prettier-ignore
          "SELECT url, error_tag, error, http_status FROM crawl_frontier WHERE job_id = $1 AND state = 'failed' ORDER BY id LIMIT $2",
          [jobId, limit],
        );
      return rows.map((r) => ({
        url: r.url,
        tag: r.error_tag ?? 'unknown',
        error: r.error,
        httpStatusCode: r.http_status,
      }));
    },
  };
}
