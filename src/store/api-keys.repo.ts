/** API keys: stored as SHA-256 hashes of the key, never the key itself. */
import type { Db } from './database.js';

export interface ApiKeyRow {
  id: string;
  name: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  team_id: string;
  /** JSON array of scopes; null: every scope. */
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
}

type NewKey = Pick<ApiKeyRow, 'id' | 'name' | 'hash' | 'created_at'> &
  Partial<Pick<ApiKeyRow, 'team_id' | 'scopes' | 'budget_micros' | 'budget_period' | 'qps'>>;

export function createApiKeysRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO api_keys (id, name, hash, created_at, team_id, scopes, budget_micros, budget_period, qps)
     VALUES (@id, @name, @hash, @created_at, @team_id, @scopes, @budget_micros, @budget_period, @qps)`,
  );
  const withTeam = db.prepare(
    `SELECT k.*, t.name AS team_name, t.blocked_at AS team_blocked_at, t.enterprise AS team_enterprise,
       t.zero_retention AS team_zero_retention
     FROM api_keys k JOIN teams t ON t.id = k.team_id WHERE k.id = ?`,
  );
  const insertFirst = db.prepare(
    `INSERT INTO api_keys (id, name, hash, created_at)
     SELECT @id, @name, @hash, @created_at WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
  );
  const byId = db.prepare('SELECT * FROM api_keys WHERE id = ?');
  const all = db.prepare('SELECT * FROM api_keys ORDER BY created_at, id');
  const ofTeam = db.prepare('SELECT * FROM api_keys WHERE team_id = ? ORDER BY created_at, id');
  const countActive = db.prepare('SELECT COUNT(*) AS n FROM api_keys WHERE revoked_at IS NULL');
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');

  return {
    insert(row: NewKey): void {
      insert.run({
        team_id: 'team_default',
        scopes: null,
        budget_micros: null,
        budget_period: null,
        qps: null,
        ...row,
      });
    },
    /** The key and its team's flags, in one read (every authenticated request does this). */
    getWithTeam(id: string): KeyWithTeam | undefined {
      return withTeam.get(id) as KeyWithTeam | undefined;
    },
    listOfTeam(teamId: string): ApiKeyRow[] {
      return ofTeam.all(teamId) as ApiKeyRow[];
    },
    /** Inserts only into an empty table (atomic), so two first starts make one key. */
    insertIfEmpty(row: Pick<ApiKeyRow, 'id' | 'name' | 'hash' | 'created_at'>): boolean {
      return insertFirst.run(row).changes > 0;
    },
    get(id: string): ApiKeyRow | undefined {
      return byId.get(id) as ApiKeyRow | undefined;
    },
    list(): ApiKeyRow[] {
      return all.all() as ApiKeyRow[];
    },
    countActive(): number {
      return (countActive.get() as { n: number }).n;
    },
    /** Marks a key revoked; false when it does not exist or was already revoked. */
    revoke(id: string, at: string): boolean {
      return revoke.run(at, id).changes > 0;
    },
    touch(id: string, at: string): void {
      touch.run(at, id);
    },
  };
}
export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;
