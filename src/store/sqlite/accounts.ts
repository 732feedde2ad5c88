/**
 * Teams, what was spent, and the money held by requests in flight. Amounts are integer micro-dollars.
 * The check and hold of a request's money, and its charge, are each one method in one IMMEDIATE
 * transaction, so two processes cannot both spend the last credit.
 */
import { insertAudit } from './audit.js';
import type { Db } from './database.js';
import { LATENCY_READ, SPEND_READ } from '../contracts/accounts.js';
import type { TeamRow, SpendRow, Standing, HoldRequest, AccountsRepo, LatencyRow } from '../contracts/accounts.js';

/** The accounts repository over SQLite. */
export function createAccountsRepo(db: Db): AccountsRepo {
  const s = statements(db);
  const team = (id: string) => s.team.get(id) as TeamRow | undefined;
  const immediate = <T>(work: () => T): T => db.transaction(work).immediate();

  return {
    insertTeam: async (row, audit) =>
      immediate(() => {
        s.insertTeam.run(row);
        insertAudit(db, audit);
      }),
    team: async (id) => team(id),
    teamByName: async (name) => s.teamByName.get(name) as TeamRow | undefined,
    teams: async () => s.teams.all() as TeamRow[],
    updateTeam: async (ref, edit, audit) =>
      immediate(() => {
        const row = team(ref) ?? (s.teamByName.get(ref) as TeamRow | undefined);
        if (!row) return undefined;
        const next = edit(row);
        s.saveTeam.run(next);
        const saved = team(next.id)!;
        insertAudit(db, audit?.(row, saved));
        return saved;
      }),
    addCredits: async (teamId, micros, audit) =>
      immediate(() => {
        if (s.addCredits.run(micros, teamId).changes === 0) return undefined;
        insertAudit(db, audit);
        return team(teamId);
      }),
    async holdIfAllowed(request, allow) {
      immediate(() => {
        const row = team(request.hold.team_id);
        if (!row) throw new Error(`team ${request.hold.team_id} is gone`);
        allow(standingOf(s, request, row));
        s.insertHold.run(request.hold);
      });
    },
    async settle({ holdId, spend, latencyBucket }) {
      immediate(() => {
        if (holdId) s.deleteHold.run(holdId);
        if (spend.micros === 0) return;
        s.addSpend.run(spend);
        s.takeCredits.run(spend.micros, spend.team_id);
        if (latencyBucket !== undefined) s.addLatency.run({ ...spend, bucket: latencyBucket });
      });
    },
    spendSince: async (fromDay) => s.spendSince.all(fromDay) as SpendRow[],
    spendBetween: async (fromDay, toDay, teamId) =>
      s.spendBetween.all({ from: fromDay, to: toDay, team: teamId ?? null }) as SpendRow[],
    latencyBetween: async (fromDay, toDay, teamId) =>
      s.latencyBetween.all({ from: fromDay, to: toDay, team: teamId ?? null }) as LatencyRow[],
    dropExpiredHolds: async (nowMs) => s.expiredHolds.run(nowMs).changes,
  };
}

type Statements = ReturnType<typeof statements>;

const sum = (stmt: { get(...a: unknown[]): unknown }, ...args: unknown[]) => (stmt.get(...args) as { m: number }).m;

/** What the team of `row` and the key of the hold have left, read within the caller's transaction. */
function standingOf(s: Statements, request: HoldRequest, row: TeamRow): Standing {
  const { hold, nowMs, keyPeriod, periodStarts } = request;
  const teamFrom = row.budget_period ? periodStarts[row.budget_period] : undefined;
  const keyFrom = keyPeriod ? periodStarts[keyPeriod] : undefined;
  return {
    team: row,
    teamHolds: sum(s.teamHolds, row.id, nowMs),
    keyHolds: sum(s.keyHolds, hold.key_id, nowMs),
    teamSpend: teamFrom ? sum(s.teamSpend, row.id, teamFrom) : 0,
    keySpend: keyFrom ? sum(s.keySpend, hold.key_id, keyFrom) : 0,
  };
}

/** The prepared statements of the accounts tables. */
function statements(db: Db) {
  return {
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
    spendSince: db.prepare(
      `SELECT * FROM ${SPEND_READ} AS spend WHERE day >= ? ORDER BY team_id, key_id, day, operation`,
    ),
    spendBetween: db.prepare(
      `SELECT * FROM ${SPEND_READ} AS spend WHERE day >= @from AND day <= @to AND (@team IS NULL OR team_id = @team)
       ORDER BY day, team_id, key_id, operation`,
    ),
    addLatency: db.prepare(
      `INSERT INTO request_latency (key_id, team_id, day, operation, bucket, requests)
       VALUES (@key_id, @team_id, @day, @operation, @bucket, 1)
       ON CONFLICT (key_id, day, operation, bucket) DO UPDATE SET requests = requests + 1`,
    ),
    latencyBetween: db.prepare(
      `SELECT * FROM ${LATENCY_READ} AS request_latency WHERE day >= @from AND day <= @to AND (@team IS NULL OR team_id = @team)
       ORDER BY day, key_id, operation, bucket`,
    ),
    keyHolds: db.prepare('SELECT COALESCE(SUM(amount_micros), 0) AS m FROM holds WHERE key_id = ? AND expires_ms > ?'),
    teamHolds: db.prepare(
      'SELECT COALESCE(SUM(amount_micros), 0) AS m FROM holds WHERE team_id = ? AND expires_ms > ?',
    ),
    insertHold: db.prepare(
      `INSERT INTO holds (id, key_id, team_id, amount_micros, expires_ms)
       VALUES (@id, @key_id, @team_id, @amount_micros, @expires_ms)`,
    ),
    deleteHold: db.prepare('DELETE FROM holds WHERE id = ?'),
    expiredHolds: db.prepare('DELETE FROM holds WHERE expires_ms <= ?'),
  };
}
