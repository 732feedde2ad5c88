/**
 * `trawl migrate`: a data directory made by the real app (keys, a team, spend and a hold, documents and
 * their embeddings, a monitor with its run and webhook deliveries, an agent run with events, an MCP task
 * and snapshot, a crawl frontier, indexed code) copied into fresh PostgreSQL schemas. Counts and rows
 * match, the webhook secrets open under the new shared key, documents and code are in the logs replicas
 * follow, a second run writes nothing, and a copy stopped part-way (by an option, or killed) ends, once
 * run again, exactly as an uninterrupted one.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { build } from 'esbuild';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMigrate } from '../../src/cli/migrate.command.js';
import { migrateToPg, type MigrateOptions } from '../../src/compose/migrate.js';
import { createSecretBox, readOperatorKeyFile } from '../../src/core/monitors/secret-box.js';
import { createAccountsRepo } from '../../src/store/sqlite/accounts.js';
import { createAgentRunsRepo } from '../../src/store/sqlite/agent-runs.js';
import { chunksOf } from '../../src/core/search/semantic.js';
import { createCrawlRepo } from '../../src/store/sqlite/crawl.js';
import { createMcpSnapshotsRepo } from '../../src/store/sqlite/mcp-snapshots.js';
import { createMcpTasksRepo } from '../../src/store/sqlite/mcp-tasks.js';
import { DATABASE_FILE } from '../../src/store/sqlite/database.js';
import { embeddedDocs } from '../../src/store/sqlite/embedded-chunks.js';
import { createOperatorJobsRepo } from '../../src/store/sqlite/operator-jobs.js';
import { COPIED_TABLES, sourceOf, targetOf, type CopiedTable } from '../../src/store/pg/copy-tables.js';
import { createPgCodeLog } from '../../src/store/pg/code-log.js';
import { createPgDocumentLog } from '../../src/store/pg/document-log.js';
import { createPgSharedEmbeddings } from '../../src/store/pg/embeddings.js';
import { PG_MIGRATIONS } from '../../src/store/migrations/index.js';
import { openPgStore } from '../../src/store/pg/database.js';
import { ROOT, makeTestApp, tempDir } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startEmbeddingsServer } from '../helpers/embeddings-server.js';
import { TEST_DATABASE_URL, pgReachable } from '../helpers/postgres.js';
import { closedPort } from '../helpers/ports.js';

const NEW_KEY = Buffer.alloc(32, 7).toString('base64');
const DOCS = 230;
const schemas: string[] = [];
let counter = 0;
let dataDir: string;
let cleanup: () => void;
let admin: pg.Pool;

/** A schema name of this test, dropped at the end. */
function schemaName(): string {
  const name = `mig_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  schemas.push(name);
  return name;
}

const migrate = (schema: string, extra: Partial<MigrateOptions> = {}) =>
  migrateToPg({ dataDir, url: TEST_DATABASE_URL, schema, secretKey: NEW_KEY, ...extra });

/** A data directory written by the app as it runs, closed before it is copied. */
async function buildDataDir(): Promise<{ dir: string; cleanup: () => void }> {
  const embeddings = await startEmbeddingsServer([
    ['undici', 'pool', 'pools'],
    ['page', 'text'],
  ]);
  const t = makeTestApp({ allowInsecureWebhooks: true, embeddingsUrl: embeddings.baseUrl, embeddingsModel: 'toy' });
  const { app } = t;
  const now = new Date().toISOString();
  const acme = await app.services.accounts.teams.create('acme', { credits: 5_000_000 }, null);
  const ci = await app.services.keys.create('ci', { teamId: acme.id, qps: 2.5 }, null);
  await app.services.keys.create('local', {}, null);
  const accounts = createAccountsRepo(app.db);
  const periodStarts = { day: now.slice(0, 10), month: `${now.slice(0, 7)}-01` };
  const hold = (id: string) => ({ id, key_id: ci.id, team_id: acme.id, amount_micros: 1500, expires_ms: Date.now() + 60_000 }); // prettier-ignore
  await accounts.holdIfAllowed({ hold: hold('hold_a'), nowMs: Date.now(), keyPeriod: null, periodStarts }, () => undefined); // prettier-ignore
  await accounts.settle({ holdId: 'hold_a', spend: { key_id: ci.id, team_id: acme.id, day: periodStarts.day, operation: 'search', micros: 700 }, latencyBucket: 21 }); // prettier-ignore
  await accounts.holdIfAllowed({ hold: hold('hold_b'), nowMs: Date.now(), keyPeriod: null, periodStarts }, () => undefined); // prettier-ignore
  // spend of a month past retention, folded into the monthly totals by a sweep
  await accounts.settle({ spend: { key_id: ci.id, team_id: acme.id, day: '2020-01-15', operation: 'search', micros: 300 }, latencyBucket: 9 }); // prettier-ignore
  await app.services.retention.sweep();

  const docs = Array.from({ length: DOCS }, (_, i) => storedDoc(`https://docs.example.com/p${String(i).padStart(3, '0')}`, `Page ${i}`, `Text of page ${i} about undici pools.`)); // prettier-ignore
  await app.services.documents.upsertMany(docs, now);
  while ((await app.services.semantic!.embedPending(100)) > 0);

  // nothing listens on a port just closed: deliveries fail and are kept, each attempt recorded
  const monitors = app.services.monitors;
  const url = `http://127.0.0.1:${await closedPort()}/hook`;
  const m = await monitors.create({ name: 'nightly', search: { query: 'undici', numResults: 3 }, trigger: { type: 'interval', period: '1d' }, webhook: { url } }, null); // prettier-ignore
  await monitors.engine.flush();
  await monitors.trigger(m.id, null);
  await monitors.engine.drain();

  const runs = createAgentRunsRepo(app.db);
  await runs.insert({ id: 'run_a', key_id: ci.id, team_id: 'team_default', request: '{"input":"compare pools"}', owner: null, lease_until_ms: null, created_at: now }, { event: 'run.created', data: '{}', at: now }); // prettier-ignore
  for (const step of ['search', 'read']) await runs.appendEvent('run_a', 'run.step', JSON.stringify({ step }), now);

  const task = { owner: ci.id, tool: 'deep_research', ttlMs: 3_600_000, pollIntervalMs: 2000, nowMs: Date.now(), worker: null, leaseUntilMs: null }; // prettier-ignore
  await createMcpTasksRepo(app.db).insert({ id: 'task_a', ...task });
  await createMcpTasksRepo(app.db).linkRun('task_a', 'run_a', Date.now());
  await createMcpSnapshotsRepo(app.db).insert({ id: 'snap_a', owner: ci.id, tool: 'web_search', argsHash: 'h', body: '{"results":[]}', createdMs: Date.now(), expiresMs: Date.now() + 600_000 }); // prettier-ignore

  // a crawl the console started, whose process stopped with it (its lease lapses: it reads interrupted)
  await createOperatorJobsRepo(app.db).insert({ id: 'opjob_a', kind: 'crawl', key_id: ci.id, team_id: acme.id, input: '{"urls":["https://docs.example.com/"]}', progress: null, owner: 'gone', lease_until_ms: Date.now() + 60_000, created_at: now, updated_at: now }); // prettier-ignore

  const crawl = createCrawlRepo(app.db);
  await crawl.createJob({ id: 'job_a', seeds: ['https://docs.example.com/'], scope: { depth: 2 } }, now);
  await crawl.enqueue('job_a', Array.from({ length: 60 }, (_, i) => ({ url: `https://docs.example.com/q${i}`, depth: 1 })), now); // prettier-ignore

  const code = tempDir('trawl-code-');
  fs.mkdirSync(path.join(code.dir, 'src'));
  fs.writeFileSync(path.join(code.dir, 'src/pool.ts'), '/** A pool of connections. */\nexport class Pool {\n  /** Sends a request on a pooled connection. */\n  request(url: string) {\n    return fetch(url);\n  }\n}\n'); // prettier-ignore
  fs.writeFileSync(path.join(code.dir, 'src/stream.ts'), '/** Streams a body to a writable. */\nexport async function pipeBody(body: AsyncIterable<Uint8Array>, out: { write(c: Uint8Array): void }) {\n  for await (const c of body) out.write(c);\n}\n'); // prettier-ignore
  await app.services.indexer.indexTree({ root: code.dir, name: 'lib' });
  code.cleanup();

  await app.close();
  await embeddings.close();
  return { dir: t.dataDir, cleanup: () => fs.rmSync(t.dataDir, { recursive: true, force: true }) };
}

