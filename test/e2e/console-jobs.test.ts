/**
 * The console's operator jobs through the real HTTP door, on SQLite and PostgreSQL: a crawl of a loopback
 * site goes from running to completed with its counts and frontier (failures by reason); an uploaded JSONL
 * file is imported and searchable; a code index of a temporary folder shows in /status's code counts. Bad
 * input is 400 naming the field (413 past the upload limit, 415 for another media type), a key without
 * `admin` is 403, an unknown job 404; another replica of a PostgreSQL store reads a job the same; a job
 * whose process died reads interrupted, and the server's shutdown interrupts the jobs it runs.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openApp } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { startHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/logger.js';
import { BACKENDS, startServerOn } from '../helpers/backend-server.js';
import { callJson, tempDir, type TestServer } from '../helpers/app.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const IMPORT_LIMIT = 4096;

const page = (title: string, links: string[]) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>` +
  `<p>${title} explains how the wharfinger ledger is kept, with enough words to be a page worth storing.</p>` +
  `<p>It covers the configuration, the common mistakes and how to check that everything works.</p>` +
  links.map((l) => `<a href="${l}">${l}</a>`).join(' ') +
  '</main></body></html>';

/** A small site: / links to /a and /b, /a to /c and a missing page; /hang never answers. */
async function startSite(): Promise<{ url: string; close(): Promise<void> }> {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    const pages: Record<string, string> = {
      '/': page('Ledger home', ['/a', '/b']),
      '/a': page('Ledger A', ['/c', '/missing']),
      '/b': page('Ledger B', ['/']),
      '/c': page('Ledger C', []),
      '/stuck': page('Stuck', ['/hang']),
    };
    if (p === '/hang') return void held.push(res);
    if (p === '/robots.txt') return void res.writeHead(404).end();
    if (!pages[p]) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html' }).end(pages[p]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The settings of another replica of `t`'s PostgreSQL store: the same schema and operator key. */
const replicaFlags = (t: TestServer) => ({
  port: 0,
  host: '127.0.0.1',
  logLevel: 'silent',
  rateLimitQps: 0,
  databaseUrl: t.app.config.databaseUrl,
  databaseSchema: t.app.config.databaseSchema,
  secretKey: t.app.config.secretKey,
  privateAllowlist: '127.0.0.1/32',
});

describe.each(BACKENDS)('operator jobs on %s', (backend) => {
  let t: TestServer;
  let site: { url: string; close(): Promise<void> };
  let code: { dir: string; cleanup(): void };
  let teamAdmin = '';
  let crawlId = '';
  const api = (method: string, p: string, body?: unknown, key = t.key) => callJson(t.url, key, method, p, body);
  const upload = (text: string, query = '?collection=ledger', type = 'application/x-ndjson') =>
    fetch(`${t.url}/console/api/imports${query}`, {
      method: 'POST',
      headers: { 'x-api-key': t.key, 'content-type': type },
      body: text,
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as Json }));
  /** The job once it is no longer running. */
  const ended = (id: string) =>
    vi.waitFor(
      async () => {
        const { body } = await api('GET', `/console/api/jobs/${id}`);
        if (body.state === 'running') throw new Error(`job ${id} still running: ${JSON.stringify(body.progress)}`);
        return body;
      },
      { timeout: 30_000, interval: 100 },
    );

  beforeAll(async () => {
    site = await startSite();
    code = tempDir('trawl-console-code-');
    fs.mkdirSync(path.join(code.dir, 'src'));
    fs.writeFileSync(path.join(code.dir, 'src', 'ledger.ts'), 'export function openLedger(name: string) {\n  return { name, entries: [] as string[] };\n}\n'); // prettier-ignore
    fs.writeFileSync(path.join(code.dir, 'src', 'wharf.py'), 'def wharfinger_total(entries):\n    return sum(e.amount for e in entries)\n'); // prettier-ignore
    t = await startServerOn(backend, { privateAllowlist: '127.0.0.1/32', importMaxBytes: IMPORT_LIMIT });
    teamAdmin = (await t.app.services.keys.create('team admin', { scopes: ['search', 'admin:team'] }, null)).key;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await site?.close();
    code?.cleanup();
  });

  it('crawls a loopback site in the background: running, then completed with counts and failures by reason', async () => {
    const started = await api('POST', '/console/api/crawls', { urls: [`${site.url}/`], maxDepth: 3, maxPages: 50 });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ kind: 'crawl', state: 'running', input: { urls: [`${site.url}/`] } });
    crawlId = started.body.id;
    const job = await ended(started.body.id);
    expect(job).toMatchObject({ state: 'completed', error: null, result: { status: 'finished', done: 4, failed: 1, queued: 0 } }); // prettier-ignore
    expect(job.progress).toMatchObject({ done: 4, failed: 1, total: 5 });
    expect(job.crawl.counts).toEqual({ queued: 0, done: 4, failed: 1 });
    expect(job.crawl.failuresByTag).toEqual({ CRAWL_NOT_FOUND: 1 });
    expect(job.crawl.failures).toEqual([
      expect.objectContaining({ url: `${site.url}/missing`, tag: 'CRAWL_NOT_FOUND', httpStatusCode: 404 }),
    ]);
    expect(job.crawl.frontier).toEqual([]);
    const found = await api('POST', '/search', { query: 'wharfinger ledger', numResults: 10 });
    expect((found.body.results as Json[]).map((r) => r.url)).toEqual(expect.arrayContaining([`${site.url}/c`]));
  });

  it.runIf(backend === 'postgres')('is read the same from another replica of the shared store', async () => {
    const dir = tempDir('trawl-console-replica-');
    const config = loadConfig({}, { ...replicaFlags(t), dataDir: dir.dir });
    const other = await openApp(config, { logger: createLogger('silent') });
    const server = await startHttpServer(other, '127.0.0.1', 0);
    try {
      const here = await api('GET', `/console/api/jobs/${crawlId}`);
      const there = await callJson(server.url, t.key, 'GET', `/console/api/jobs/${crawlId}`);
      expect(there.status).toBe(200);
      expect(there.body).toEqual(here.body);
      expect(there.body.crawl.counts).toEqual({ queued: 0, done: 4, failed: 1 });
    } finally {
      await server.close();
      await other.close();
      dir.cleanup();
    }
  });

  it('imports an uploaded JSONL file, reporting the bad lines, and makes its documents searchable', async () => {
    const lines = [
      { _id: 'n1', title: 'Quayside tally', text: 'The quayside tally counts bollards along the marmoreal pier.' },
      { _id: 'n2', title: 'Harbour dues', text: 'Harbour dues are paid to the wharfinger each quarter.' },
      { url: 'https://docs.example.com/tides', title: 'Tides', text: 'Tide tables for the marmoreal pier.' },
    ].map((r) => JSON.stringify(r));
    const started = await upload([...lines, '{"title": "no address"}', 'not json'].join('\n'));
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ kind: 'import', state: 'running', input: { collection: 'ledger' } });
    const job = await ended(started.body.id);
    expect(job).toMatchObject({ state: 'completed', result: { imported: 3, errors: 2, collection: 'ledger' } });
    expect(job.result.issues.map((i: Json) => i.line)).toEqual([4, 5]);
    const found = await api('POST', '/search', { query: 'marmoreal pier', numResults: 10 });
    expect((found.body.results as Json[]).map((r) => r.url).sort()).toEqual(['https://docs.example.com/tides', 'import://ledger/n1']); // prettier-ignore
    expect(fs.readdirSync(path.join(t.dataDir, 'uploads'))).toEqual([]); // the file is gone with the job
  });

  it('refuses an upload past the limit (413) or of another type (415), starting no job', async () => {
    const before = (await api('GET', '/console/api/jobs?limit=100')).body.data.length;
    const big = `${JSON.stringify({ _id: 'x', text: 'y'.repeat(IMPORT_LIMIT) })}\n`;
    const declared = await upload(big);
    expect(declared.status).toBe(413);
    expect(declared.body.tag).toBe('PAYLOAD_TOO_LARGE');
    // the same without a declared length: refused as it streams
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
        controller.close();
      },
    });
    const streamed = await fetch(`${t.url}/console/api/imports`, {
      method: 'POST',
      headers: { 'x-api-key': t.key, 'content-type': 'application/x-ndjson' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await upload('{}', '', 'application/json')).status).toBe(415);
    const badName = await upload('{"_id": "1", "text": "x"}', '?collection=a/b');
    expect(badName.status).toBe(400);
    expect(badName.body.error).toContain('collection');
    expect((await api('GET', '/console/api/jobs?limit=100')).body.data.length).toBe(before);
    expect(fs.readdirSync(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it("indexes a folder on the server for /context, counted in /status's code", async () => {
    const started = await api('POST', '/console/api/code', { path: code.dir, name: 'ledger-code' });
    expect(started.status).toBe(202);
    const job = await ended(started.body.id);
    expect(job).toMatchObject({ kind: 'code', state: 'completed', result: { source: 'ledger-code', files: 2, added: 2 } }); // prettier-ignore
    expect(job.progress).toMatchObject({ done: 2, total: 2 });
    const status = await api('GET', '/status');
    expect(status.body.index.code).toMatchObject({ files: 2, sources: 1 });
    expect(status.body.index.code.chunks).toBeGreaterThan(0);
  });

  it('refuses bad input naming the field', async () => {
    const cases: [string, unknown, string, string][] = [
      ['/console/api/crawls', { urls: ['ftp://example.com/'] }, 'INVALID_REQUEST_BODY', 'urls'],
      ['/console/api/crawls', { urls: [] }, 'INVALID_REQUEST_BODY', 'urls'],
      ['/console/api/crawls', { urls: [`${site.url}/`], maxPages: 0 }, 'INVALID_REQUEST_BODY', 'maxPages'],
      ['/console/api/crawls', { urls: [`${site.url}/`], depth: 2 }, 'INVALID_REQUEST_BODY', 'depth'],
      ['/console/api/code', { path: 'relative/src' }, 'INVALID_REQUEST', 'path'],
      ['/console/api/code', { path: '//' }, 'INVALID_REQUEST', 'path'],
      ['/console/api/code', { path: path.join(code.dir, 'nothing-here') }, 'INVALID_REQUEST', 'path'],
      ['/console/api/code', { path: path.join(code.dir, 'src', 'ledger.ts') }, 'INVALID_REQUEST', 'path'],
      ['/console/api/code', {}, 'INVALID_REQUEST_BODY', 'path'],
    ];
    for (const [route, body, tag, field] of cases) {
      const res = await api('POST', route, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.tag, JSON.stringify(body)).toBe(tag);
      expect(res.body.error, JSON.stringify(body)).toContain(field);
    }
    const cursor = await api('GET', '/console/api/jobs?cursor=bm9wZQ');
    expect(cursor.body).toMatchObject({ tag: 'INVALID_REQUEST_QUERY' });
  });

  it('is for admin keys only (403), and 404 for a job that does not exist', async () => {
    const routes: [string, string, unknown?][] = [
      ['POST', '/console/api/crawls', { urls: [`${site.url}/`] }],
      ['POST', '/console/api/code', { path: code.dir }],
      ['GET', '/console/api/jobs'],
      ['GET', '/console/api/jobs/job_none'],
    ];
    for (const [method, route, body] of routes) {
      const res = await api(method, route, body, teamAdmin);
      expect(res.status, route).toBe(403);
      expect(res.body.tag).toBe('INSUFFICIENT_SCOPE');
    }
    const denied = await fetch(`${t.url}/console/api/imports`, {
      method: 'POST',
      headers: { 'x-api-key': teamAdmin, 'content-type': 'application/x-ndjson' },
      body: '{"_id": "1", "text": "x"}',
    });
    expect(denied.status).toBe(403);
    expect((await api('GET', '/console/api/jobs/job_none')).status).toBe(404);
  });

  it('lists the jobs newest first, a page at a time', async () => {
    const first = await api('GET', '/console/api/jobs?limit=2');
    expect(first.body.data.map((j: Json) => j.kind)).toEqual(['code', 'import']);
    expect(first.body.hasMore).toBe(true);
    const next = await api('GET', `/console/api/jobs?limit=2&cursor=${first.body.nextCursor}`);
    expect(next.body.data.map((j: Json) => j.kind)).toEqual(['crawl']);
    expect(next.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('reads a job whose process died (its lease lapsed) as interrupted', async () => {
    const at = new Date().toISOString();
    await t.app.stores.operatorJobs.insert({
      id: 'job_of_a_dead_process',
      kind: 'code',
      key_id: 'key_gone',
      team_id: 'team_default',
      input: JSON.stringify({ path: code.dir }),
      progress: null,
      owner: 'elsewhere:4242:dead',
      lease_until_ms: Date.now() - 1_000,
      created_at: at,
      updated_at: at,
    });
    const { body } = await api('GET', '/console/api/jobs/job_of_a_dead_process');
    expect(body).toMatchObject({ state: 'interrupted', progress: { done: 0, total: null } });
    expect(body.error).toMatch(/^interrupted/);
  });

  it('interrupts the jobs it runs when the server stops, and starts none after', async () => {
    const started = await api('POST', '/console/api/crawls', { urls: [`${site.url}/stuck`] });
    expect(started.status).toBe(202);
    await vi.waitFor(
      async () => {
        const { body } = await api('GET', `/console/api/jobs/${started.body.id}`);
        if (body.crawl?.counts.done !== 1) throw new Error('the crawl has not reached /hang yet');
      },
      { timeout: 20_000, interval: 100 },
    );
    await t.app.services.operatorJobs.stop(); // what app.close() does first
    const { body } = await api('GET', `/console/api/jobs/${started.body.id}`);
    expect(body).toMatchObject({ state: 'interrupted', result: { status: 'interrupted', done: 1, queued: 1 } });
    const refused = await api('POST', '/console/api/code', { path: code.dir });
    expect(refused.status).toBe(500);
    expect(refused.body.tag).toBe('SERVICE_UNAVAILABLE');
  });
});
