/** API keys: stored as SHA-256 hashes of the key, never the key itself. */
import { insertAudit } from './audit.js';
import type { NewAuditRecord } from '../contracts/audit.js';
import { writeTransaction, type Db } from './database.js';
import type { ApiKeyRow, KeyWithTeam, ApiKeysRepo } from '../contracts/api-keys.js';

/** The API keys repository over SQLite; each method is one statement. */
export function createApiKeysRepo(db: Db): ApiKeysRepo {
  const insert = db.prepare(
    `INSERT INTO api_keys (id, name, hash, created_at, team_id, scopes, budget_micros, budget_period, qps)
     VALUES (@id, @name, @hash, @created_at, @team_id, @scopes, @budget_micros, @budget_period, @qps)`,
  );
  const withTeam = db.prepare(
    `SELECT k.*, t.name AS team_name, t.blocked_at AS team_blocked_at, t.enterprise AS team_enterprise,
       t.zero_retention AS team_zero_retention, t.credits_micros AS team_credits_micros,
       t.budget_micros AS team_budget_micros
     FROM api_keys k JOIN teams t ON t.id = k.team_id WHERE k.id = ?`,
  );
  const insertIdentity = db.prepare(
    `INSERT OR IGNORE INTO api_keys (id, name, hash, created_at, team_id, scopes, identity)
     VALUES (@id, @name, @hash, @created_at, @team_id, @scopes, @identity)`,
  );
  const identityWithTeam = db.prepare(
    `SELECT k.*, t.name AS team_name, t.blocked_at AS team_blocked_at, t.enterprise AS team_enterprise,
       t.zero_retention AS team_zero_retention, t.credits_micros AS team_credits_micros,
       t.budget_micros AS team_budget_micros
     FROM api_keys k JOIN teams t ON t.id = k.team_id WHERE k.identity = ? AND k.team_id = ?`,
  );
  const insertFirst = db.prepare(
    `INSERT INTO api_keys (id, name, hash, created_at, scopes)
     SELECT @id, @name, @hash, @created_at, @scopes WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
  );
  const byId = db.prepare('SELECT * FROM api_keys WHERE id = ?');
  const all = db.prepare('SELECT * FROM api_keys ORDER BY created_at, id');
  const ofTeam = db.prepare('SELECT * FROM api_keys WHERE team_id = ? ORDER BY created_at, id');
  const countActive = db.prepare('SELECT COUNT(*) AS n FROM api_keys WHERE revoked_at IS NULL');
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  const setScopes = db.prepare('UPDATE api_keys SET scopes = ? WHERE id = ? AND revoked_at IS NULL');
  /** `write` and the audit record of what it changed, at once; nothing is recorded when it changed nothing. */
  const audited = (write: () => boolean, audit: NewAuditRecord | undefined) =>
    writeTransaction(db, () => {
      const changed = write();
      if (changed) insertAudit(db, audit);
      return changed;
    })();

  return {
    async insert(row, audit) {
      const values = { team_id: 'team_default', scopes: null, budget_micros: null, budget_period: null, qps: null };
      audited(() => insert.run({ ...values, ...row }).changes > 0, audit);
    },
    getWithTeam: async (id) => withTeam.get(id) as KeyWithTeam | undefined,
    listOfTeam: async (teamId) => ofTeam.all(teamId) as ApiKeyRow[],
    insertIfEmpty: async (row) => insertFirst.run(row).changes > 0,
    get: async (id) => byId.get(id) as ApiKeyRow | undefined,
    list: async () => all.all() as ApiKeyRow[],
    countActive: async () => (countActive.get() as { n: number }).n,
    revoke: async (id, at, audit) => audited(() => revoke.run(at, id).changes > 0, audit),
    setScopes: async (id, scopes, audit) => audited(() => setScopes.run(scopes, id).changes > 0, audit),
    insertIdentity: async (row, audit) =>
      writeTransaction(db, () => {
        if (insertIdentity.run({ scopes: null, ...row }).changes > 0) insertAudit(db, audit);
        return identityWithTeam.get(row.identity, row.team_id) as KeyWithTeam;
      })(),
    getIdentity: async (identity, teamId) => identityWithTeam.get(identity, teamId) as KeyWithTeam | undefined,
    async touch(id, at) {
      touch.run(at, id);
    },
  };
}