/** A table's rows as comparable values keyed by their match key: SQLite's as read, PostgreSQL's as stored. */
const plainColumns = (t: CopiedTable) =>
  t.columns.filter((c) => typeof c === 'string' || !c.sql).filter((c) => !t.sealed?.includes(targetOf(c)) && !t.prepare); // prettier-ignore

function sqliteRows(db: Database.Database, t: CopiedTable): Map<string, unknown[]> {
  const cols = plainColumns(t);
  const rows = db.prepare(`SELECT * FROM ${t.name}${t.where ? ` WHERE ${t.where}` : ''}`).all() as Record<string, unknown>[]; // prettier-ignore
  const byTarget = new Map(t.columns.map((c) => [targetOf(c), sourceOf(c)]));
  return new Map(rows.map((r) => [JSON.stringify((t.match ?? t.key).map((k) => r[byTarget.get(k) ?? k])), cols.map((c) => r[sourceOf(c)])])); // prettier-ignore
}

async function pgRows(pool: pg.Pool, t: CopiedTable): Promise<Map<string, unknown[]>> {
  const cols = plainColumns(t);
  const { rows } = await pool.query<Record<string, unknown>>(`SELECT * FROM ${t.target ?? t.name}`);
  return new Map(rows.map((r) => [JSON.stringify((t.match ?? t.key).map((k) => r[k])), cols.map((c) => r[targetOf(c)])])); // prettier-ignore
}

