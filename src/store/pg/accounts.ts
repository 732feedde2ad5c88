/**
 * Teams, spend and holds over PostgreSQL: the same contract as `createAccountsRepo` (SQLite). Where
 * SQLite takes the database's write lock, a transaction here locks the team's row (`FOR UPDATE`), so
 * two replicas holding money for one team take turns and never hold the same money twice; teams do not
 * wait on each other.
 */
import type pg from 'pg';
import { LATENCY_READ, SPEND_READ } from '../contracts/accounts.js';
import type { AccountsRepo, HoldRequest, LatencyRow, SpendRow, Standing, TeamRow } from '../contracts/accounts.js';
import { insertAuditPg } from './audit.js';
import { first, inTransaction, rowCountOf, rowsOf, type Run } from './sql.js';

/** The team with id or name `ref`, its row locked until the transaction ends. */
const lockTeam = (db: Run, ref: string) =>
  first<TeamRow>(db, 'SELECT * FROM teams WHERE id = $1 OR (name = $1 AND NOT EXISTS (SELECT 1 FROM teams WHERE id = $1)) FOR UPDATE', [ref]); // prettier-ignore

/**
 * What the team and the key hold and have spent, read in one statement after the team's row is locked
 * (a statement of its own: in READ COMMITTED it sees every hold committed before the lock was granted).
 */
async function standingOf(db: Run, request: HoldRequest, row: TeamRow): Promise<Standing> {
  const { hold, nowMs, keyPeriod, periodStarts } = request;
  const teamFrom = row.budget_period ? periodStarts[row.budget_period] : undefined;
  const keyFrom = keyPeriod ? periodStarts[keyPeriod] : undefined;
  const sums = await first<{ team_holds: number; key_holds: number; team_spend: number; key_spend: number }>(
    db,
    `SELECT (SELECT COALESCE(SUM(amount_micros), 0) FROM holds WHERE team_id = $1 AND expires_ms > $2)::bigint AS team_holds,
            (SELECT COALESCE(SUM(amount_micros), 0) FROM holds WHERE key_id = $3 AND expires_ms > $2)::bigint AS key_holds,
            CASE WHEN $4::text IS NULL THEN 0
                 ELSE (SELECT COALESCE(SUM(micros), 0) FROM spend WHERE team_id = $1 AND day >= $4) END::bigint AS team_spend,
            CASE WHEN $5::text IS NULL THEN 0
                 ELSE (SELECT COALESCE(SUM(micros), 0) FROM spend WHERE key_id = $3 AND day >= $5) END::bigint AS key_spend`,
    [row.id, nowMs, hold.key_id, teamFrom ?? null, keyFrom ?? null],
  );
  return {
    team: row,
    teamHolds: sums!.team_holds,
    keyHolds: sums!.key_holds,
    teamSpend: sums!.team_spend,
    keySpend: sums!.key_spend,
  };
}

/**
 * A request's settlement in one statement, atomic without a transaction of its own (one round trip):
 * its hold released, its spend added to the day's row, its cost taken from the team's credits.
 */
const SETTLE = `
  WITH released AS (DELETE FROM holds WHERE id = $1),
       spent AS (
         INSERT INTO spend (key_id, team_id, day, operation, requests, micros) VALUES ($2, $3, $4, $5, 1, $6)
         ON CONFLICT (key_id, day, operation) DO UPDATE SET requests = spend.requests + 1,
           micros = spend.micros + excluded.micros),
       timed AS (
         INSERT INTO request_latency (key_id, team_id, day, operation, bucket, requests)
         SELECT $2, $3, $4, $5, $7::bigint, 1 WHERE $7::bigint IS NOT NULL
         ON CONFLICT (key_id, day, operation, bucket) DO UPDATE SET requests = request_latency.requests + 1)
  UPDATE teams SET credits_micros = credits_micros - $6 WHERE id = $3 AND credits_micros IS NOT NULL`;

