/**
 * The page and answer caches on PostgreSQL: the `CacheStore` of cache.ts over a keyv store adapter on
 * the app's pool, so a page one replica fetched is a cache hit on every other. Entries live in the
 * store's schema (`cache_entries`, PostgreSQL migration 10), keyed by the SHA-256 of the keyv key.
 *
 * Why not `@keyv/postgres` (2.2.3, the release line for keyv 5): it keeps one module-wide pool per URL
 * that its `disconnect()` ends, so it can neither use the app's pool nor close one namespace without
 * cutting off every other user of that URL in the process, and it creates its table at run time
 * instead of in a migration.
 *
 * Expiry is keyv's: a value carries its `expires` and keyv drops it when read late. The adapter also
 * keeps the time in a column, so an expired row is a miss whoever reads it, and deletes expired rows in
 * small batches (at most once a minute per process, on a write), so a shared table does not keep every
 * entry that was ever given a TTL.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type pg from 'pg';
import type KeyvType from 'keyv';
import type { KeyvStoreAdapter } from 'keyv';
import { FETCHED_AT_PATH, PLAIN_JSON, cacheNamespace, type CacheStore } from '../contracts/cache.js';
import { changed, rowCountOf } from './sql.js';

/** A `CacheStore` on PostgreSQL, with the sweep of expired entries it also runs by itself. */
export interface PgCacheStore extends CacheStore {
  /** Deletes up to `SWEEP_ROWS` expired entries (of any replica); returns how many went. */
  sweep(): Promise<number>;
}

/** Expired rows deleted by one sweep: a short statement, whichever replica runs it. */
export const SWEEP_ROWS = 1000;
/** Least time between two sweeps a process starts by itself (on a write). */
const SWEEP_EVERY_MS = 60_000;

const NOT_EXPIRED = '(expires_ms IS NULL OR expires_ms > $2)';
const UPSERT = `INSERT INTO cache_entries (key_hash, key, value, expires_ms)
  SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[], $4::bigint[])
  ON CONFLICT (key_hash) DO UPDATE SET key = excluded.key, value = excluded.value, expires_ms = excluded.expires_ms`;
// SKIP LOCKED: replicas sweeping at once take different rows instead of waiting on each other
const SWEEP = `DELETE FROM cache_entries WHERE key_hash IN (SELECT key_hash FROM cache_entries
  WHERE expires_ms <= $1 ORDER BY expires_ms LIMIT ${SWEEP_ROWS} FOR UPDATE SKIP LOCKED)`;

// the page cache's retention: pages and responses fetched before a line (ISO-8601 sorts as time); every
// value is keyv's JSON (PLAIN_JSON)
const FETCHED_BEFORE = `(value::jsonb #>> '{${FETCHED_AT_PATH.join(',')}}') < $1`;
const COUNT_FETCHED_BEFORE = `SELECT COUNT(*)::int AS n FROM cache_entries WHERE ${FETCHED_BEFORE}`;
const PRUNE_FETCHED_BEFORE = `DELETE FROM cache_entries WHERE key_hash IN (SELECT key_hash FROM cache_entries
  WHERE ${FETCHED_BEFORE} LIMIT $2 FOR UPDATE SKIP LOCKED)`;

const hashOf = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();
const expiresOf = (ttl: number | undefined): number | null =>
  typeof ttl === 'number' && ttl > 0 ? Date.now() + ttl : null;

const require = createRequire(import.meta.url);

/** What the adapters of one store share: the pool, whether the store is open, the sweep. */
interface Shared {
  query<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<pg.QueryResult<R>>;
  wrote(): void;
}

/** A keyv store adapter over `cache_entries`; keyv gives it keys already prefixed with the namespace. */
class PgKeyvAdapter extends EventEmitter implements KeyvStoreAdapter {
  opts = { dialect: 'postgres' };
  namespace?: string;

  constructor(private readonly db: Shared) {
    super();
  }

