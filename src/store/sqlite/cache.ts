/**
 * Caches (pages, provider answers) in keyv, in `<dataDir>/cache.sqlite`, apart from the durable store so
 * a cache can be dropped at any time. Keys carry a namespace and a version (`v1:page:<url>`), so a format
 * change invalidates old entries cleanly. keyv is loaded on first use, so commands that never touch a
 * cache start without it.
 *
 * The keyv store is an adapter over better-sqlite3, the SQLite binding the durable store already uses,
 * one connection for every namespace. (It was `@keyv/sqlite`, which needs a second SQLite binding,
 * `sqlite3`, compiled on every install: two copies of SQLite in one process.) The table is the one
 * `@keyv/sqlite` made (`cache(key VARCHAR(4096) PRIMARY KEY, value TEXT)`), so a cache file written
 * before is read as it is. Values are keyv's serialized entries, their expiry inside: keyv drops an
 * entry read after it, and a write sweeps expired rows in small batches, at most once a minute.
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import Database from 'better-sqlite3';
import type KeyvType from 'keyv';
import type { KeyvStoreAdapter } from 'keyv';
import { ensurePrivateDatabaseFile, ensurePrivateDir } from '../../lib/private-files.js';
import { cacheNamespace, FETCHED_AT_PATH, PLAIN_JSON, type CacheStore } from '../contracts/cache.js';

export const CACHE_FILE = 'cache.sqlite';

type Keyv<T> = KeyvType<T>;

const require = createRequire(import.meta.url);

/** Expired rows one sweep deletes: a short write, never a long lock on the file. */
const SWEEP_ROWS = 500;
/** Least time between two sweeps of one process (on a write). */
const SWEEP_EVERY_MS = 60_000;

const FETCHED_BEFORE = `json_valid(value) AND json_extract(value, '$.${FETCHED_AT_PATH.join('.')}') < ?`;

/** The statements of one connection to the cache file. */
function statements(db: Database.Database) {
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS cache(key VARCHAR(4096) PRIMARY KEY, value TEXT)');
  return {
    get: db.prepare<[string], { value: string }>('SELECT value FROM cache WHERE key = ?'),
    set: db.prepare<[string, string]>('INSERT OR REPLACE INTO cache (key, value) VALUES (?, ?)'),
    delete: db.prepare<[string]>('DELETE FROM cache WHERE key = ?'),
    clear: db.prepare<[{ prefix: string }]>('DELETE FROM cache WHERE substr(key, 1, length(@prefix)) = @prefix'),
    // keyv's entries are `{"value": …, "expires": ms}` (PLAIN_JSON); rows without `expires` never expire
    sweep: db.prepare<[number]>(
      `DELETE FROM cache WHERE rowid IN (SELECT rowid FROM cache WHERE json_valid(value)
         AND json_extract(value, '$.expires') <= ? LIMIT ${SWEEP_ROWS})`,
    ),
    // the page cache's retention: pages and responses fetched before a line (ISO-8601 sorts as time)
    countFetchedBefore: db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM cache WHERE ${FETCHED_BEFORE}`),
    pruneFetchedBefore: db.prepare<[string, number]>(
      `DELETE FROM cache WHERE rowid IN (SELECT rowid FROM cache WHERE ${FETCHED_BEFORE} LIMIT ?)`,
    ),
  };
}

type Statements = ReturnType<typeof statements>;

/** A keyv store adapter over the cache table; keyv hands it keys already prefixed with the namespace. */
class SqliteKeyvAdapter extends EventEmitter implements KeyvStoreAdapter {
  opts = { dialect: 'sqlite' };
  namespace?: string;

  constructor(private readonly db: { s(): Statements; wrote(): void }) {
    super();
  }

  async get<Value>(key: string): Promise<Value | undefined> {
    return this.db.s().get.get(key)?.value as Value | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<(Value | undefined)[]> {
    const s = this.db.s();
    return keys.map((key) => s.get.get(key)?.value as Value | undefined);
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async set(key: string, value: string): Promise<void> {
    this.db.s().set.run(key, value);
    this.db.wrote();
  }

  async setMany(entries: { key: string; value: string }[]): Promise<void> {
    const s = this.db.s();
    for (const e of entries) s.set.run(e.key, e.value);
    this.db.wrote();
  }

  async delete(key: string): Promise<boolean> {
    return this.db.s().delete.run(key).changes > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    const s = this.db.s();
    let any = false;
    for (const key of keys) any = s.delete.run(key).changes > 0 || any;
    return any;
  }

  /** Deletes this namespace's entries (every entry without one). */
  async clear(): Promise<void> {
    this.db.s().clear.run({ prefix: this.namespace ? `${this.namespace}:` : '' });
  }
}

/**
 * Opens the cache database lazily, on the first namespace asked for. The file and its WAL files are
 * 0600 in a 0700 directory (src/lib/private-files.ts), existing ones included.
 */
export function createCacheStore(dataDir: string): CacheStore {
  const open = new Map<string, Keyv<unknown>>();
  let connection: { db: Database.Database; s: Statements } | undefined;
  let closed = false;
  let lastSweep = 0;

  const shared = {
    s(): Statements {
      if (closed) throw new Error('The cache store is closed');
      if (!connection) {
        ensurePrivateDir(dataDir);
        const file = path.join(dataDir, CACHE_FILE);
        ensurePrivateDatabaseFile(file);
        const db = new Database(file);
        connection = { db, s: statements(db) };
      }
      return connection.s;
    },
    wrote() {
      const now = Date.now();
      if (now - lastSweep < SWEEP_EVERY_MS) return;
      lastSweep = now;
      // a failed sweep costs nothing: keyv treats expired entries as misses, and the next write tries again
      try {
        shared.s().sweep.run(now);
      } catch {
        // busy or closed: later
      }
    },
  };

  return {
    namespace<T>(name: string, version: number): Keyv<T> {
      const ns = cacheNamespace(name, version);
      let kv = open.get(ns);
      if (!kv) {
        const { Keyv } = require('keyv') as { Keyv: typeof KeyvType };
        kv = new Keyv<unknown>({ store: new SqliteKeyvAdapter(shared), namespace: ns, ...PLAIN_JSON });
        open.set(ns, kv);
      }
      return kv as Keyv<T>;
    },
    fetchedBefore: {
      count: async (lineMs) => shared.s().countFetchedBefore.get(new Date(lineMs).toISOString())!.n,
      prune: async (lineMs, limit) => ({
        rows: shared.s().pruneFetchedBefore.run(new Date(lineMs).toISOString(), limit).changes,
        partitions: [],
      }),
    },
    async close() {
      closed = true;
      open.clear();
      connection?.db.close();
      connection = undefined;
    },
  };
}