/** Every row's xmin in the copied tables: unchanged when nothing was written. */
async function versions(pool: pg.Pool): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of [...COPIED_TABLES.map((t) => t.name), 'embedding_vectors', 'embedding_models']) {
    const { rows } = await pool.query<{ v: string }>(`SELECT xmin::text AS v FROM ${table} ORDER BY xmin::text`);
    out[table] = rows.map((r) => r.v);
  }
  return out;
}

/** The schema's pool as the app opens it (BIGINT read as numbers). */
const poolOf = async (schema: string) => (await openPgStore(TEST_DATABASE_URL, { schema, max: 2 })).pool;

beforeAll(async () => {
  if (!pgReachable) return;
  ({ dir: dataDir, cleanup } = await buildDataDir());
  admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
}, 20_000);
afterAll(async () => {
  if (!pgReachable) return;
  for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await admin.end();
  cleanup();
});

describe.skipIf(!pgReachable)('trawl migrate', () => {
  let copied: string;

  it('copies every table, rows equal, secrets sealed again under the shared key, documents in the log', async () => {
    copied = schemaName();
    const report = await migrate(copied);
    expect(report.mismatched).toEqual([]);
    const count = (name: string) => report.counts.find((c) => c.table === name)!;
    expect(count('documents')).toEqual({ table: 'documents', source: DOCS, destination: DOCS });
    // every table copied has rows to copy
    for (const t of COPIED_TABLES) expect(count(t.name).source, t.name).toBeGreaterThan(0);
    expect(report.skipped.map((s) => s.table)).toEqual(expect.arrayContaining(['rate_buckets', 'search_docs']));
    const source = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true });
    const pool = await poolOf(copied);
    try {
      for (const t of COPIED_TABLES) expect(await pgRows(pool, t), t.name).toEqual(sqliteRows(source, t));

      // sealed under the directory's secret.key, opened under the new key to the same secret
      const dirBox = createSecretBox(readOperatorKeyFile(dataDir)!);
      const newBox = createSecretBox(Buffer.from(NEW_KEY, 'base64'));
      const before = source.prepare('SELECT id, secret FROM monitors').all() as { id: string; secret: string }[];
      const { rows: after } = await pool.query<{ id: string; secret: string }>('SELECT id, secret FROM monitors');
      expect(after.map((r) => newBox.open(r.secret))).toEqual(before.map((r) => dirBox.open(r.secret)));
      expect(report.resealed).toBe(before.length + (source.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get() as { n: number }).n); // prettier-ignore

      // code chunks whole, from the compressed blocks
      const { rows: chunks } = await pool.query<{ symbol: string; code: string; doc: string | null }>("SELECT symbol, code, doc FROM code_chunks WHERE symbol = 'Pool.request'"); // prettier-ignore
      expect(chunks[0]).toMatchObject({ code: expect.stringContaining('return fetch(url)'), doc: expect.stringContaining('pooled connection') }); // prettier-ignore
      // the code log gives replicas every file with its chunks, and the source
      const codeLog = createPgCodeLog(pool);
      const { changes } = await codeLog.changesSince(null, 100);
      await codeLog.close();
      const files = changes.flatMap((c) => (c.kind === 'file' && c.file ? [c.file] : []));
      expect(files).toHaveLength(count('code_files').source);
      expect(files.reduce((n, f) => n + f.chunks.length, 0)).toBe(count('code_chunks').source);
      expect(files.every((f) => f.indexedAt > Date.now() - 600_000)).toBe(true);
      expect(changes.filter((c) => c.kind === 'source').map((c) => c.kind === 'source' && c.source.name)).toEqual([
        'lib',
      ]);

      // new ids come after the copied ones
      const { rows: seq } = await pool.query<{ next: number; max: number }>("SELECT nextval(pg_get_serial_sequence('crawl_frontier', 'id')) AS next, (SELECT MAX(id) FROM crawl_frontier) AS max"); // prettier-ignore
      expect(seq[0]!.next).toBeGreaterThan(seq[0]!.max);

      // each document's vector, found by the text a replica would embed
      expect(report.embeddings).toEqual({ vectors: DOCS, stale: 0 });
      const shared = createPgSharedEmbeddings(pool);
      const embedded = [...embeddedDocs(source)].flat();
      expect(embedded).toHaveLength(DOCS);
      const doc = source.prepare('SELECT title, text FROM documents WHERE url = ?');
      for (const e of embedded.slice(0, 20)) {
        const { title, text } = doc.get(e.url) as { title: string; text: string };
        expect(await shared.find('toy', e.dims, chunksOf(title, text)), e.url).toEqual(e.vectors);
      }
      expect(await shared.dimensionsOf('toy')).toBe(embedded[0]!.dims);

      const log = createPgDocumentLog(pool);
      const { docs } = await log.changesSince(null, 1000);
      await log.close();
      expect(docs.map((d) => d.url).sort()).toEqual((source.prepare('SELECT url FROM documents ORDER BY url').all() as { url: string }[]).map((r) => r.url)); // prettier-ignore
    } finally {
      source.close();
      await pool.end();
    }
  });

  it('writes nothing when run again, started over or not', async () => {
    const pool = await poolOf(copied);
    try {
      const before = await versions(pool);
      const again = await migrate(copied);
      expect(again.mismatched).toEqual([]);
      expect(await versions(pool)).toEqual(before);
      const restarted = await migrate(copied, { restart: true });
      expect(restarted.counts).toEqual(again.counts);
      expect(await versions(pool)).toEqual(before);
    } finally {
      await pool.end();
    }
  });

  it('goes on from where an interrupted copy stopped, to the same rows', async () => {
    const schema = schemaName();
    // 15 batches (one for each smaller table) come before the documents: this stops 3 batches into them
    await expect(migrate(schema, { batchSize: 50, stopAfterBatches: 18 })).rejects.toThrow(/stopped after 18 batches/);
    const pool = await poolOf(schema);
    const whole = await poolOf(copied);
    try {
      const { rows } = await pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM documents');
      expect(rows[0]!.n).toBeGreaterThan(0);
      expect(rows[0]!.n).toBeLessThan(DOCS);
      await expect(migrate(schema, { batchSize: 50, stopAfterBatches: 3 })).rejects.toThrow(/stopped/);
      const report = await migrate(schema, { batchSize: 50 });
      expect(report.mismatched).toEqual([]);
      for (const t of COPIED_TABLES) expect(await pgRows(pool, t), t.name).toEqual(await pgRows(whole, t));
      const vectors = 'SELECT model, dims, text_sha256, vector FROM embedding_vectors ORDER BY text_sha256';
      expect((await pool.query(vectors)).rows).toEqual((await whole.query(vectors)).rows);
      const log = createPgDocumentLog(pool);
      const { docs } = await log.changesSince(null, 1000);
      await log.close();
      expect(new Set(docs.map((d) => d.url)).size).toBe(DOCS);
    } finally {
      await pool.end();
      await whole.end();
    }
  });

  it('a migrate process killed while it copies is finished by the next run, to the same rows', async () => {
    // the CLI from source, bundled beside node_modules (its packages load from there)
    const dir = path.join(ROOT, 'node_modules/.cache', `trawl-migrate-test-${process.pid}`);
    await build({ entryPoints: ['src/cli/main.ts'], outfile: path.join(dir, 'cli.mjs'), bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'error' }); // prettier-ignore
    const schema = schemaName();
    const pool = await poolOf(schema);
    const whole = await poolOf(copied);
    try {
      const args = [path.join(dir, 'cli.mjs'), 'migrate', '--from', dataDir, '--to', TEST_DATABASE_URL, '--schema', schema, '--batch', '1', '--progress', 'off']; // prettier-ignore
      const child = spawn(process.execPath, args, { env: { ...process.env, TRAWL_SECRET_KEY: NEW_KEY }, stdio: 'ignore' }); // prettier-ignore
      const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
      // killed a few documents into the copy, one row a transaction
      const copiedDocs = async () => {
        const { rows } = await pool.query<{ n: number }>("SELECT COALESCE(MAX(copied), 0)::int AS n FROM trawl_migrate_progress WHERE table_name = 'documents'").catch(() => ({ rows: [{ n: 0 }] })); // prettier-ignore
        return rows[0]!.n;
      };
      while (child.exitCode === null && (await copiedDocs()) < 20)
        await new Promise((resolve) => setTimeout(resolve, 5));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect(await copiedDocs()).toBeLessThan(DOCS);

      const report = await migrate(schema);
      expect(report.mismatched).toEqual([]);
      for (const t of COPIED_TABLES) expect(await pgRows(pool, t), t.name).toEqual(await pgRows(whole, t));
      const log = createPgDocumentLog(pool);
      const { docs } = await log.changesSince(null, 1000);
      await log.close();
      expect(docs).toHaveLength(DOCS);
    } finally {
      await pool.end();
      await whole.end();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses, before writing anything, what it cannot copy', async () => {
    const schema = schemaName();
    await expect(migrate(schema, { secretKey: undefined })).rejects.toThrow(/needs TRAWL_SECRET_KEY/);
    await expect(migrate(schema, { url: 'mysql://u@127.0.0.1/db' })).rejects.toThrow(/postgres:\/\/ or postgresql:\/\/ URL/); // prettier-ignore
    await expect(migrate(schema, { dataDir: path.join(dataDir, 'nope') })).rejects.toThrow(/does not exist/);
    const empty = tempDir();
    try {
      await expect(migrate(schema, { dataDir: empty.dir })).rejects.toThrow(/holds no trawl\.sqlite/);
      // a directory whose secret.key is gone: no key opens its secrets, and the monitor is named
      fs.cpSync(dataDir, empty.dir, { recursive: true });
      fs.rmSync(path.join(empty.dir, 'secret.key'));
      await expect(migrate(schema, { dataDir: empty.dir })).rejects.toThrow(/webhook secret of monitor mon_\w+ opens under neither TRAWL_SECRET_KEY \(the sealed secret cannot be opened.*\) nor the data directory's secret\.key \(the data directory has no secret\.key\)/); // prettier-ignore
      const db = new Database(path.join(empty.dir, DATABASE_FILE));
      db.pragma('user_version = 99');
      db.close();
      await expect(migrate(schema, { dataDir: empty.dir })).rejects.toThrow(/schema version 99, newer than this Trawl understands/); // prettier-ignore
    } finally {
      empty.cleanup();
    }
    const { rows } = await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    expect(rows).toEqual([]);

    const unreachable = migrate(schema, { url: 'postgres://trawl:s3cret-pw@127.0.0.1:1/db' });
    await expect(unreachable).rejects.toThrow(/^PostgreSQL at postgres:\/\/trawl:\*\*\*@127\.0\.0\.1:1\/db \(schema mig_\w+\): /); // prettier-ignore
    await expect(unreachable).rejects.not.toThrow(/s3cret-pw/);

    // a database in use whose team of the same name has another id: the row and the reason are named
    const used = schemaName();
    const inUse = await openPgStore(TEST_DATABASE_URL, { schema: used });
    await inUse.pool.query("INSERT INTO teams (id, name, created_at) VALUES ('team_other', 'acme', '2026-01-01T00:00:00.000Z')"); // prettier-ignore
    await inUse.close();
    await expect(migrate(used)).rejects.toThrow(/^copying teams, its first rows: duplicate key value violates unique constraint "teams_name_key"/); // prettier-ignore

    const newer = schemaName();
    const later = await openPgStore(TEST_DATABASE_URL, { schema: newer, migrations: [...PG_MIGRATIONS, { version: 999, name: 'later', sql: 'SELECT 1' }] }); // prettier-ignore
    await later.close();
    await expect(migrate(newer)).rejects.toThrow(/schema \(version 999\) is newer than this Trawl understands/);
  });

  it('the door: a line per table, the counts, and a failure naming a table whose counts differ', async () => {
    const copy = tempDir();
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => out.push(String(s)) > 0);
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => err.push(String(s)) > 0);
    try {
      fs.cpSync(dataDir, copy.dir, { recursive: true });
      const schema = schemaName();
      const flags = { from: copy.dir, to: TEST_DATABASE_URL, schema, progress: 'lines' };
      await runMigrate(flags, { TRAWL_SECRET_KEY: NEW_KEY });
      expect(out.join('')).toMatch(/^TABLE\s+DIRECTORY\s+POSTGRESQL/);
      expect(out.join('')).toMatch(new RegExp(`\\ndocuments\\s+${DOCS}\\s+${DOCS}\\s+ok\\n`));
      expect(err.join('')).toMatch(new RegExp(`migrate documents: ${DOCS} rows, ${DOCS} written by this run`));
      expect(err.join('')).toMatch(/not copied: rate_buckets: ephemeral/);
      expect(err.join('')).toMatch(/counts match/);
      expect(err.join('')).not.toContain(NEW_KEY);

      expect(err.join('')).toMatch(new RegExp(`${DOCS} document embedding vectors in embedding_vectors\n`));

      // a key made after the copy: its table was finished, so its count differs until started over; a
      // document whose title changed since it was embedded: its vector is not copied
      const db = new Database(path.join(copy.dir, DATABASE_FILE));
      db.prepare("UPDATE documents SET title = 'Retitled' WHERE url = 'https://docs.example.com/p007'").run();
      db.prepare("INSERT INTO api_keys (id, name, hash, created_at) VALUES ('key_late', 'late', 'h', '2026-11-26T00:00:00.000Z')").run(); // prettier-ignore
      db.close();
      await expect(runMigrate(flags, { TRAWL_SECRET_KEY: NEW_KEY })).rejects.toThrow(/row counts differ for api_keys: .*--restart/); // prettier-ignore
      expect(out.join('')).toMatch(/\napi_keys\s+3\s+2\s+DIFFERS\n/);
      err.length = 0;
      await runMigrate({ ...flags, schema: schemaName() }, { TRAWL_SECRET_KEY: NEW_KEY });
      expect(err.join('')).toMatch(new RegExp(`${DOCS - 1} document embedding vectors in embedding_vectors; 1 documents changed since they were embedded`)); // prettier-ignore
      await runMigrate({ ...flags, restart: true }, { TRAWL_SECRET_KEY: NEW_KEY });
    } finally {
      vi.restoreAllMocks();
      copy.cleanup();
    }
  });
});