export function createPgAccountsRepo(pool: pg.Pool): AccountsRepo {
  return {
    insertTeam: (row, audit) =>
      inTransaction(pool, async (db) => {
        await db.query(
          `INSERT INTO teams (id, name, enterprise, zero_retention, credits_micros, budget_micros, budget_period, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [row.id, row.name, row.enterprise, row.zero_retention, row.credits_micros, row.budget_micros, row.budget_period, row.created_at], // prettier-ignore
        );
        await insertAuditPg(db, audit);
      }),
    team: (id) => first<TeamRow>(pool, 'SELECT * FROM teams WHERE id = $1', [id]),
    teamByName: (name) => first<TeamRow>(pool, 'SELECT * FROM teams WHERE name = $1', [name]),
    teams: async () => (await pool.query<TeamRow>('SELECT * FROM teams ORDER BY created_at, id')).rows,
    updateTeam: (ref, edit, audit) =>
      inTransaction(pool, async (db) => {
        const row = await lockTeam(db, ref);
        if (!row) return undefined;
        const next = edit(row);
        await db.query(
          `UPDATE teams SET blocked_at = $2, enterprise = $3, zero_retention = $4, credits_micros = $5,
             budget_micros = $6, budget_period = $7 WHERE id = $1`,
          [next.id, next.blocked_at, next.enterprise, next.zero_retention, next.credits_micros, next.budget_micros, next.budget_period], // prettier-ignore
        );
        const saved = (await first<TeamRow>(db, 'SELECT * FROM teams WHERE id = $1', [next.id]))!;
        await insertAuditPg(db, audit?.(row, saved));
        return saved;
      }),
    addCredits: (teamId, micros, audit) =>
      inTransaction(pool, async (db) => {
        const row = await first<TeamRow>(
          db,
          'UPDATE teams SET credits_micros = COALESCE(credits_micros, 0) + $1 WHERE id = $2 RETURNING *',
          [micros, teamId],
        );
        if (row) await insertAuditPg(db, audit);
        return row;
      }),
    async holdIfAllowed(request, allow) {
      await inTransaction(pool, async (db) => {
        const row = await first<TeamRow>(db, 'SELECT * FROM teams WHERE id = $1 FOR UPDATE', [request.hold.team_id]);
        if (!row) throw new Error(`team ${request.hold.team_id} is gone`);
        allow(await standingOf(db, request, row));
        const h = request.hold;
        await db.query(
          'INSERT INTO holds (id, key_id, team_id, amount_micros, expires_ms) VALUES ($1, $2, $3, $4, $5)',
          [h.id, h.key_id, h.team_id, h.amount_micros, h.expires_ms],
        );
      });
    },
    async settle({ holdId, spend, latencyBucket }) {
      if (spend.micros === 0) {
        if (holdId) await pool.query('DELETE FROM holds WHERE id = $1', [holdId]);
        return;
      }
      const { key_id, team_id, day, operation, micros } = spend;
      await pool.query(SETTLE, [holdId ?? null, key_id, team_id, day, operation, micros, latencyBucket ?? null]);
    },
    spendSince: async (fromDay) =>
      (await pool.query<SpendRow>(`SELECT * FROM ${SPEND_READ} AS spend WHERE day >= $1 ORDER BY team_id, key_id, day, operation`, [fromDay])).rows, // prettier-ignore
    spendBetween: (fromDay, toDay, teamId) =>
      rowsOf<SpendRow>(pool, `SELECT * FROM ${SPEND_READ} AS spend WHERE day >= $1 AND day <= $2 AND ($3::text IS NULL OR team_id = $3) ORDER BY day, team_id, key_id, operation`, [fromDay, toDay, teamId ?? null]), // prettier-ignore
    latencyBetween: (fromDay, toDay, teamId) =>
      rowsOf<LatencyRow>(pool, `SELECT * FROM ${LATENCY_READ} AS request_latency WHERE day >= $1 AND day <= $2 AND ($3::text IS NULL OR team_id = $3) ORDER BY day, key_id, operation, bucket`, [fromDay, toDay, teamId ?? null]), // prettier-ignore
    async dropExpiredHolds(nowMs) {
      return rowCountOf(await pool.query('DELETE FROM holds WHERE expires_ms <= $1', [nowMs]));
    },
  };
}
