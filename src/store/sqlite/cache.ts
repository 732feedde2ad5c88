/**
 * Caches (pages, provider answers) in keyv over `@keyv/sqlite`, in `<dataDir>/cache.sqlite`, apart
 * from the durable store so a cache can be dropped at any time. Keys carry a namespace and a version
 * (`v1:page:<url>`), so a format change invalidates old entries cleanly. keyv and its SQLite driver
 * are loaded on first use, so commands that never touch a cache start without them.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { ensurePrivateDatabaseFile, ensurePrivateDir } from '../../lib/private-files.js';
import type KeyvType from 'keyv';
import type KeyvSqliteType from '@keyv/sqlite';
import { cacheNamespace, PLAIN_JSON, type CacheStore } from '../contracts/cache.js';

export const CACHE_FILE = 'cache.sqlite';

type Keyv<T> = KeyvType<T>;

const require = createRequire(import.meta.url);
let modules: { Keyv: typeof KeyvType; KeyvSqlite: typeof KeyvSqliteType } | undefined;
function load() {
  modules ??= {
    Keyv: (require('keyv') as { Keyv: typeof KeyvType }).Keyv,
    KeyvSqlite: (require('@keyv/sqlite') as { KeyvSqlite: typeof KeyvSqliteType }).KeyvSqlite,
  };
  return modules;
}

/**
 * Opens the cache database lazily: one connection per namespace, made when first asked for. The file
 * and its WAL files are 0600 in a 0700 directory (src/lib/private-files.ts), existing ones included.
 */
export function createCacheStore(dataDir: string): CacheStore {
  const open = new Map<string, { kv: Keyv<unknown>; adapter: KeyvSqliteType }>();
  let madePrivate = false;
  return {
    namespace<T>(name: string, version: number): Keyv<T> {
      const ns = cacheNamespace(name, version);
      let entry = open.get(ns);
      if (!entry) {
        const { Keyv, KeyvSqlite } = load();
        if (!madePrivate) {
          ensurePrivateDir(dataDir);
          ensurePrivateDatabaseFile(path.join(dataDir, CACHE_FILE));
          madePrivate = true;
        }
        const adapter = new KeyvSqlite({
          uri: `sqlite://${path.join(dataDir, CACHE_FILE)}`,
          table: 'cache',
          busyTimeout: 5000,
          keySize: 4096,
        });
        void adapter.query('PRAGMA journal_mode = WAL').catch(() => undefined);
        const kv = new Keyv({ store: adapter, namespace: ns, ...PLAIN_JSON });
        entry = { kv, adapter };
        open.set(ns, entry);
      }
      return entry.kv as Keyv<T>;
    },
    async close() {
      const entries = [...open.values()];
      open.clear();
      await Promise.all(entries.map((e) => e.adapter.disconnect()));
    },
  };
}
