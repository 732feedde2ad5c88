// Replicas following the PostgreSQL document log into their own SQLite store and search index: what one
// writes, another finds; a replica that stops resumes from its saved place, missing and repeating
// nothing; an update replaces the local copy; ranking is that of an index built directly.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDocumentFollower } from '../../../src/core/replica/document-follower.js';
import { createSearchIndex } from '../../../src/core/search/search-index.js';
import { localWrites } from '../../../src/core/documents/write-path.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/database.js';
import { createDocumentsRepo } from '../../../src/store/sqlite/documents.js';
import { createPgDocumentLog } from '../../../src/store/pg/document-log.js';
import { createPgDocumentsRepo } from '../../../src/store/pg/documents.js';
import { storedDoc } from '../../helpers/documents.js';
import { freshPgStore, pgReachable } from '../../helpers/postgres.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A replica's local SQLite store and search index, in a temp dir. */
function replica() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-replica-'));
  const db: Db = openDatabase(dir);
  const stored = createDocumentsRepo(db);
  const index = createSearchIndex(db, stored);
  cleanups.push(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { db, stored, index, local: localWrites(db, stored, index) };
}

const doc = (n: number, text: string) => storedDoc(`https://docs.example/${n}`, `Page ${n}`, text);
const WORDS = 'undici pooling sockets retries backoff timeouts keepalive pipelining'.split(' ');
const textOf = (n: number) => Array.from({ length: 12 }, (_, k) => WORDS[(n * 3 + k * k) % WORDS.length]).join(' ');

/** Catches up until `n` documents are applied (a transaction open in another test file holds the log back a moment). */
async function appliedAtLeast(follower: { catchUp(): Promise<number> }, n: number): Promise<number> {
  let total = 0;
  for (let tries = 0; total < n && tries < 200; tries++) {
    total += await follower.catchUp();
    if (total < n) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return total;
}

describe.runIf(pgReachable)('document follower', () => {
  it('copies what one replica writes into another’s index, resumes from its place, and ranks as a direct build', async () => {
    const store = await freshPgStore();
    cleanups.push(store.drop);
    const shared = createPgDocumentsRepo(store.pool);
    const log = createPgDocumentLog(store.pool);
    const b = replica();
    let follower = createDocumentFollower(b.db, log, b.local, { batch: 7 });

    await shared.upsertMany(
      Array.from({ length: 20 }, (_, n) => doc(n, textOf(n))),
      '2026-11-26T10:00:00.000Z',
    );
    expect(await appliedAtLeast(follower, 20)).toBe(20);
    expect(await b.stored.count()).toBe(20);
    expect(b.index.count()).toBe(20);

    // more writes while the replica is stopped: a new follower on the same store resumes from its place
    await shared.upsertMany(
      Array.from({ length: 5 }, (_, n) => doc(20 + n, textOf(20 + n))),
      '2026-11-26T10:05:00.000Z',
    );
    await shared.upsert(doc(3, 'zebra crossing'), '2026-11-26T10:06:00.000Z'); // an update
    follower = createDocumentFollower(b.db, log, b.local, { batch: 7 });
    expect(await appliedAtLeast(follower, 6)).toBe(6);
    expect(await follower.catchUp()).toBe(0);
    expect(await b.stored.count()).toBe(25);
    expect(b.index.count()).toBe(25);
    expect((await b.stored.get('https://docs.example/3'))!).toMatchObject({ text: 'zebra crossing', updatedAt: '2026-11-26T10:06:00.000Z' }); // prettier-ignore
    const found = b.index.search('zebra', { limit: 5 });
    expect([...b.index.urls(found.map((h) => h.id)).values()]).toEqual(['https://docs.example/3']);

    // the same documents written directly into a fresh store rank the same
    const direct = replica();
    for await (const d of shared.all()) await direct.local.upsertMany([d], d.updatedAt);
    // each index merged (the replaced version's tombstone dropped), read by a fresh reader (exact averages),
    // deeper than the 25 documents, so that no tie is cut at the limit
    const ranked = (r: ReturnType<typeof replica>, q: string) => {
      r.index.repo.mergeAll();
      const reader = createSearchIndex(r.db, r.stored);
      const hits = reader.search(q, { limit: 30 });
      const urls = reader.urls(hits.map((h) => h.id));
      // ties are broken by the index's own ids, which differ between the two: compare ties by URL
      return hits
        .map((h) => `${h.score.toFixed(9)} ${urls.get(h.id)}`)
        .sort()
        .reverse();
    };
    for (const q of ['undici pooling', 'retries backoff timeouts', 'keepalive'])
      expect(ranked(b, q)).toEqual(ranked(direct, q));
  });

  it('runs on, woken by the writer’s notification, not by its poll', async () => {
    const store = await freshPgStore();
    cleanups.push(store.drop);
    const shared = createPgDocumentsRepo(store.pool);
    const log = createPgDocumentLog(store.pool);
    cleanups.push(() => log.close());
    const b = replica();
    const follower = createDocumentFollower(b.db, log, b.local);
    const stop = new AbortController();
    // a poll far longer than the goal: only the notification can make it in time
    const running = follower.run({ pollMs: 30_000, signal: stop.signal });
    cleanups.push(async () => {
      stop.abort();
      await running;
    });
    const found = async (word: string) => b.index.search(word, { limit: 1 }).length > 0;
    for (const [n, word] of [
      [1, 'aardvark'],
      [2, 'bandicoot'],
      [3, 'capybara'],
    ] as const) {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the follower waiting again
      const t = performance.now();
      await shared.upsert(doc(n, `a page about the ${word}`), '2026-11-26T11:00:00.000Z');
      // far sooner than the 30 s poll (how soon is bench material, not a test's)
      while (!(await found(word))) {
        if (performance.now() - t > 5000) throw new Error(`${word} not searchable after 5 s: the notification went unheard`); // prettier-ignore
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    stop.abort();
    await running; // stops at once, not after the poll
  });
});