  async get<Value>(key: string): Promise<Value | undefined> {
    const { rows } = await this.db.query<{ value: string }>(
      `SELECT value FROM cache_entries WHERE key_hash = $1 AND ${NOT_EXPIRED}`,
      [hashOf(key), Date.now()],
    );
    return rows[0]?.value as Value | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<(Value | undefined)[]> {
    const hashes = keys.map(hashOf);
    const { rows } = await this.db.query<{ key_hash: Buffer; value: string }>(
      `SELECT key_hash, value FROM cache_entries WHERE key_hash = ANY($1::bytea[]) AND ${NOT_EXPIRED}`,
      [hashes, Date.now()],
    );
    const found = new Map(rows.map((r) => [r.key_hash.toString('hex'), r.value]));
    return hashes.map((h) => found.get(h.toString('hex')) as Value | undefined);
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async set(key: string, value: string, ttl?: number): Promise<void> {
    await this.setMany([{ key, value, ttl }]);
  }

  async setMany(entries: { key: string; value: string; ttl?: number }[]): Promise<void> {
    // the last write of a key wins, as one statement cannot update a row twice
    const byKey = new Map(entries.map((e) => [e.key, e]));
    const list = [...byKey.values()];
    await this.db.query(UPSERT, [
      list.map((e) => hashOf(e.key)),
      list.map((e) => e.key),
      list.map((e) => e.value),
      list.map((e) => expiresOf(e.ttl)),
    ]);
    this.db.wrote();
  }

  async delete(key: string): Promise<boolean> {
    return this.deleteMany([key]);
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    return changed(
      await this.db.query('DELETE FROM cache_entries WHERE key_hash = ANY($1::bytea[])', [keys.map(hashOf)]),
    );
  }

  /** Deletes this namespace's entries (every entry without one). */
  async clear(): Promise<void> {
    await this.db.query('DELETE FROM cache_entries WHERE starts_with(key, $1)', [
      this.namespace ? `${this.namespace}:` : '',
    ]);
  }
}

/**
 * The caches of this process in the PostgreSQL schema of `pool` (its `search_path`), shared with every
 * replica on that schema. `close()` stops this store's use of the pool and waits for a running sweep;
 * the pool is the caller's and stays open. A call after `close()` throws (keyv reads it as a miss).
 */
export function createPgCacheStore(pool: pg.Pool): PgCacheStore {
  const open = new Map<string, KeyvType<unknown>>();
  let closed = false;
  let lastSweep = 0;
  let sweeping: Promise<unknown> | null = null;

  const db: Shared = {
    query(sql, values) {
      if (closed) return Promise.reject(new Error('The PostgreSQL cache store is closed'));
      return pool.query(sql, values);
    },
    wrote() {
      if (sweeping || Date.now() - lastSweep < SWEEP_EVERY_MS) return;
      // a failed sweep costs nothing: expired rows are misses anyway, and the next write tries again
      sweeping = store.sweep().catch(() => undefined).finally(() => (sweeping = null)); // prettier-ignore
    },
  };

  const store: PgCacheStore = {
    namespace<T>(name: string, version: number) {
      if (closed) throw new Error('The PostgreSQL cache store is closed');
      const ns = cacheNamespace(name, version);
      let kv = open.get(ns);
      if (!kv) {
        const { Keyv } = require('keyv') as { Keyv: typeof KeyvType }; // on first use, as in cache.ts
        kv = new Keyv<unknown>({ store: new PgKeyvAdapter(db), namespace: ns, ...PLAIN_JSON });
        open.set(ns, kv);
      }
      return kv as KeyvType<T>;
    },
    fetchedBefore: {
      async count(lineMs) {
        return (await db.query<{ n: number }>(COUNT_FETCHED_BEFORE, [new Date(lineMs).toISOString()])).rows[0]!.n;
      },
      async prune(lineMs, limit) {
        const deleted = await db.query(PRUNE_FETCHED_BEFORE, [new Date(lineMs).toISOString(), limit]);
        return { rows: rowCountOf(deleted), partitions: [] };
      },
    },
    async sweep() {
      lastSweep = Date.now();
      return rowCountOf(await db.query(SWEEP, [lastSweep]));
    },
    async close() {
      closed = true;
      open.clear();
      await sweeping;
    },
  };
  return store;
}
