/**
 * The console's operator jobs over PostgreSQL (migration 19): the same contract as SQLite's
 * (../sqlite/operator-jobs.ts), each method one statement, so a job ends once whichever replica ends it.
 */
import type pg from 'pg';
import { LEASED } from '../contracts/leases.js';
import { operatorJobLeases, type OperatorJobRow, type OperatorJobsRepo } from '../contracts/operator-jobs.js';
import { pgLeases } from './leases.js';
import { changed, first, rowsOf } from './sql.js';

export function createPgOperatorJobsRepo(pool: pg.Pool): OperatorJobsRepo {
  return {
    async insert(job) {
      const row = await first<OperatorJobRow>(
        pool,
        `INSERT INTO operator_jobs (id, kind, key_id, team_id, input, state, progress, owner, lease_until_ms, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'running', $6, $7, $8, $9, $10) RETURNING *`,
        [job.id, job.kind, job.key_id, job.team_id, job.input, job.progress, job.owner, job.lease_until_ms, job.created_at, job.updated_at], // prettier-ignore
      );
      return row!;
    },
    get: (id) => first<OperatorJobRow>(pool, 'SELECT * FROM operator_jobs WHERE id = $1', [id]),
    page: (before, limit, teamId) =>
      rowsOf<OperatorJobRow>(pool, 'SELECT * FROM operator_jobs WHERE seq < $1 AND ($3::text IS NULL OR team_id = $3) ORDER BY seq DESC LIMIT $2', [before, limit, teamId ?? null]), // prettier-ignore
    progress: async (id, owner, progress, at) =>
      changed(
        await pool.query(
          "UPDATE operator_jobs SET progress = $3, updated_at = $4 WHERE id = $1 AND owner = $2 AND state = 'running'",
          [id, owner, progress, at],
        ),
      ),
    end: async (id, end) =>
      changed(
        await pool.query(
          `UPDATE operator_jobs SET state = $2, result = $3, error = $4, updated_at = $5, progress = COALESCE($7, progress),
             owner = NULL, lease_until_ms = NULL
           WHERE id = $1 AND state = 'running' AND ($6::bigint IS NULL OR lease_until_ms < $6::bigint)`,
          [id, end.state, end.result, end.error, end.updatedAt, end.lapsedBefore ?? null, end.progress ?? null],
        ),
      ),
    ...operatorJobLeases(pgLeases<OperatorJobRow>(pool, LEASED.operatorJobs)),
  };
}
