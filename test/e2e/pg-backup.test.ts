/**
 * The PostgreSQL backup path of docs/operations.md#backups-and-restore, as an operator runs it: a Trawl
 * schema filled through the real app (`trawl import`, a monitor made over REST), `pg_dump -Fc -n`,
 * `pg_restore` into a fresh database, and `trawl serve` started on it (equal counts, equal searches, the
 * key works). Then what replicas do after a restore to an older point: a replica whose copy holds
 * documents written after the dump finds the store restored, rebuilds its copy, and misses nothing
 * written since; and log rows restored from a server whose transaction ids are ahead of this one's are
 * moved back into view. Skipped without PostgreSQL or pg_dump (CI has both).
 */
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { count, run, serve, until, type ServeProcess } from '../helpers/crash.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';

/** pg_dump and pg_restore: the server's major version's binaries when installed, else those on PATH. */
function pgBin(name: string): string | undefined {
  for (const candidate of [`/usr/lib/postgresql/15/bin/${name}`, name]) {
    if (spawnSync(candidate, ['--version'], { encoding: 'utf8' }).status === 0) return candidate;
  }
  return undefined;
}
const PG_DUMP = pgBin('pg_dump');
const PG_RESTORE = pgBin('pg_restore');

const schema = `bk_${process.pid}_${Date.now().toString(36)}`;
const restoredDb = `trawl_restore_${randomBytes(6).toString('hex')}`;
const secretKey = randomBytes(32).toString('base64');
const QUERIES = ['undici pooling', 'sqlite backup restore', 'replica lease', 'webhook monitor cursor'];
const WORDS = ['undici', 'pooling', 'sqlite', 'backup', 'replica', 'lease', 'webhook', 'monitor', 'cursor', 'restore'];

let admin: pg.Pool;
let restoredUrl: string;
const dirs: { dir: string; cleanup: () => void }[] = [];
const procs: ServeProcess[] = [];

const store = (url: string) => ['--database-url', url, '--database-schema', schema, '--secret-key', secretKey];
const newDir = () => {
  const d = tempDir('trawl-pg-backup-');
  dirs.push(d);
  return d.dir;
};

function records(file: string, from: number, n: number, extra = ''): string {
  const lines = Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const words = Array.from({ length: 10 }, (_, j) => WORDS[(i * 3 + j * ((i % 4) + 1)) % WORDS.length]).join(' ');
    return JSON.stringify({ _id: `p${i}`, url: `https://docs.example.com/p/${i}`, title: `Page ${i}`, text: `Page ${i}: ${words} ${extra}.` }); // prettier-ignore
  });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function trawl(url: string, args: string[]): Promise<string> {
  const res = await run([...args, '--data-dir', newDir(), ...store(url)]);
  if (res.code !== 0) throw new Error(`trawl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

async function startOn(url: string, dataDir: string): Promise<ServeProcess> {
  const p = await serve(dataDir, [...store(url), '--poll-ms', '250', '--allow-insecure-webhooks']);
  procs.push(p);
  return p;
}

async function call(s: ServeProcess, key: string, route: string, body?: unknown) {
  const res = await fetch(s.url + route, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function searches(s: ServeProcess, key: string, queries = QUERIES) {
  const out: unknown[] = [];
  for (const query of queries) {
    const res = await call(s, key, '/search', { query, type: 'instant', numResults: 10 });
    expect(res.status).toBe(200);
    out.push((res.body.results as { url: string; score?: number }[]).map((r) => [r.url, r.score]));
  }
  return out;
}

async function pgCounts(url: string) {
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 1 });
  try {
    const one = async (table: string) => Number((await pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    return { documents: await one('documents'), keys: await one('api_keys'), monitors: await one('monitors') };
  } finally {
    await pool.end();
  }
}

/** Waits until the replica's own copy holds as many documents as the store. */
async function caughtUp(dataDir: string, url: string): Promise<number> {
  const want = (await pgCounts(url)).documents;
  await until(() => count(dataDir, 'documents') === want, 60_000, `the replica's copy to hold ${want} documents`);
  return want;
}

function pgTool(bin: string, args: string[]): void {
  const res = spawnSync(bin, args, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${res.stderr}`);
}

const suite = pgReachable && PG_DUMP && PG_RESTORE ? describe : describe.skip;

beforeAll(async () => {
  if (!pgReachable) return;
  admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  const u = new URL(TEST_DATABASE_URL);
  u.pathname = `/${restoredDb}`;
  restoredUrl = u.toString();
});

afterAll(async () => {
  for (const p of procs) await p.stop();
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS ${restoredDb} WITH (FORCE)`);
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
  for (const d of dirs) d.cleanup();
});

