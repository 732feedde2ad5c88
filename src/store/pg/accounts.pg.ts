/**
 * Teams, spend and holds over PostgreSQL: the same contract as `createAccountsRepo` (SQLite). Where
 * SQLite takes the database's write lock, a transaction here locks the team's row (`FOR UPDATE`), so
 * two replicas holding money for one team take turns and never hold the same money twice; teams do not
 * wait on each other.
 */
import type pg from 'pg';
import type { AccountsRepo, HoldRequest, SpendRow, Standing, TeamRow } from '../accounts.repo.js';
import { inTransaction } from './pg-store.js';

type Run = Pick<pg.PoolClient, 'query'>;

const one = async <R extends pg.QueryResultRow>(db: Run, sql: string, params: unknown[]) =>
  (await db.query<R>(sql, params)).rows[0];
const sum = async (db: Run, sql: string, params: unknown[]) => (await one<{ m: number }>(db, sql, params))!.m;

/** The team with id or name `ref`, its row locked until the transaction ends. */
const lockTeam = (db: Run, ref: string) =>
  one<TeamRow>(db, 'SELECT * FROM teams WHERE id = $1 OR (name = $1 AND NOT EXISTS (SELECT 1 FROM teams WHERE id = $1)) FOR UPDATE', [ref]); // prettier-ignore

async function standingOf(db: Run, request: HoldRequest, row: TeamRow): Promise<Standing> {
  const { hold, nowMs, keyPeriod, periodStarts } = request;
  const teamFrom = row.budget_period ? periodStarts[row.budget_period] : undefined;
  const keyFrom = keyPeriod ? periodStarts[keyPeriod] : undefined;
  const holds = 'SELECT COALESCE(SUM(amount_micros), 0)::bigint AS m FROM holds WHERE';
  const spent = 'SELECT COALESCE(SUM(micros), 0)::bigint AS m FROM spend WHERE';
  return {
    team: row,
    teamHolds: await sum(db, `${holds} team_id = $1 AND expires_ms > $2`, [row.id, nowMs]),
    keyHolds: await sum(db, `${holds} key_id = $1 AND expires_ms > $2`, [hold.key_id, nowMs]),
    teamSpend: teamFrom ? await sum(db, `${spent} team_id = $1 AND day >= $2`, [row.id, teamFrom]) : 0,
    keySpend: keyFrom ? await sum(db, `${spent} key_id = $1 AND day >= $2`, [hold.key_id, keyFrom]) : 0,
  };
}

export function createPgAccountsRepo(pool: pg.Pool): AccountsRepo {
  return {
    async insertTeam(row) {
      await pool.query(
        `INSERT INTO teams (id, name, enterprise, zero_retention, credits_micros, budget_micros, budget_period, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [row.id, row.name, row.enterprise, row.zero_retention, row.credits_micros, row.budget_micros, row.budget_period, row.created_at], // prettier-ignore
      );
    },
    team: (id) => one<TeamRow>(pool, 'SELECT * FROM teams WHERE id = $1', [id]),
    teamByName: (name) => one<TeamRow>(pool, 'SELECT * FROM teams WHERE name = $1', [name]),
    teams: async () => (await pool.query<TeamRow>('SELECT * FROM teams ORDER BY created_at, id')).rows,
    updateTeam: (ref, edit) =>
      inTransaction(pool, async (db) => {
        const row = await lockTeam(db, ref);
        if (!row) return undefined;
        const next = edit(row);
        await db.query(
          `UPDATE teams SET blocked_at = $2, enterprise = $3, zero_retention = $4, credits_micros = $5,
             budget_micros = $6, budget_period = $7 WHERE id = $1`,
          [next.id, next.blocked_at, next.enterprise, next.zero_retention, next.credits_micros, next.budget_micros, next.budget_period], // prettier-ignore
        );
        return one<TeamRow>(db, 'SELECT * FROM teams WHERE id = $1', [next.id]);
      }),
    addCredits: (teamId, micros) =>
      one<TeamRow>(
        pool,
        'UPDATE teams SET credits_micros = COALESCE(credits_micros, 0) + $1 WHERE id = $2 RETURNING *',
        [micros, teamId],
      ),
    async holdIfAllowed(request, allow) {
      await inTransaction(pool, async (db) => {
        const row = await one<TeamRow>(db, 'SELECT * FROM teams WHERE id = $1 FOR UPDATE', [request.hold.team_id]);
        if (!row) throw new Error(`team ${request.hold.team_id} is gone`);
        allow(await standingOf(db, request, row));
        const h = request.hold;
        await db.query(
          'INSERT INTO holds (id, key_id, team_id, amount_micros, expires_ms) VALUES ($1, $2, $3, $4, $5)',
          [h.id, h.key_id, h.team_id, h.amount_micros, h.expires_ms],
        );
      });
    },
    async settle({ holdId, spend }) {
      await inTransaction(pool, async (db) => {
        if (holdId) await db.query('DELETE FROM holds WHERE id = $1', [holdId]);
        if (spend.micros === 0) return;
        await db.query(
          `INSERT INTO spend (key_id, team_id, day, operation, requests, micros) VALUES ($1, $2, $3, $4, 1, $5)
           ON CONFLICT (key_id, day, operation) DO UPDATE SET requests = spend.requests + 1,
             micros = spend.micros + excluded.micros`,
          [spend.key_id, spend.team_id, spend.day, spend.operation, spend.micros],
        );
        await db.query(
          'UPDATE teams SET credits_micros = credits_micros - $1 WHERE id = $2 AND credits_micros IS NOT NULL',
          [spend.micros, spend.team_id],
        );
      });
    },
    spendSince: async (fromDay) =>
      (await pool.query<SpendRow>('SELECT * FROM spend WHERE day >= $1 ORDER BY team_id, key_id, day, operation', [fromDay])).rows, // prettier-ignore
    async dropExpiredHolds(nowMs) {
      return (await pool.query('DELETE FROM holds WHERE expires_ms <= $1', [nowMs])).rowCount ?? 0;
    },
  };
}
