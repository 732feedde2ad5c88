/**
 * The OAuth store on PostgreSQL: the same contract as SQLite's (../sqlite/oauth.ts), shared by every
 * replica, so an authorization begun on one finishes on another.
 */
import type pg from 'pg';
import type { OAuthRepo, OAuthStateRow, SealedSecret } from '../contracts/oauth.js';
import { first, rowCountOf, rowsOf } from './sql.js';

const COLUMNS = `kind, id, payload, grant_id AS "grantId", uid, user_code AS "userCode", account_id AS "accountId",
  expires_at_ms::float8 AS "expiresAtMs", consumed_at_ms::float8 AS "consumedAtMs"`;
const SECRET_COLUMNS = 'name, sealed, created_at AS "createdAt"';
const LIVE = '(expires_at_ms IS NULL OR expires_at_ms > $3)';

export function createPgOAuthRepo(pool: pg.Pool): OAuthRepo {
  const one = (where: string, params: unknown[]) =>
    first<OAuthStateRow>(pool, `SELECT ${COLUMNS} FROM oauth_state WHERE ${where} AND ${LIVE} LIMIT 1`, params);
  const getSecret = (name: string) =>
    first<SealedSecret>(pool, `SELECT ${SECRET_COLUMNS} FROM sealed_secrets WHERE name = $1`, [name]);
  return {
    async upsert(r) {
      await pool.query(
        `INSERT INTO oauth_state (kind, id, payload, grant_id, uid, user_code, account_id, expires_at_ms, consumed_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
           uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, account_id = EXCLUDED.account_id,
           expires_at_ms = EXCLUDED.expires_at_ms, consumed_at_ms = EXCLUDED.consumed_at_ms`,
        [r.kind, r.id, r.payload, r.grantId, r.uid, r.userCode, r.accountId, r.expiresAtMs, r.consumedAtMs],
      );
    },
    find: (kind, id, now) => one('kind = $1 AND id = $2', [kind, id, now]),
    findByUid: (kind, uid, now) => one('kind = $1 AND uid = $2', [kind, uid, now]),
    findByUserCode: (kind, code, now) => one('kind = $1 AND user_code = $2', [kind, code, now]),
    async consume(kind, id, at) {
      await pool.query('UPDATE oauth_state SET consumed_at_ms = $3 WHERE kind = $1 AND id = $2', [kind, id, at]);
    },
    async destroy(kind, id) {
      await pool.query('DELETE FROM oauth_state WHERE kind = $1 AND id = $2', [kind, id]);
    },
    revokeByGrantId: async (grantId) =>
      rowCountOf(await pool.query('DELETE FROM oauth_state WHERE grant_id = $1', [grantId])),
    revokeByAccount: async (accountId) =>
      rowCountOf(await pool.query('DELETE FROM oauth_state WHERE account_id = $1', [accountId])),
    revokeByTeam: async (teamId) =>
      rowCountOf(
        await pool.query('DELETE FROM oauth_state WHERE account_id IN (SELECT id FROM api_keys WHERE team_id = $1)', [
          teamId,
        ]),
      ),
    pruneExpired: async (nowMs) =>
      rowCountOf(
        await pool.query('DELETE FROM oauth_state WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= $1', [nowMs]),
      ),
    getSecret,
    async putSecretIfAbsent(secret) {
      await pool.query(
        'INSERT INTO sealed_secrets (name, sealed, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
        [secret.name, secret.sealed, secret.createdAt],
      );
      return (await getSecret(secret.name)) ?? secret;
    },
    listSecrets: () => rowsOf<SealedSecret>(pool, `SELECT ${SECRET_COLUMNS} FROM sealed_secrets ORDER BY name`),
    replaceSecret: async (name, previous, sealed) =>
      rowCountOf(
        await pool.query('UPDATE sealed_secrets SET sealed = $1 WHERE name = $2 AND sealed = $3', [
          sealed,
          name,
          previous,
        ]),
      ) > 0,
  };
}
