/**
 * /contents when the database goes away between the fetch and the page's write (a PostgreSQL restart, a
 * failover): the whole request answers 503 SERVICE_UNAVAILABLE with Retry-After, which clients retry,
 * never 200 with an error status that reads as final (bench/soak.mjs saw one at its PostgreSQL restart);
 * the retry once the database is back stores the page.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import type { TestServer } from '../helpers/app.js';
import { startServerOn } from '../helpers/backend-server.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const PAGE = `<html><head><title>Cut mid-write</title></head><body><article><h1>Cut mid-write</h1>${'<p>A page fetched while the database restarts, then written.</p>'.repeat(5)}</article></body></html>`; // prettier-ignore

let proxy: TcpProxy;
let site: FixtureSite;
let server: TestServer;

beforeAll(async () => {
  if (!pgReachable) return;
  const target = new URL(TEST_DATABASE_URL);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(TEST_DATABASE_URL);
  viaProxy.port = String(proxy.port);
  site = await startFixtureSite();
  // the database goes away while the page is being fetched: after the request was let in, before its write
  site.setPage('/cut', async (_req, res) => {
    await proxy.cut();
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  site.setPage('/after', PAGE);
  server = await startServerOn('postgres', { databaseUrl: viaProxy.toString(), allowPrivateNetwork: true });
}, 60_000);

afterAll(async () => {
  if (!pgReachable) return;
  await proxy.open().catch(() => undefined);
  await server?.close();
  await site?.close();
  await proxy?.close();
});

const contents = (url: string) =>
  fetch(`${server.url}/contents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.key },
    body: JSON.stringify({ urls: [url], text: true, maxAgeHours: 0 }),
  });

describe.runIf(pgReachable)('/contents with the database gone before the write', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, and stores the page on the retry', async () => {
    const url = `${site.url}/cut`;
    const first = await contents(url);
    const body = (await first.json()) as { tag?: string; statuses?: unknown };
    expect(first.status, JSON.stringify(body)).toBe(503);
    expect(body.tag).toBe('SERVICE_UNAVAILABLE');
    expect(first.headers.get('retry-after')).toMatch(/^\d+$/);

    await proxy.open();
    site.setPage('/cut', PAGE);
    let retry: Response;
    for (let tries = 0; ; tries++) {
      retry = await contents(url);
      if (retry.status !== 503 || tries > 50) break;
      await new Promise((resolve) => setTimeout(resolve, 200)); // the pool reconnecting
    }
    const again = (await retry.json()) as { statuses: { status: string }[]; results: { text: string }[] };
    expect(retry.status, JSON.stringify(again)).toBe(200);
    expect(again.statuses[0]!.status).toBe('success');
    expect(again.results[0]!.text).toContain('A page fetched while the database restarts');

    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const schema = (server.app.config as { databaseSchema?: string }).databaseSchema;
      const { rows } = await admin.query(`SELECT count(*)::int AS n FROM ${schema}.documents WHERE url LIKE $1`, [`%/cut`]); // prettier-ignore
      expect(rows[0]!.n).toBe(1);
    } finally {
      await admin.end();
    }
  });
});
