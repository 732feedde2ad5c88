/**
 * The console's operator jobs over SQLite (migration 22): one row per job, its progress written by its
 * holder, its end by whoever ends it first (a conditional UPDATE of a running row: the job's process, or
 * a reader that finds its lease lapsed).
 */
import { LEASED } from '../contracts/leases.js';
import { operatorJobLeases, type OperatorJobRow, type OperatorJobsRepo } from '../contracts/operator-jobs.js';
import type { Db } from './database.js';
import { sqliteLeases } from './leases.js';

/** The SQLite implementation, on prepared statements. */
export function createOperatorJobsRepo(db: Db): OperatorJobsRepo {
  const s = {
    insert: db.prepare(
      `INSERT INTO operator_jobs (id, kind, key_id, team_id, input, state, progress, owner, lease_until_ms, created_at, updated_at)
       VALUES (@id, @kind, @key_id, @team_id, @input, 'running', @progress, @owner, @lease_until_ms, @created_at, @updated_at)
       RETURNING *`,
    ),
    get: db.prepare('SELECT * FROM operator_jobs WHERE id = ?'),
    page: db.prepare(
      'SELECT * FROM operator_jobs WHERE seq < @before AND (@team IS NULL OR team_id = @team) ORDER BY seq DESC LIMIT @limit',
    ),
    progress: db.prepare(
      `UPDATE operator_jobs SET progress = @progress, updated_at = @at
       WHERE id = @id AND owner = @owner AND state = 'running'`,
    ),
    end: db.prepare(
      `UPDATE operator_jobs SET state = @state, result = @result, error = @error, updated_at = @at,
         progress = COALESCE(@progress, progress), owner = NULL, lease_until_ms = NULL
       WHERE id = @id AND state = 'running' AND (@lapsed IS NULL OR lease_until_ms < @lapsed)`,
    ),
  };
  return {
    insert: async (job) => s.insert.get(job) as OperatorJobRow,
    get: async (id) => s.get.get(id) as OperatorJobRow | undefined,
    page: async (before, limit, teamId) => s.page.all({ before, limit, team: teamId ?? null }) as OperatorJobRow[],
    progress: async (id, owner, progress, at) => s.progress.run({ id, owner, progress, at }).changes > 0,
    end: async (id, end) =>
      s.end.run({
        id,
        state: end.state,
        result: end.result,
        error: end.error,
        at: end.updatedAt,
        progress: end.progress ?? null,
        lapsed: end.lapsedBefore ?? null,
      }).changes > 0,
    ...operatorJobLeases(sqliteLeases<OperatorJobRow>(db, LEASED.operatorJobs)),
  };
}