suite('PostgreSQL: pg_dump, pg_restore, and replicas after a restore', () => {
  const dump = () => path.join(dirs[0]!.dir, 'trawl.pgdump');
  let first: ServeProcess;
  let firstDir: string;
  let atDump: { documents: number; keys: number; monitors: number };
  let searchesAtDump: unknown[];

  it('restores a dump into a fresh database where Trawl serves the same data', async () => {
    firstDir = newDir();
    await trawl(TEST_DATABASE_URL, ['keys', 'list']); // the schema made and migrated before a server starts on it
    first = await startOn(TEST_DATABASE_URL, firstDir);
    const work = newDir();
    await trawl(TEST_DATABASE_URL, ['import', records(path.join(work, 'a.jsonl'), 0, 400), '--progress', 'off']);
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = s.address() as net.AddressInfo;
        s.close(() => resolve(p));
      });
    });
    const monitor = await call(first, first.key, '/monitors', { search: { query: 'undici', numResults: 3 }, trigger: { type: 'interval', period: '1d' }, webhook: { url: `http://127.0.0.1:${port}/hook` } }); // prettier-ignore
    expect(monitor.status).toBe(201);
    await caughtUp(firstDir, TEST_DATABASE_URL);
    atDump = await pgCounts(TEST_DATABASE_URL);
    searchesAtDump = await searches(first, first.key);

    pgTool(PG_DUMP!, ['-Fc', '-n', schema, '-f', dump(), TEST_DATABASE_URL]);
    await admin.query(`CREATE DATABASE ${restoredDb}`);
    pgTool(PG_RESTORE!, ['--no-owner', '-d', restoredUrl, dump()]);

    const copyDir = newDir();
    const copy = await startOn(restoredUrl, copyDir);
    try {
      expect(await pgCounts(restoredUrl)).toEqual(atDump);
      expect(atDump.documents).toBe(400);
      await caughtUp(copyDir, restoredUrl);
      expect(await searches(copy, first.key)).toEqual(searchesAtDump);
      const monitors = await call(copy, first.key, '/monitors');
      expect(monitors.status).toBe(200);
      expect((monitors.body.data as { id: string }[]).map((m) => m.id)).toEqual([(monitor.body as { id: string }).id]);
    } finally {
      await copy.stop();
    }
  }, 240_000);

  it('a replica whose copy is ahead of a restored store rebuilds it, and misses nothing written after', async () => {
    const work = newDir();
    await trawl(TEST_DATABASE_URL, ['import', records(path.join(work, 'late.jsonl'), 400, 25, 'zebrafish'), '--progress', 'off']); // prettier-ignore
    await caughtUp(firstDir, TEST_DATABASE_URL);
    expect((await searches(first, first.key, ['zebrafish']))[0]).toHaveLength(10);
    await first.stop();

    // the documented restore to an older point: the schema dropped, the dump restored into it
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    pgTool(PG_RESTORE!, ['--no-owner', '-d', TEST_DATABASE_URL, dump()]);
    expect((await pgCounts(TEST_DATABASE_URL)).documents).toBe(400);

    const again = await startOn(TEST_DATABASE_URL, firstDir);
    expect(again.log()).toMatch(/the shared store was restored.*built again from the shared store/);
    await caughtUp(firstDir, TEST_DATABASE_URL);
    expect(await searches(again, first.key, ['zebrafish'])).toEqual([[]]);
    expect(await searches(again, first.key)).toEqual(searchesAtDump);
    // a write after the restore reaches this replica's copy
    await trawl(TEST_DATABASE_URL, ['import', records(path.join(work, 'after.jsonl'), 500, 3, 'aardvark'), '--progress', 'off']); // prettier-ignore
    expect(await caughtUp(firstDir, TEST_DATABASE_URL)).toBe(403);
    expect((await searches(again, first.key, ['aardvark']))[0]).toHaveLength(3);
    await again.stop();
  }, 240_000);

  it("moves log rows restored from a server ahead of this one back into the followers' view", async () => {
    // as a dump from a busier server leaves them: transaction ids this server has not reached yet
    const pool = new pg.Pool({ connectionString: restoredUrl, options: `-c search_path=${schema}`, max: 1 });
    try {
      await pool.query("UPDATE documents SET change_xid = (pg_current_xact_id()::text::bigint + 1000000000)::text::xid8"); // prettier-ignore
    } finally {
      await pool.end();
    }
    const freshDir = newDir();
    const fresh = await startOn(restoredUrl, freshDir);
    try {
      expect(fresh.log()).toMatch(/log rows restored from a server ahead of this one/);
      expect(await caughtUp(freshDir, restoredUrl)).toBe(400);
      expect(await searches(fresh, first.key)).toEqual(searchesAtDump);
    } finally {
      await fresh.stop();
    }
  }, 240_000);
});
