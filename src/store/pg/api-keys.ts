/** The API keys repository over PostgreSQL: the same contract as `createApiKeysRepo` (SQLite). */
import type pg from 'pg';
import type { ApiKeyRow, ApiKeysRepo, KeyWithTeam } from '../contracts/api-keys.js';
import type { NewAuditRecord } from '../contracts/audit.js';

import { insertAuditPg } from './audit.js';
import { changed, inTransaction, rowsOf } from './sql.js';

/** A key for `pg_advisory_xact_lock`: replicas starting on an empty database make one first key. */
const FIRST_KEY_LOCK = 7_245_023_002;

/** One UPDATE and, when it changed a row, `audit`, in one transaction; whether it changed one. */
const audited = (pool: pg.Pool, sql: string, params: unknown[], audit: NewAuditRecord | undefined) =>
  inTransaction(pool, async (db) => {
    const done = changed(await db.query(sql, params));
    if (done) await insertAuditPg(db, audit);
    return done;
  });

const KEY_WITH_TEAM = `SELECT k.*, t.name AS team_name, t.blocked_at AS team_blocked_at, t.enterprise AS team_enterprise,
    t.zero_retention AS team_zero_retention, t.credits_micros AS team_credits_micros, t.budget_micros AS team_budget_micros
  FROM api_keys k JOIN teams t ON t.id = k.team_id`;

export function createPgApiKeysRepo(pool: pg.Pool): ApiKeysRepo {
  return {
    insertIdentity: (row, audit) =>
      inTransaction(pool, async (db) => {
        const r = await db.query(
          `INSERT INTO api_keys (id, name, hash, created_at, team_id, scopes, identity)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (identity, team_id) WHERE identity IS NOT NULL DO NOTHING`,
          [row.id, row.name, row.hash, row.created_at, row.team_id, row.scopes ?? null, row.identity],
        );
        if (changed(r)) await insertAuditPg(db, audit);
        const found = await db.query(`${KEY_WITH_TEAM} WHERE k.identity = $1 AND k.team_id = $2`, [
          row.identity,
          row.team_id,
        ]);
        return found.rows[0] as KeyWithTeam;
      }),
    async getIdentity(identity, teamId) {
      const [row] = await rowsOf<KeyWithTeam>(pool, `${KEY_WITH_TEAM} WHERE k.identity = $1 AND k.team_id = $2`, [
        identity,
        teamId,
      ]);
      return row;
    },
    insert: (row, audit) =>
      inTransaction(pool, async (db) => {
        await db.query(
          `INSERT INTO api_keys (id, name, hash, created_at, team_id, scopes, budget_micros, budget_period, qps)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [row.id, row.name, row.hash, row.created_at, row.team_id ?? 'team_default', row.scopes ?? null,
            row.budget_micros ?? null, row.budget_period ?? null, row.qps ?? null], // prettier-ignore
        );
        await insertAuditPg(db, audit);
      }),
    async getWithTeam(id) {
      const [row] = await rowsOf<KeyWithTeam>(
        pool,
        `SELECT k.*, t.name AS team_name, t.blocked_at AS team_blocked_at, t.enterprise AS team_enterprise,
           t.zero_retention AS team_zero_retention, t.credits_micros AS team_credits_micros,
           t.budget_micros AS team_budget_micros
         FROM api_keys k JOIN teams t ON t.id = k.team_id WHERE k.id = $1`,
        [id],
      );
      return row;
    },
    listOfTeam: (teamId) => rowsOf<ApiKeyRow>(pool, 'SELECT * FROM api_keys WHERE team_id = $1 ORDER BY created_at, id', [teamId]), // prettier-ignore
    // READ COMMITTED lets two `INSERT … WHERE NOT EXISTS` both see an empty table: the lock serializes them
    insertIfEmpty: (row) =>
      inTransaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [FIRST_KEY_LOCK]);
        const r = await client.query(
          `INSERT INTO api_keys (id, name, hash, created_at, scopes)
           SELECT $1, $2, $3, $4, $5 WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
          [row.id, row.name, row.hash, row.created_at, row.scopes],
        );
        return changed(r);
      }),
    async get(id) {
      const [row] = await rowsOf<ApiKeyRow>(pool, 'SELECT * FROM api_keys WHERE id = $1', [id]);
      return row;
    },
    list: () => rowsOf<ApiKeyRow>(pool, 'SELECT * FROM api_keys ORDER BY created_at, id'),
    async countActive() {
      const [row] = await rowsOf<{ n: number }>(
        pool,
        'SELECT COUNT(*)::int AS n FROM api_keys WHERE revoked_at IS NULL',
      );
      return row!.n;
    },
    revoke: (id, at, audit) =>
      audited(pool, 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id], audit),
    setScopes: (id, scopes, audit) =>
      audited(pool, 'UPDATE api_keys SET scopes = $1 WHERE id = $2 AND revoked_at IS NULL', [scopes, id], audit),
    async touch(id, at) {
      await pool.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [at, id]);
    },
  };
}
