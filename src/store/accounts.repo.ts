/**
 * Teams, what was spent, and the money held by requests in flight. Amounts are integer micro-dollars.
 * The checks and writes of one request's charge run inside one IMMEDIATE transaction (the caller's), so
 * two processes cannot both spend the last credit.
 */
import type { Db } from './database.js';

export interface TeamRow {
  id: string;
  name: string;
  blocked_at: string | null;
  enterprise: number;
  zero_retention: number;
  /** null: no credit limit. */
  credits_micros: number | null;
  budget_micros: number | null;
  /** `day` or `month` (UTC calendar periods). */
  budget_period: string | null;
  created_at: string;
}

export interface SpendRow {
  key_id: string;
  team_id: string;
  day: string;
  operation: string;
  requests: number;
  micros: number;
}

export function createAccountsRepo(db: Db) {
  const s = {
    insertTeam: db.prepare(
      `INSERT INTO teams (id, name, enterprise, zero_retention, credits_micros, budget_micros, budget_period, created_at)
       VALUES (@id, @name, @enterprise, @zero_retention, @credits_micros, @budget_micros, @budget_period, @created_at)`,
    ),
    team: db.prepare('SELECT * FROM teams WHERE id = ?'),
    teamByName: db.prepare('SELECT * FROM teams WHERE name = ?'),
    teams: db.prepare('SELECT * FROM teams ORDER BY created_at, id'),
    saveTeam: db.prepare(
      `UPDATE teams SET blocked_at = @blocked_at, enterprise = @enterprise, zero_retention = @zero_retention,
         credits_micros = @credits_micros, budget_micros = @budget_micros, budget_period = @budget_period
       WHERE id = @id`,
    ),
    addCredits: db.prepare('UPDATE teams SET credits_micros = COALESCE(credits_micros, 0) + ? WHERE id = ?'),
    takeCredits: db.prepare(
      'UPDATE teams SET credits_micros = credits_micros - ? WHERE id = ? AND credits_micros IS NOT NULL',
    ),
    keySpend: db.prepare('SELECT COALESCE(SUM(micros), 0) AS m FROM spend WHERE key_id = ? AND day >= ?'),
    teamSpend: db.prepare('SELECT COALESCE(SUM(micros), 0) AS m FROM spend WHERE team_id = ? AND day >= ?'),
    addSpend: db.prepare(
      `INSERT INTO spend (key_id, team_id, day, operation, requests, micros) VALUES (@key_id, @team_id, @day, @operation, 1, @micros)
       ON CONFLICT (key_id, day, operation) DO UPDATE SET requests = requests + 1, micros = micros + excluded.micros`,
    ),
    spendSince: db.prepare('SELECT * FROM spend WHERE day >= ? ORDER BY team_id, key_id, day, operation'),
    keyHolds: db.prepare('SELECT COALESCE(SUM(amount_micros), 0) AS m FROM holds WHERE key_id = ? AND expires_ms > ?'),
    teamHolds: db.prepare(
      'SELECT COALESCE(SUM(amount_micros), 0) AS m FROM holds WHERE team_id = ? AND expires_ms > ?',
    ),
    insertHold: db.prepare(
      `INSERT INTO holds (id, key_id, team_id, amount_micros, expires_ms) VALUES (@id, @key_id, @team_id, @amount_micros, @expires_ms)`, // prettier-ignore
    ),
    deleteHold: db.prepare('DELETE FROM holds WHERE id = ?'),
    expiredHolds: db.prepare('DELETE FROM holds WHERE expires_ms <= ?'),
  };
  const sum = (stmt: { get(...a: unknown[]): unknown }, ...args: unknown[]) => (stmt.get(...args) as { m: number }).m;

  return {
    /** Runs `work` in one IMMEDIATE transaction: the checks it makes hold until it commits. */
    transaction<T>(work: () => T): T {
      return db.transaction(work).immediate();
    },
    insertTeam(row: Omit<TeamRow, 'blocked_at'>): void {
      s.insertTeam.run(row);
    },
    team(id: string): TeamRow | undefined {
      return s.team.get(id) as TeamRow | undefined;
    },
    teamByName(name: string): TeamRow | undefined {
      return s.teamByName.get(name) as TeamRow | undefined;
    },
    teams(): TeamRow[] {
      return s.teams.all() as TeamRow[];
    },
    saveTeam(row: TeamRow): void {
      s.saveTeam.run(row);
    },
    addCredits(teamId: string, micros: number): void {
      s.addCredits.run(micros, teamId);
    },
    takeCredits(teamId: string, micros: number): void {
      s.takeCredits.run(micros, teamId);
    },
    /** Spent by a key, or a team, on days `fromDay` (YYYY-MM-DD) and later. */
    keySpend: (keyId: string, fromDay: string) => sum(s.keySpend, keyId, fromDay),
    teamSpend: (teamId: string, fromDay: string) => sum(s.teamSpend, teamId, fromDay),
    addSpend(row: Omit<SpendRow, 'requests'>): void {
      s.addSpend.run(row);
    },
    spendSince(fromDay: string): SpendRow[] {
      return s.spendSince.all(fromDay) as SpendRow[];
    },
    /** Money held by live requests of a key, or a team. */
    keyHolds: (keyId: string, nowMs: number) => sum(s.keyHolds, keyId, nowMs),
    teamHolds: (teamId: string, nowMs: number) => sum(s.teamHolds, teamId, nowMs),
    insertHold(row: { id: string; key_id: string; team_id: string; amount_micros: number; expires_ms: number }): void {
      s.insertHold.run(row);
    },
    deleteHold(id: string): boolean {
      return s.deleteHold.run(id).changes > 0;
    },
    /** Forgets holds of requests whose process died. */
    dropExpiredHolds(nowMs: number): number {
      return s.expiredHolds.run(nowMs).changes;
    },
  };
}
export type AccountsRepo = ReturnType<typeof createAccountsRepo>;
