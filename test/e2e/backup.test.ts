/**
 * `trawl backup` and `trawl restore` as an operator runs them: the built CLI against the data directory of
 * a running `trawl serve` while `trawl import` writes to it, restored into new directories and served
 * again (counts, searches, the key), and every refusal: a damaged archive, a newer schema, a missing or
 * wrong operator key, a directory in use or not empty, and PostgreSQL.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, countSoFar, run, serve, start, until, type ServeProcess } from '../helpers/crash.js';
import { createTarWriter, listTar, extractTarEntry } from '../../src/lib/tar.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { closedPort } from '../helpers/ports.js';

const DOCS = 20_000;
const WORDS = ['undici', 'pooling', 'sqlite', 'backup', 'replica', 'postings', 'segment', 'merge', 'webhook', 'monitor', 'cursor', 'lease', 'index', 'restore', 'archive', 'checksum']; // prettier-ignore
const QUERIES = ['undici pooling', 'sqlite backup restore', 'replica lease', 'webhook monitor cursor', 'segment merge postings']; // prettier-ignore

let root: string;
let fixture: http.Server;
let fixtureUrl: string;

/** A JSONL file of `n` documents whose texts mix WORDS, so searches rank many of them differently. */
function writeRecords(file: string, n: number): void {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 12 }, (_, j) => WORDS[(i * 7 + j * ((i % 5) + 1)) % WORDS.length]).join(' ');
    lines.push(JSON.stringify({ _id: `r${i}`, url: `https://docs.example.com/r/${i}`, title: `Record ${i} ${WORDS[i % WORDS.length]}`, text: `Record ${i}: ${words}.` })); // prettier-ignore
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;
const dir = (name: string) => path.join(root, name);

async function call(base: string, key: string, route: string, body?: unknown) {
  const res = await fetch(`${base}${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Each query's result URLs and scores, in order. */
async function searches(base: string, key: string) {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const res = await call(base, key, '/search', { query, type: 'instant', numResults: 10 });
    expect(res.status).toBe(200);
    out.push((res.body.results as { url: string; score?: number }[]).map((r) => [r.url, r.score]));
  }
  return out;
}

const counts = (d: string) => ({
  documents: count(d, 'documents'),
  keys: count(d, 'api_keys'),
  monitors: count(d, 'monitors'),
});

/** Rewrites an archive's trawl.sqlite with `change`, the manifest's checksum (and `manifest` changes) made to match. */
async function rewriteArchive(
  from: string,
  to: string,
  change: (db: Database.Database) => void,
  manifest: (m: Record<string, unknown>) => void,
) {
  // prettier-ignore
  const work = fs.mkdtempSync(path.join(root, 'rewrite-'));
  const input = await fs.promises.open(from, 'r');
  const entries = await listTar(input, (await input.stat()).size);
  const files: Record<string, string> = {};
  for (const e of entries) {
    const out = await fs.promises.open(path.join(work, e.name), 'w');
    await extractTarEntry(input, e, out);
    await out.close();
    files[e.name] = path.join(work, e.name);
  }
  await input.close();
  const db = new Database(files['trawl.sqlite']!);
  change(db);
  db.close();
  const m = JSON.parse(fs.readFileSync(files['manifest.json']!, 'utf8')) as { files: { name: string; bytes: number; sha256: string }[] }; // prettier-ignore
  m.files = m.files.map((f) => ({ ...f, bytes: fs.statSync(files[f.name]!).size, sha256: sha(files[f.name]!) }));
  manifest(m as unknown as Record<string, unknown>);
  const out = await fs.promises.open(to, 'w');
  const tar = createTarWriter(out);
  for (const f of m.files) {
    const h = await fs.promises.open(files[f.name]!, 'r');
    await tar.add(f.name, h, f.bytes);
    await h.close();
  }
  await tar.addBuffer('manifest.json', Buffer.from(JSON.stringify(m)));
  await tar.end();
  await out.close();
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-backup-'));
  fixture = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><head><title>Cached page</title></head><body><main><h1>Cached page</h1><p>A page about connection pooling in undici, long enough for the extractor to keep it as the main content.</p></main></body></html>'); // prettier-ignore
  });
  await new Promise<void>((resolve) => fixture.listen(0, '127.0.0.1', resolve));
  fixtureUrl = `http://127.0.0.1:${(fixture.address() as net.AddressInfo).port}/page`;
});

afterAll(async () => {
  await new Promise((resolve) => fixture.close(resolve));
  fs.rmSync(root, { recursive: true, force: true });
});

