/** API keys: stored as SHA-256 hashes of the key, never the key itself. */
import type { Db } from './database.js';

export interface ApiKeyRow {
  id: string;
  name: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function createApiKeysRepo(db: Db) {
  const insert = db.prepare(
    'INSERT INTO api_keys (id, name, hash, created_at) VALUES (@id, @name, @hash, @created_at)',
  );
  const insertFirst = db.prepare(
    `INSERT INTO api_keys (id, name, hash, created_at)
     SELECT @id, @name, @hash, @created_at WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
  );
  const byId = db.prepare('SELECT * FROM api_keys WHERE id = ?');
  const all = db.prepare('SELECT * FROM api_keys ORDER BY created_at, id');
  const countActive = db.prepare('SELECT COUNT(*) AS n FROM api_keys WHERE revoked_at IS NULL');
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');

  return {
    insert(row: Pick<ApiKeyRow, 'id' | 'name' | 'hash' | 'created_at'>): void {
      insert.run(row);
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
