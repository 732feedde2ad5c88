/**
 * A `trawl serve` (the built CLI) on PostgreSQL whose connections the server ends, as a restart or a
 * failover does (bench/soak.mjs found replicas exiting on `pg_ctl restart`): every backend of this
 * process (its own `application_name`, so no other user of the shared server is touched) is terminated
 * several times while requests and a monitor's runs go on. The process stays up, prints no uncaught
 * error, answers each request with success or 503 SERVICE_UNAVAILABLE with Retry-After (never 500), and
 * answers again.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { tempDir } from '../helpers/app.js';
import { serve, until, type ServeProcess } from '../helpers/crash.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const schema = `restart_${process.pid}_${Date.now().toString(36)}`;
const appName = `trawl_${schema}`;
const url = new URL(TEST_DATABASE_URL);
url.searchParams.set('application_name', appName);

let admin: pg.Pool;
let server: ServeProcess;
let receiver: Receiver;
let site: FixtureSite;
const dir = tempDir('trawl-store-restart-');

beforeAll(async () => {
  if (!pgReachable) return;
  admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  receiver = await startReceiver();
  site = await startFixtureSite();
  // prettier-ignore
  server = await serve(dir.dir, ['--database-url', url.toString(), '--database-schema', schema, '--secret-key', randomBytes(32).toString('base64'), '--poll-ms', '100', '--allow-insecure-webhooks', 'true']);
}, 60_000);

afterAll(async () => {
  if (!pgReachable) return;
  await server.kill();
  await receiver.close();
  await site.close();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  dir.cleanup();
});

/** Terminates every connection of the server under test; how many there were. */
const terminate = async () =>
  (await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [appName])).rowCount ?? 0; // prettier-ignore

describe.skipIf(!pgReachable)('serve on PostgreSQL, its connections ended by the server', () => {
  it(
    'stays up, answers 503 with Retry-After (never 500) meanwhile, and answers again',
    { timeout: 90_000 },
    async () => {
      const headers = { 'x-api-key': server.key, 'content-type': 'application/json' };
      const call = async (method: string, route: string, body?: unknown) => {
        const res = await fetch(server.url + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }); // prettier-ignore
        return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
      };
      // a monitor whose runs (triggered below) read and write the store while connections are cut
      const made = await call('POST', '/monitors', {
        name: 'restart',
        search: { query: 'postgres restart' },
        webhook: { url: receiver.url },
      });
      expect(made.status, made.body).toBe(201);
      const monitorId = (JSON.parse(made.body) as { id: string }).id;
      const answers: Awaited<ReturnType<typeof call>>[] = [];
      let stop = false;
      const traffic = (async () => {
        while (!stop) {
          answers.push(
            ...(await Promise.all([call('GET', '/monitors'), call('POST', `/monitors/${monitorId}/trigger`)])),
          );
        }
      })();
      let cut = 0;
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        cut += await terminate();
      }
      stop = true;
      await traffic;
      expect(cut).toBeGreaterThan(0);
      // answers again, and is the same process
      await until(async () => (await call('GET', '/monitors')).status === 200, 20_000, 'a success after the cuts');
      expect(server.child.exitCode).toBeNull();
      expect(server.child.signalCode).toBeNull();
      expect(server.log()).not.toMatch(/uncaught|unhandled|Unhandled 'error' event/i);
      const statuses = new Set(answers.map((a) => a.status));
      for (const s of statuses) expect([200, 201, 202, 503, 429]).toContain(s);
      for (const a of answers.filter((a) => a.status === 503)) {
        expect(a.retryAfter).toMatch(/^\d+$/);
        expect(a.body).toMatch(/SERVICE_UNAVAILABLE|unreachable/);
      }
    },
  );
});
