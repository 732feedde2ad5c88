/**
 * The contract of the audit log: one row per change made to a team's accounts (its keys, flags, credits,
 * budget), by whom, written in the transaction of the change (sqlite/audit.ts, pg/audit.ts).
 */

/** A row of `audit_log`. */
export interface AuditRow {
  seq: number;
  at: string;
  /** The team acted on. */
  team_id: string;
  /** The key that acted; null: the local process (the CLI). */
  actor_key_id: string | null;
  actor_team_id: string | null;
  /** What was done: `keys.create`, `teams.update`, … */
  action: string;
  /** What it was done to: a key id or a team id. */
  target: string;
  /** What changed, as JSON (never a key or a secret). */
  detail: string | null;
}

/** A record to write. */
export type NewAuditRecord = Omit<AuditRow, 'seq'>;

/** Reading the audit log (records are written by the repositories that make the changes). */
export interface AuditRepo {
  /** Records with `seq < before`, newest first; of one team when `teamId` is given. */
  page(options: { teamId?: string; before: number; limit: number }): Promise<AuditRow[]>;
}
