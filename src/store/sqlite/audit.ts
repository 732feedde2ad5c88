/**
 * The audit log: one row per change made to a team's accounts (its keys, flags, credits, budget), by
 * whom. A record is written by the repository method that makes the change, in the same transaction
 * (`insertAudit`), so a change and its record are never apart.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import type { AuditRow, NewAuditRecord, AuditRepo } from '../contracts/audit.js';

const inserts = new WeakMap<Db, Statement>();

/** Writes `record` with `db` (call it inside the transaction of the change it records). */
export function insertAudit(db: Db, record: NewAuditRecord | undefined): void {
  if (!record) return;
  let insert = inserts.get(db);
  if (!insert) {
    insert = db.prepare(
      `INSERT INTO audit_log (at, team_id, actor_key_id, actor_team_id, action, target, detail)
       VALUES (@at, @team_id, @actor_key_id, @actor_team_id, @action, @target, @detail)`,
    );
    inserts.set(db, insert);
  }
  insert.run(record);
}

/** The audit log over SQLite. */
export function createAuditRepo(db: Db): AuditRepo {
  const page = db.prepare(
    `SELECT * FROM audit_log WHERE (@team IS NULL OR team_id = @team) AND seq < @before
     ORDER BY seq DESC LIMIT @limit`,
  );
  return {
    page: async ({ teamId, before, limit }) => page.all({ team: teamId ?? null, before, limit }) as AuditRow[],
  };
}
