/** API keys: stored as SHA-256 hashes of the key, never the key itself. */
import { insertAudit, type NewAuditRecord } from './audit.js';
import { writeTransaction, type Db } from './database.js';

/** A row of `api_keys`. */
export interface ApiKeyRow {
  id: string;
  name: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  team_id: string;
  /** JSON array of scopes; null: every scope (a key stored before keys were made least-privilege). */
  scopes: string | null;
  budget_micros: number | null;
  budget_period: string | null;
  /** Requests per second; null: the operator's default. */
  qps: number | null;
}

/** A key with what a request needs of its team. */
export interface KeyWithTeam extends ApiKeyRow {
  team_name: string;
  team_blocked_at: string | null;
  team_enterprise: number;
  team_zero_retention: number;
  /** The team's credits and budget: whether its requests need a hold, without reading the team again. */
  team_credits_micros: number | null;
  team_budget_micros: number | null;
}

/** A key to insert: team, scopes, budget and rate default to the team `default`, every scope, none. */
export type NewKey = Pick<ApiKeyRow, 'id' | 'name' | 'hash' | 'created_at'> &
  Partial<Pick<ApiKeyRow, 'team_id' | 'scopes' | 'budget_micros' | 'budget_period' | 'qps'>>;

/** The API keys table. */
export interface ApiKeysRepo {
  /** Inserts a key, and the audit record of its making when given, at once. */
  insert(row: NewKey, audit?: NewAuditRecord): Promise<void>;
  /** The key and its team's flags, in one read (every authenticated request does this). */
  getWithTeam(id: string): Promise<KeyWithTeam | undefined>;
  listOfTeam(teamId: string): Promise<ApiKeyRow[]>;
  /** Inserts only into an empty table (atomic), so two first starts make one key. */
  insertIfEmpty(row: Pick<ApiKeyRow, 'id' | 'name' | 'hash' | 'created_at' | 'scopes'>): Promise<boolean>;
  get(id: string): Promise<ApiKeyRow | undefined>;
  list(): Promise<ApiKeyRow[]>;
  countActive(): Promise<number>;
  /** Marks a key revoked, with its audit record; false when it does not exist or was already revoked. */
  revoke(id: string, at: string, audit?: NewAuditRecord): Promise<boolean>;
  /** Replaces an active key's scopes (JSON array), with its audit record; false when there is no such key. */
  setScopes(id: string, scopes: string, audit?: NewAuditRecord): Promise<boolean>;
  /** Records when the key was last used. */
  touch(id: string, at: string): Promise<void>;
}

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
    async touch(id, at) {
      touch.run(at, id);
    },
  };
}
