/** The audit log over PostgreSQL: the same contract as `createAuditRepo` (SQLite). */
import type pg from 'pg';
import type { AuditRepo, AuditRow, NewAuditRecord } from '../contracts/audit.js';

/** Writes `record` with `db` (a client inside the transaction of the change it records). */
export async function insertAuditPg(
  db: Pick<pg.PoolClient, 'query'>,
  record: NewAuditRecord | undefined,
): Promise<void> {
  if (!record) return;
  await db.query(
    `INSERT INTO audit_log (at, team_id, actor_key_id, actor_team_id, action, target, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [record.at, record.team_id, record.actor_key_id, record.actor_team_id, record.action, record.target, record.detail], // prettier-ignore
  );
}

/** The audit log over PostgreSQL. */
export function createPgAuditRepo(pool: pg.Pool): AuditRepo {
  return {
    page: async ({ teamId, before, limit }) =>
      (
        await pool.query<AuditRow>(
          `SELECT * FROM audit_log WHERE ($1::text IS NULL OR team_id = $1) AND seq < $2 ORDER BY seq DESC LIMIT $3`,
          [teamId ?? null, before, limit],
        )
      ).rows,
  };
}
