/**
 * The OAuth store on SQLite (migration 21): oidc-provider's models as rows of `oauth_state`, and the
 * sealed secrets of `sealed_secrets` (contract: ../contracts/oauth.ts).
 */
import type { Db } from './database.js';
import type { OAuthRepo, OAuthStateRow, SealedSecret } from '../contracts/oauth.js';

const COLUMNS = `kind, id, payload, grant_id AS grantId, uid, user_code AS userCode, account_id AS accountId,
  expires_at_ms AS expiresAtMs, consumed_at_ms AS consumedAtMs`;
const LIVE = '(expires_at_ms IS NULL OR expires_at_ms > @now)';

export function createOAuthRepo(db: Db): OAuthRepo {
  const s = {
    upsert: db.prepare(
      `INSERT OR REPLACE INTO oauth_state
         (kind, id, payload, grant_id, uid, user_code, account_id, expires_at_ms, consumed_at_ms)
       VALUES (@kind, @id, @payload, @grantId, @uid, @userCode, @accountId, @expiresAtMs, @consumedAtMs)`,
    ),
    find: db.prepare(`SELECT ${COLUMNS} FROM oauth_state WHERE kind = @kind AND id = @id AND ${LIVE}`),
    byUid: db.prepare(`SELECT ${COLUMNS} FROM oauth_state WHERE kind = @kind AND uid = @uid AND ${LIVE} LIMIT 1`),
    byUserCode: db.prepare(
      `SELECT ${COLUMNS} FROM oauth_state WHERE kind = @kind AND user_code = @code AND ${LIVE} LIMIT 1`,
    ),
    consume: db.prepare('UPDATE oauth_state SET consumed_at_ms = @at WHERE kind = @kind AND id = @id'),
    destroy: db.prepare('DELETE FROM oauth_state WHERE kind = @kind AND id = @id'),
    byGrant: db.prepare('DELETE FROM oauth_state WHERE grant_id = ?'),
    byAccount: db.prepare('DELETE FROM oauth_state WHERE account_id = ?'),
    byTeam: db.prepare('DELETE FROM oauth_state WHERE account_id IN (SELECT id FROM api_keys WHERE team_id = ?)'),
    prune: db.prepare('DELETE FROM oauth_state WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ?'),
    getSecret: db.prepare('SELECT name, sealed, created_at AS createdAt FROM sealed_secrets WHERE name = ?'),
    putSecret: db.prepare(
      'INSERT INTO sealed_secrets (name, sealed, created_at) VALUES (@name, @sealed, @createdAt) ON CONFLICT (name) DO NOTHING',
    ),
    listSecrets: db.prepare('SELECT name, sealed, created_at AS createdAt FROM sealed_secrets ORDER BY name'),
    replaceSecret: db.prepare('UPDATE sealed_secrets SET sealed = ? WHERE name = ? AND sealed = ?'),
  };
  const getSecret = async (name: string) => s.getSecret.get(name) as SealedSecret | undefined;
  return {
    upsert: async (row) => void s.upsert.run(row),
    find: async (kind, id, now) => s.find.get({ kind, id, now }) as OAuthStateRow | undefined,
    findByUid: async (kind, uid, now) => s.byUid.get({ kind, uid, now }) as OAuthStateRow | undefined,
    findByUserCode: async (kind, code, now) => s.byUserCode.get({ kind, code, now }) as OAuthStateRow | undefined,
    consume: async (kind, id, at) => void s.consume.run({ kind, id, at }),
    destroy: async (kind, id) => void s.destroy.run({ kind, id }),
    revokeByGrantId: async (grantId) => s.byGrant.run(grantId).changes,
    revokeByAccount: async (accountId) => s.byAccount.run(accountId).changes,
    revokeByTeam: async (teamId) => s.byTeam.run(teamId).changes,
    pruneExpired: async (nowMs) => s.prune.run(nowMs).changes,
    getSecret,
    async putSecretIfAbsent(secret) {
      s.putSecret.run(secret);
      return (await getSecret(secret.name)) ?? secret;
    },
    listSecrets: async () => s.listSecrets.all() as SealedSecret[],
    replaceSecret: async (name, previous, sealed) => s.replaceSecret.run(sealed, name, previous).changes > 0,
  };
}
