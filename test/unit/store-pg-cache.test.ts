// The page cache on PostgreSQL (a schema of its own per test): two stores on one schema stand for two
// replicas, so what one caches the other reads; TTLs expire for both, expired rows are swept; namespaces
// and their versions do not see each other; closing a store leaves the shared pool open.
import { afterEach, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createPgCacheStore, SWEEP_ROWS } from '../../src/store/pg/cache.js';
import { freshPgStore, pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  while (cleanups.length) await cleanups.pop()!();
});

/** A schema, and two replicas' pools on it (each replica has a pool of its own). */
async function twoReplicas() {
  const store = await freshPgStore();
  cleanups.push(store.drop);
  const other = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2, options: `-c search_path=${store.schema}` });
  cleanups.push(() => other.end());
  const a = createPgCacheStore(store.pool);
  const b = createPgCacheStore(other);
  cleanups.push(() => a.close(), () => b.close()); // prettier-ignore
  return { store, a, b };
}

const page = (url: string) => ({ page: { url, title: 'T', text: 'x'.repeat(2000) }, fetchedAt: '2026-11-26T10:00:00.000Z' }); // prettier-ignore

describe.runIf(pgReachable)('PostgreSQL cache store', () => {
  it('gives a page one replica cached to another, long keys included, and the last write wins', async () => {
    const { a, b } = await twoReplicas();
    const longUrl = `https://docs.example/${'segment/'.repeat(1000)}`; // 8 kB: more than a B-tree entry
    await a.namespace('page', 1).set(longUrl, page(longUrl));
    expect(await b.namespace('page', 1).get(longUrl)).toEqual(page(longUrl));
    expect(await b.namespace('page', 1).get('https://docs.example/other')).toBeUndefined();

    await b.namespace('page', 1).set(longUrl, { changed: true });
    expect(await a.namespace('page', 1).get(longUrl)).toEqual({ changed: true });
    expect(await a.namespace('page', 1).get([longUrl, 'https://nope.example/'])).toEqual([{ changed: true }, undefined]); // prettier-ignore
    expect(await a.namespace('page', 1).delete(longUrl)).toBe(true);
    expect(await b.namespace('page', 1).get(longUrl)).toBeUndefined();
  });

  it('expires an entry at its TTL for every replica, and sweeps expired rows away', async () => {
    const { store, a, b } = await twoReplicas();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T10:00:00.000Z'));
    await a.namespace('summary', 1).set('short', { summary: 'soon gone' }, 60_000);
    await a.namespace('summary', 1).set('forever', { summary: 'kept' });
    vi.setSystemTime(new Date('2026-11-26T10:00:59.000Z'));
    expect(await b.namespace('summary', 1).get('short')).toEqual({ summary: 'soon gone' });
    vi.setSystemTime(new Date('2026-11-26T10:01:01.000Z'));
    expect(await b.namespace('summary', 1).has('short')).toBe(false);
    expect(await b.namespace('summary', 1).get('forever')).toEqual({ summary: 'kept' });

    // rows expired and never read again go in batches, whichever replica sweeps; sweeping now (which takes
    // 'short') also keeps the write below from starting a sweep of its own in the background, whose
    // finishing before or after b's would change the counts
    await a.sweep();
    await a.namespace('summary', 1).setMany(Array.from({ length: SWEEP_ROWS + 5 }, (_, i) => ({ key: `k${i}`, value: i, ttl: 1000 }))); // prettier-ignore
    vi.setSystemTime(new Date('2026-11-26T10:02:00.000Z'));
    expect(await b.sweep()).toBe(SWEEP_ROWS);
    expect(await a.sweep()).toBe(5);
    const { rows } = await store.pool.query<{ key: string }>('SELECT key FROM cache_entries ORDER BY key');
    expect(rows.map((r) => r.key)).toEqual(['v1:summary:forever']);
  });

  it('keeps namespaces and their versions apart', async () => {
    const { a, b } = await twoReplicas();
    await a.namespace('page', 1).set('https://a.example/', 'page v1');
    await a.namespace('page', 2).set('https://a.example/', 'page v2');
    await a.namespace('raw', 1).set('https://a.example/', 'raw v1');
    expect(await b.namespace('page', 1).get('https://a.example/')).toBe('page v1');
    expect(await b.namespace('page', 2).get('https://a.example/')).toBe('page v2');
    expect(await b.namespace('raw', 1).get('https://a.example/')).toBe('raw v1');
    expect(await b.namespace('raw', 2).get('https://a.example/')).toBeUndefined();

    await b.namespace('page', 1).clear();
    expect(await a.namespace('page', 1).get('https://a.example/')).toBeUndefined();
    expect(await a.namespace('page', 2).get('https://a.example/')).toBe('page v2');
    expect(await a.namespace('raw', 1).get('https://a.example/')).toBe('raw v1');
  });

  it('closes without ending the pool it was given, and refuses use afterwards', async () => {
    const { store, a, b } = await twoReplicas();
    const kv = a.namespace<string>('page', 1);
    await kv.set('https://a.example/', 'cached');
    await a.close();
    await a.close(); // twice is fine
    expect(() => a.namespace('page', 1)).toThrow(/cache store is closed/);
    expect(await kv.get('https://a.example/')).toBeUndefined(); // keyv reads a failed store as a miss
    expect((await store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM cache_entries')).rows).toEqual([{ n: 1 }]); // prettier-ignore
    expect(await b.namespace('page', 1).get('https://a.example/')).toBe('cached');
  });
});
