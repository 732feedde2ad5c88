import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CACHE_FILE, createCacheStore } from '../../src/store/sqlite/cache.js';
import { migrate, openDatabase, writeTransaction } from '../../src/store/sqlite/database.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { tempDir } from '../helpers/app.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
const dir = () => {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
};

describe('database', () => {
  it('opens in WAL mode and applies migrations once', () => {
    const d = dir();
    const db = openDatabase(d);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
    const again = openDatabase(d);
    expect(again.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    again.close();
  });

  it('applies a failing migration not at all', () => {
    const db = new Database(path.join(dir(), 'x.sqlite'));
    const migrations = [
      { version: 1, name: 'ok', sql: 'CREATE TABLE a (x INTEGER)' },
      { version: 2, name: 'bad', sql: 'CREATE TABLE b (y INTEGER); INSERT INTO nope VALUES (1);' },
    ];
    expect(() => migrate(db, migrations)).toThrow(/nope/);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
    db.close();
  });

  it('takes the write lock when a writing transaction begins, so a read-then-write cannot lose a race', () => {
    const d = dir();
    const a = openDatabase(d);
    a.exec('CREATE TABLE t (x INTEGER)');
    const b = new Database(path.join(d, 'trawl.sqlite'));
    b.pragma('busy_timeout = 0');
    const readThenWrite = () => {
      a.prepare('SELECT count(*) FROM t').get(); // the transaction reads first
      try {
        b.prepare('INSERT INTO t VALUES (2)').run(); // another connection commits meanwhile, if it can
      } catch {
        // refused: the lock is held
      }
      a.prepare('INSERT INTO t VALUES (1)').run();
    };
    // deferred (better-sqlite3's default): the other commit wins and the write is refused at once
    expect(() => a.transaction(readThenWrite)()).toThrow(/database is locked/);
    expect(a.prepare('SELECT x FROM t').pluck().all()).toEqual([2]);
    // immediate: the other connection waits (here: is refused) and this transaction's write lands
    writeTransaction(a, readThenWrite)();
    expect(a.prepare('SELECT x FROM t ORDER BY x').pluck().all()).toEqual([1, 2]);
    b.close();
    a.close();
  });

  it('refuses a database newer than this code', () => {
    const d = dir();
    const db = openDatabase(d);
    db.pragma('user_version = 99');
    db.close();
    expect(() => openDatabase(d)).toThrow(/newer than this Trawl understands/);
  });
});

describe('cache store (keyv over better-sqlite3)', () => {
  it('round-trips values, keeps namespaces and versions apart, and is shared across stores', async () => {
    const d = dir();
    const a = createCacheStore(d);
    const b = createCacheStore(d);
    await a.namespace<{ n: number }>('page', 1).set('https://x.example/', { n: 1 });
    expect(await a.namespace<{ n: number }>('page', 1).get('https://x.example/')).toEqual({ n: 1 });
    expect(await a.namespace('page', 2).get('https://x.example/')).toBeUndefined();
    expect(await a.namespace('other', 1).get('https://x.example/')).toBeUndefined();
    expect(await b.namespace<{ n: number }>('page', 1).get('https://x.example/')).toEqual({ n: 1 });
    await a.close();
    await b.close();
  });

  it('reads a cache file written by @keyv/sqlite before, and clears one namespace only', async () => {
    const d = dir();
    // the table and row as @keyv/sqlite 4 wrote them: keyv's serialized entry under the namespaced key
    const old = new Database(path.join(d, CACHE_FILE));
    old.exec('CREATE TABLE IF NOT EXISTS cache(key VARCHAR(4096) PRIMARY KEY, value TEXT )');
    old.prepare('INSERT INTO cache (key, value) VALUES (?, ?)').run('v1:page:https://x.example/', JSON.stringify({ value: { n: 7 }, expires: null })); // prettier-ignore
    old.close();
    const store = createCacheStore(d);
    expect(await store.namespace<{ n: number }>('page', 1).get('https://x.example/')).toEqual({ n: 7 });
    await store.namespace('raw', 1).set('https://x.example/', 'kept');
    await store.namespace('page', 1).clear();
    expect(await store.namespace('page', 1).get('https://x.example/')).toBeUndefined();
    expect(await store.namespace('raw', 1).get('https://x.example/')).toBe('kept');
    await store.close();
  });

  it('sweeps expired rows on a write, leaving live ones and those without an expiry', async () => {
    const d = dir();
    const store = createCacheStore(d);
    const kv = store.namespace<string>('t', 1);
    await kv.set('gone', 'v', 1);
    await kv.set('forever', 'v');
    await new Promise((r) => setTimeout(r, 20));
    const other = createCacheStore(d); // a fresh process: its first write sweeps
    await other.namespace<string>('t', 1).set('live', 'v', 60_000);
    const keys = new Database(path.join(d, CACHE_FILE), { readonly: true });
    const rows = (keys.prepare('SELECT key FROM cache ORDER BY key').all() as { key: string }[]).map((r) => r.key);
    keys.close();
    expect(rows).toEqual(['v1:t:forever', 'v1:t:live']);
    await store.close();
    await other.close();
  });

  it('expires entries after their ttl', async () => {
    const store = createCacheStore(dir());
    const kv = store.namespace<string>('t', 1);
    // Wide margins: the first open of the cache file can take tens of ms on a busy machine.
    await kv.set('k', 'v', 500);
    expect(await kv.get('k')).toBe('v');
    await new Promise((r) => setTimeout(r, 600));
    expect(await kv.get('k')).toBeUndefined();
    await store.close();
  });
});
