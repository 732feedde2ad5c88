// The PostgreSQL store's migrations on a real server (a schema of its own per test): applied once when
// several processes start together, again as a no-op, and refused on a schema newer than the code.
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { DocumentRecord } from '../../src/store/contracts/documents.js';
import { createPgDocumentLog } from '../../src/store/pg/document-log.js';
import { createPgDocumentsRepo } from '../../src/store/pg/documents.js';
import { connectPg, migratePg, openPgStore } from '../../src/store/pg/database.js';
import { PG_MIGRATIONS } from '../../src/store/migrations/index.js';
import { inTransaction } from '../../src/store/pg/sql.js';
import { channelSql, createLogListener } from '../../src/store/pg/change-log.js';
import { TEST_DATABASE_URL, freshPgStore, pgReachable } from '../helpers/postgres.js';

const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (drops.length) await drops.pop()!();
});

describe.runIf(pgReachable)('PostgreSQL store', () => {
  it('outlives the server ending its idle connections (as a restart does): the next query opens a new one', async () => {
    const pool = connectPg(TEST_DATABASE_URL, { schema: 'public', max: 1 });
    drops.push(() => pool.end());
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(pool.idleCount).toBe(1);
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await admin.end();
    // the idle connection hears the termination and leaves the pool; unheard, its 'error' ends the process
    while (pool.idleCount > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const again = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(again.rows[0]!.pid).not.toBe(rows[0]!.pid);
  });

  it('outlives the server ending a connection inside a transaction, between two statements', async () => {
    const pool = connectPg(TEST_DATABASE_URL, { schema: 'public', max: 1 });
    drops.push(() => pool.end());
    const done = inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await admin.end();
      // until the client has read the server's goodbye (no statement running: it is an 'error' event)
      const state = client as unknown as { _queryable: boolean };
      while (state._queryable) await new Promise((resolve) => setTimeout(resolve, 10));
      await client.query('SELECT 1');
    });
    await expect(done).rejects.toThrow();
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('applies each migration once when replicas start together, and again as a no-op', async () => {
    const first = await freshPgStore();
    drops.push(first.drop);
    const version = async () =>
      (await first.pool.query('SELECT version FROM trawl_schema')).rows as { version: number }[];
    expect(await version()).toEqual([{ version: PG_MIGRATIONS.at(-1)!.version }]);
    // four more "replicas" on the same schema at once, then one more later
    const more = await Promise.all(Array.from({ length: 4 }, () => openPgStore(TEST_DATABASE_URL, { schema: first.schema, max: 1 }))); // prettier-ignore
    for (const s of more) await s.close();
    await migratePg(first.pool, PG_MIGRATIONS);
    expect(await version()).toEqual([{ version: PG_MIGRATIONS.at(-1)!.version }]);
    const teams = await first.pool.query('SELECT id FROM teams');
    expect(teams.rows).toEqual([{ id: 'team_default' }]);
  });

  it('creates a new schema once when replicas start on it together', async () => {
    const schema = `together_${process.pid}_${Date.now().toString(36)}`;
    const stores = await Promise.all(Array.from({ length: 6 }, () => openPgStore(TEST_DATABASE_URL, { schema, max: 1 }))); // prettier-ignore
    drops.push(async () => {
      await stores[0]!.pool.query(`DROP SCHEMA ${schema} CASCADE`);
      for (const s of stores) await s.close();
    });
    const { rows } = await stores[0]!.pool.query('SELECT version FROM trawl_schema');
    expect(rows).toEqual([{ version: PG_MIGRATIONS.at(-1)!.version }]);
  });

  it('refuses a schema newer than it knows, saying so', async () => {
    const store = await freshPgStore();
    drops.push(store.drop);
    await store.pool.query('UPDATE trawl_schema SET version = version + 1');
    await expect(openPgStore(TEST_DATABASE_URL, { schema: store.schema, max: 1 })).rejects.toThrow(
      /is newer than this Trawl understands.*upgrade Trawl/,
    );
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openPgStore(TEST_DATABASE_URL, { schema: 'x; DROP TABLE y' })).rejects.toThrow(
      /Invalid PostgreSQL schema name/,
    );
  });

  it('gives the document log in an order no later write lands behind, held back by a transaction still open', async () => {
    const store = await freshPgStore();
    drops.push(store.drop);
    const docs = createPgDocumentsRepo(store.pool);
    const log = createPgDocumentLog(store.pool);
    const doc = (url: string, text: string): DocumentRecord => ({ url, title: url, text, author: null, publishedDate: null, kind: 'html', metadata: {}, origin: 'fetch', collection: null, contentHash: text, fetchedAt: 'T' }); // prettier-ignore
    const urls = (r: { docs: { url: string }[] }) => r.docs.map((d) => d.url);
    // a transaction open elsewhere in the database (another test file's) holds the log back a moment
    const readAtLeast = async (after: Parameters<typeof log.changesSince>[0], limit: number, n: number) => {
      for (let tries = 0; ; tries++) {
        const got = await log.changesSince(after, limit);
        if (got.docs.length >= n || tries > 200) return got;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await docs.upsert(doc('https://a.example/1', 'one'), 'T1');
    await docs.upsert(doc('https://a.example/2', 'two'), 'T1');
    const first = await readAtLeast(null, 10, 2);
    expect(urls(first)).toEqual(['https://a.example/1', 'https://a.example/2']);
    // a writer that took its transaction id and sequence number first, and commits last
    const slow = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${store.schema}` });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      await slow.query(
        `INSERT INTO documents (url, title, text, kind, metadata, origin, content_hash, fetched_at, updated_at)
         VALUES ('https://a.example/slow', 's', 's', 'html', '{}', 'fetch', 's', 'T', 'T2')`,
      );
      await docs.upsert(doc('https://a.example/fast', 'fast'), 'T2'); // commits at once, behind the open one
      await docs.upsert(doc('https://a.example/1', 'one, again'), 'T2');
      const held = await log.changesSince(first.next, 10);
      expect(urls(held)).toEqual([]); // nothing after a transaction that may still write before it
      expect(held.next).toEqual(first.next);
      await slow.query('COMMIT');
    } finally {
      await slow.end();
    }
    const rest = await readAtLeast(first.next, 2, 2);
    expect(urls(rest)).toEqual(['https://a.example/slow', 'https://a.example/fast']);
    const last = await readAtLeast(rest.next, 10, 1);
    expect(last.docs.map((d) => [d.url, d.text])).toEqual([['https://a.example/1', 'one, again']]);
    expect(urls(await log.changesSince(last.next, 10))).toEqual([]);
  });

  it(
    'misses no write made before its first wait listened: that wait returns at once, later ones on a commit',
    { timeout: 30_000 },
    async () => {
      const store = await freshPgStore();
      drops.push(store.drop);
      const docs = createPgDocumentsRepo(store.pool);
      const log = createPgDocumentLog(store.pool);
      drops.push(() => log.close());
      const doc = (url: string): DocumentRecord => ({ url, title: url, text: url, author: null, publishedDate: null, kind: 'html', metadata: {}, origin: 'fetch', collection: null, contentHash: url, fetchedAt: 'T' }); // prettier-ignore
      // a follower read the log, then a write committed before its LISTEN was made: no one heard it, so the
      // first wait (a timeout longer than this test's) must return at once for the follower to read again
      expect((await log.changesSince(null, 10)).docs).toEqual([]);
      await docs.upsert(doc('https://a.example/before-listen'), 'T1');
      await log.changed(600_000);
      // from here a commit is what wakes a wait
      const waiting = log.changed(600_000);
      await docs.upsert(doc('https://a.example/after-listen'), 'T2');
      await waiting;
    },
  );
});

describe.runIf(pgReachable)('PostgreSQL log listener', () => {
  it('outlives the server ending its LISTEN connection, and listens again on a new one at the next wait', async () => {
    const store = await freshPgStore();
    drops.push(() => store.drop());
    const listener = createLogListener(store.pool, channelSql('documents'));
    drops.push(() => listener.close());
    const channel = `trawl_documents_${store.schema}`;
    const listening = async () =>
      (await store.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE query = $1', [`LISTEN "${channel}"`])).rows; // prettier-ignore
    await listener.changed(10); // the first wait makes the connection and returns at once
    const [before] = await listening();
    expect(before).toBeDefined();
    await store.pool.query('SELECT pg_terminate_backend($1)', [before!.pid]);
    // unheard, the connection's 'error' (57P01) ends the process; heard, the next wait listens anew. The
    // client hears it on its own time (after the backend has left pg_stat_activity, on a busy machine
    // later still), so waits go on until one has listened again
    while ((await listening()).length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    let after = await listening();
    for (const until = Date.now() + 10_000; after.length === 0 && Date.now() < until; after = await listening()) {
      await listener.changed(10);
    }
    expect(after).toHaveLength(1);
    expect(after[0]!.pid).not.toBe(before!.pid);
    // and a commit's notification wakes a wait on the new connection
    const woken = listener.changed(60_000);
    await store.pool.query(`SELECT pg_notify($1, '')`, [channel]);
    await woken;
  });
});
