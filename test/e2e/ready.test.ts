/**
 * `GET /ready`: 200 on a fresh server, no key needed; 503 with `Retry-After` and the failing check named
 * while the process drains, when the store's schema is not this code's, and (PostgreSQL) when the store
 * does not answer, through a loopback proxy the test cuts; ready again once it answers. `/health` stays
 * 200 throughout: it is liveness only.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDir, type TestServer } from '../helpers/app.js';
import { serve, until, type ServeProcess } from '../helpers/crash.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ready = async (base: string) => {
  const res = await fetch(`${base}/ready`);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Json };
};
const healthStatus = async (base: string) => (await fetch(`${base}/health`)).status;

describe('GET /ready on SQLite', () => {
  let t: TestServer;
  afterAll(() => t?.close());

  it('answers 200 with every check passed on a fresh server, without a key', async () => {
    t = await startTestServer();
    const r = await ready(t.url);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ready: true,
      checks: { draining: { ok: true }, store: { ok: true }, schema: { ok: true }, index: { ok: true }, replica: { ok: true } }, // prettier-ignore
    });
  });

  it("answers 503 naming the schema when the store is not at this code's version", async () => {
    const db = new Database(path.join(t.dataDir, 'trawl.sqlite'));
    const version = db.pragma('user_version', { simple: true }) as number;
    db.pragma(`user_version = ${version - 1}`);
    try {
      const r = await ready(t.url);
      expect(r.status).toBe(503);
      expect(r.body.checks.schema).toMatchObject({
        ok: false,
        detail: expect.stringContaining(`version ${version - 1}`),
      });
      expect(r.body.checks.store.ok).toBe(true);
    } finally {
      db.pragma(`user_version = ${version}`);
      db.close();
    }
    expect((await ready(t.url)).status).toBe(200);
  });

  it('answers 503 with Retry-After once the process drains, while /health stays 200', async () => {
    t.app.readiness.startDraining();
    const r = await ready(t.url);
    expect(r.status).toBe(503);
    expect(r.retryAfter).toMatch(/^\d+$/);
    expect(r.body.ready).toBe(false);
    expect(r.body.checks.draining).toMatchObject({ ok: false, detail: expect.stringContaining('stopping') });
    expect(await healthStatus(t.url)).toBe(200);
  });
});

describe.skipIf(!pgReachable)('GET /ready on PostgreSQL', () => {
  const schema = `ready_${process.pid}_${Date.now().toString(36)}`;
  const dir = tempDir('trawl-ready-');
  let server: ServeProcess | undefined;
  let proxy: TcpProxy | undefined;
  afterAll(async () => {
    await server?.kill();
    await proxy?.close();
    const admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    dir.cleanup();
  });

  it(
    'answers 503 naming the store while it does not answer, and 200 again once it does',
    { timeout: 90_000 },
    async () => {
      const target = new URL(TEST_DATABASE_URL);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      const viaProxy = new URL(TEST_DATABASE_URL);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      // prettier-ignore
      server = await serve(dir.dir, ['--database-url', viaProxy.toString(), '--database-schema', schema, '--secret-key', randomBytes(32).toString('base64'), '--poll-ms', '200']);
      const base = server.url;
      await until(async () => (await ready(base)).status === 200, 30_000, 'the replica to be ready');

      await proxy.cut();
      const down = await until(
        async () => {
          const r = await ready(base);
          return r.status === 503 && r;
        },
        30_000,
        'a 503 while the store is cut off',
      );
      expect(down.retryAfter).toMatch(/^\d+$/);
      expect(down.body.checks.store).toMatchObject({ ok: false, detail: expect.stringContaining('does not answer') });
      expect(await healthStatus(base)).toBe(200);

      await proxy.open();
      await until(async () => (await ready(base)).status === 200, 30_000, 'ready again once the store answers');
      expect(server.child.exitCode).toBeNull();
    },
  );
});