describe('trawl backup and restore', () => {
  let source: ServeProcess;
  const live = () => dir('live');
  const env = { TRAWL_ALLOW_INSECURE_WEBHOOKS: 'true' };

  it('backs up a live directory while an import writes, restores it, and serves the same data', async () => {
    writeRecords(dir('records.jsonl'), DOCS);
    source = await serve(live(), [], { env });
    const hook = `http://127.0.0.1:${await closedPort()}/hook`;
    const created = await call(source.url, source.key, '/monitors', { search: { query: 'undici pooling', numResults: 3 }, trigger: { type: 'interval', period: '1d' }, webhook: { url: hook } }); // prettier-ignore
    expect(created.status).toBe(201);
    expect((await call(source.url, source.key, '/contents', { urls: [fixtureUrl], text: true })).status).toBe(200);

    // a backup taken while `trawl import` writes: one consistent snapshot, whatever the import had done
    const importing = start(['import', dir('records.jsonl'), '--data-dir', live(), '--progress', 'off']);
    const imported = new Promise<number | null>((resolve) => importing.once('exit', resolve));
    await until(() => countSoFar(live(), 'documents') > 0, 60_000, 'the import to write');
    const during = await run(['backup', '--to', dir('during.tar'), '--data-dir', live()]);
    expect(during.stderr).toMatch(/not included: secret\.key and first-api-key/);
    expect(during.code).toBe(0);
    expect(await imported).toBe(0);
    expect(modeOf(dir('during.tar'))).toBe(0o600);

    const midway = await run(['restore', '--from', dir('during.tar'), '--data-dir', dir('midway'), '--force']);
    expect(midway.code).toBe(0);
    const docsThen = count(dir('midway'), 'documents');
    expect(docsThen).toBeGreaterThan(0);
    expect(docsThen).toBeLessThanOrEqual(DOCS + 1);
    // the index is written in the documents' transaction, so a consistent snapshot holds both or neither
    expect(count(dir('midway'), 'search_docs')).toBe(docsThen);
    expect(midway.stdout).toMatch(new RegExp(`documents\\s+${docsThen}\\b`));

    // after the import, a backup of the still-serving directory, restored beside the operator's secret.key
    const after = await run(['backup', '--to', dir('after.tar'), '--data-dir', live()]);
    expect(after.code).toBe(0);
    expect(after.stderr).toMatch(/its \d+ sealed webhook secrets open only with it/);
    fs.mkdirSync(dir('restored'), { mode: 0o700 });
    fs.copyFileSync(path.join(live(), 'secret.key'), path.join(dir('restored'), 'secret.key'));
    const restored = await run(['restore', '--from', dir('after.tar'), '--data-dir', dir('restored')]);
    expect(restored.stderr).toMatch(/opens all \d+ sealed webhook secrets/);
    expect(restored.code).toBe(0);
    expect(fs.existsSync(path.join(dir('restored'), 'cache.sqlite'))).toBe(false); // no --with-cache
    expect(modeOf(path.join(dir('restored'), 'trawl.sqlite'))).toBe(0o600);
    expect(modeOf(dir('restored'))).toBe(0o700);

    const copy = await serve(dir('restored'), [], { env });
    try {
      expect(counts(dir('restored'))).toEqual(counts(live()));
      expect(counts(live()).documents).toBe(DOCS + 1);
      expect(counts(live()).monitors).toBe(1);
      // the operator's key, made in the first directory, works on the restored one
      expect(await searches(copy.url, source.key)).toEqual(await searches(source.url, source.key));
      const monitors = await call(copy.url, source.key, '/monitors');
      expect(monitors.status).toBe(200);
      expect((monitors.body.data as { id: string }[]).map((m) => m.id)).toEqual([(created.body as { id: string }).id]);

      // a server uses the directory: refused, the directory as it was
      const before = sha(path.join(dir('restored'), 'trawl.sqlite'));
      const busy = await run(['restore', '--from', dir('after.tar'), '--data-dir', dir('restored'), '--force']);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/is in use: a process .* has its database open/);
      expect(sha(path.join(dir('restored'), 'trawl.sqlite'))).toBe(before);
    } finally {
      await copy.stop();
    }
  }, 240_000);

  it('includes the page cache with --with-cache, and only then', async () => {
    const res = await run(['backup', '--to', dir('cache.tar'), '--data-dir', live(), '--with-cache']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/cache\.sqlite\s+\d+\s+[0-9a-f]{64}/);
    const entries = cacheRows(path.join(live(), 'cache.sqlite'));
    expect(entries).toBeGreaterThan(0);
    expect(res.stdout).toMatch(new RegExp(`cacheEntries\\s+${entries}\\b`));
    const restored = await run(['restore', '--from', dir('cache.tar'), '--data-dir', dir('with-cache'), '--force']);
    expect(restored.code).toBe(0);
    expect(cacheRows(path.join(dir('with-cache'), 'cache.sqlite'))).toBe(entries);
    expect(modeOf(path.join(dir('with-cache'), 'cache.sqlite'))).toBe(0o600);
    expect((await run(['backup', '--to', dir('cache.tar'), '--data-dir', live()])).stderr).toMatch(/exists; .*--force/);
  }, 60_000);

  it('refuses a damaged archive and leaves the directory as it was', async () => {
    const target = dir('restored');
    const before = sha(path.join(target, 'trawl.sqlite'));
    const damaged = dir('damaged.tar');
    const bytes = fs.readFileSync(dir('after.tar'));
    bytes[512 + 40_000] = bytes[512 + 40_000]! ^ 0xff; // a byte inside trawl.sqlite
    fs.writeFileSync(damaged, bytes);
    const res = await run(['restore', '--from', damaged, '--data-dir', target, '--force']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/trawl\.sqlite's SHA-256 differs from the manifest's: the archive is damaged/);
    fs.writeFileSync(dir('short.tar'), bytes.subarray(0, bytes.length / 2));
    const short = await run(['restore', '--from', dir('short.tar'), '--data-dir', target, '--force']);
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/is not a readable backup: tar: .*truncated/);
    expect(sha(path.join(target, 'trawl.sqlite'))).toBe(before);
    expect(fs.readdirSync(root).filter((name) => name.includes('.restore-'))).toEqual([]);
  }, 60_000);

  it('refuses an archive of a newer schema, naming both versions', async () => {
    const latest = MIGRATIONS.at(-1)!.version;
    await rewriteArchive(dir('after.tar'), dir('newer.tar'), (db) => db.pragma(`user_version = ${latest + 1}`), (m) => (m.schemaVersion = latest + 1)); // prettier-ignore
    const res = await run(['restore', '--from', dir('newer.tar'), '--data-dir', dir('newer')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`schema version ${latest + 1}, newer than this Trawl understands (${latest})`);
    expect(fs.existsSync(dir('newer'))).toBe(false);
  }, 60_000);

  it('says when the operator key is missing or wrong, and restores with --force saying deliveries fail', async () => {
    const missing = await run(['restore', '--from', dir('after.tar'), '--data-dir', dir('keyless')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/holds \d+ sealed webhook secrets and no operator key: neither TRAWL_SECRET_KEY is set nor .*secret\.key exists/); // prettier-ignore
    expect(fs.existsSync(dir('keyless'))).toBe(false);

    fs.mkdirSync(dir('wrong-key'), { mode: 0o700 });
    fs.writeFileSync(path.join(dir('wrong-key'), 'secret.key'), `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o600 }); // prettier-ignore
    const wrong = await run(['restore', '--from', dir('after.tar'), '--data-dir', dir('wrong-key')]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/the operator key \(.*secret\.key\) opens 0 of them/);
    expect(fs.readdirSync(dir('wrong-key'))).toEqual(['secret.key']);

    const forced = await run(['restore', '--from', dir('after.tar'), '--data-dir', dir('keyless'), '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toMatch(/WARNING: .*webhook deliveries fail/);
    expect(count(dir('keyless'), 'documents')).toBe(DOCS + 1);
  }, 60_000);

  it('refuses a directory that holds a store without --force, and PostgreSQL', async () => {
    const res = await run(['restore', '--from', dir('after.tar'), '--data-dir', dir('midway')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/--data-dir: .* is not empty \(.*trawl\.sqlite.*\); .*--force/);
    const noDir = await run(['restore', '--from', dir('after.tar')]);
    expect(noDir.code).toBe(1);
    expect(noDir.stderr).toMatch(/restore needs --data-dir DIR/);
    const pg = await run(['backup', '--to', dir('pg.tar'), '--database-url', 'postgres://trawl@127.0.0.1:1/trawl']);
    expect(pg.code).toBe(1);
    expect(pg.stderr).toMatch(/PostgreSQL.*pg_dump -Fc -n <schema>.*docs\/operations\.md#backups-and-restore/);
    expect(fs.existsSync(dir('pg.tar'))).toBe(false);
    await source.stop();
  }, 60_000);
});

function cacheRows(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM cache').pluck().get() as number;
  } finally {
    db.close();
  }
}
