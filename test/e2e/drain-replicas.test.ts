/**
 * A rolling restart of two `trawl serve` replicas on one PostgreSQL schema under load: clients send
 * searches, contents and agent run creations round-robin, retrying as docs/operations.md tells them
 * (refused or reset: the next replica at once; 503 or 429: the next replica, this one after Retry-After);
 * replica A is stopped with SIGTERM and started again, then B. Every request ends in success, and every
 * agent run ends completed, exactly once, none stuck: runs are leased for 10 minutes, so one that was not
 * handed back on SIGTERM would still be running when the test gives up.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { tempDir } from '../helpers/app.js';
import { run, serve, until, type ServeProcess } from '../helpers/crash.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const schema = `drain_${process.pid}_${Date.now().toString(36)}`;
const secret = randomBytes(32).toString('base64');
const LEASE_MS = 600_000;
const DOCS = [
  { url: 'https://docs.example.com/undici/pool', title: 'Connection pooling in undici', text: 'An undici Pool keeps sockets open to one origin and queues requests when every socket is busy.' }, // prettier-ignore
  { url: 'https://docs.example.com/undici/agent', title: 'The undici Agent', text: 'An undici Agent manages one pool per origin, so a client calling many hosts reuses connections.' }, // prettier-ignore
];
const isPlan = (body: unknown) => /"queries"/.test(JSON.stringify(body));

let admin: pg.Pool;
let model: ModelServer;
let site: FixtureSite;
const dirs = [tempDir('trawl-drain-a-'), tempDir('trawl-drain-b-')];
const replicas: (ServeProcess | undefined)[] = [undefined, undefined];

beforeAll(async () => {
  if (!pgReachable) return;
  admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  // an answer takes a moment, so runs are in flight when a replica stops
  model = await startModelServer({
    reply: (body) => (isPlan(body) ? { json: { queries: ['undici pools'] } } : { delayMs: 400, content: 'An undici Pool keeps sockets open [1].' }), // prettier-ignore
  });
  site = await startFixtureSite();
  const file = path.join(dirs[0]!.dir, 'docs.jsonl');
  fs.writeFileSync(file, DOCS.map((d) => JSON.stringify(d)).join('\n'));
  const imported = await run(['import', file, ...storeFlags(dirs[0]!.dir)]);
  expect(imported.code, imported.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  if (!pgReachable) return;
  for (const r of replicas) await r?.kill();
  await model.close();
  await site.close();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  for (const d of dirs) d.cleanup();
});

function storeFlags(dataDir: string): string[] {
  return ['--data-dir', dataDir, '--database-url', TEST_DATABASE_URL, '--database-schema', schema, '--secret-key', secret]; // prettier-ignore
}

/** Replica `i` on its own data directory (and its former port, when it had one). */
async function startReplica(i: number, port?: number): Promise<ServeProcess> {
  // prettier-ignore
  const args = ['--database-url', TEST_DATABASE_URL, '--database-schema', schema, '--secret-key', secret, '--model-base-url', model.baseUrl, '--model', 'test-model', '--lease-ms', String(LEASE_MS), '--poll-ms', '500'];
  const s = await serve(dirs[i]!.dir, args, { port, env: { TRAWL_DRAIN_MS: '15000', TRAWL_RATE_LIMIT_QPS: '0' } });
  replicas[i] = s;
  await until(async () => (await fetch(`${s.url}/ready`).catch(() => undefined))?.status === 200, 60_000, `replica ${i} ready`); // prettier-ignore
  return s;
}

/** SIGTERM, the exit awaited (its code returned), then the same replica again on the same port. */
async function restart(i: number): Promise<{ code: number | null; handedBack: number }> {
  const s = replicas[i]!;
  const exited = new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));
  s.child.kill('SIGTERM');
  const code = await exited;
  const handedBack = Number(/"handedBack":(\d+)/.exec(s.log())?.[1] ?? 0);
  await startReplica(i, Number(new URL(s.url).port));
  return { code, handedBack };
}

/** What a client does, per docs/operations.md: the next replica at once on a refused or reset connection. */
async function send(
  key: string,
  start: number,
  route: string,
  body: Json,
): Promise<{ status: number; body: Json; tries: number }> {
  // prettier-ignore
  for (let attempt = 0; attempt < 60; attempt++) {
    const target = replicas[(start + attempt) % replicas.length]!;
    try {
      const res = await fetch(target.url + route, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status === 503 || res.status === 429) {
        await res.body?.cancel();
        // the next replica now; this one is asked again after Retry-After (at most a second here)
        const wait = Math.min(1000, Number(res.headers.get('retry-after') ?? 1) * 1000) / replicas.length;
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      return { status: res.status, body: (await res.json()) as Json, tries: attempt + 1 };
    } catch {
      // refused (the replica is down) or reset (it closed the connection): the next one, after a beat
      await new Promise((r) => setTimeout(r, 50 * Math.min(attempt + 1, 10)));
    }
  }
  throw new Error(`${route}: no replica answered after 60 tries`);
}

describe.skipIf(!pgReachable)('a rolling restart of two replicas under load', () => {
  it(
    'loses no request that is retried, and every agent run ends completed exactly once',
    { timeout: 180_000 },
    async () => {
      const a = await startReplica(0);
      const key = a.key;
      await startReplica(1);
      const answers: { route: string; status: number }[] = [];
      const runIds = new Set<string>();
      let stop = false;
      let n = 0;
      const client = async (c: number) => {
        while (!stop) {
          const i = n++;
          const kind = i % 3;
          if (kind === 0) {
            const r = await send(key, i, '/search', { query: 'undici connection pool', numResults: 3 });
            answers.push({ route: '/search', status: r.status });
          } else if (kind === 1) {
            const r = await send(key, i, '/contents', { urls: [`${site.url}/counter?c=${c}&i=${i}`], text: true });
            answers.push({ route: '/contents', status: r.status });
          } else {
            const r = await send(key, i, '/agent/runs', { query: `how do undici pools work (${i})`, effort: 'low' });
            answers.push({ route: '/agent/runs', status: r.status });
            if (typeof r.body.id === 'string') runIds.add(r.body.id);
          }
        }
      };
      const clients = [0, 1, 2].map(client);
      await until(() => runIds.size >= 3, 60_000, 'load under way');
      const codes = [await restart(0)];
      await until(() => runIds.size >= 6, 60_000, 'load on the restarted replica');
      codes.push(await restart(1));
      await until(() => runIds.size >= 9, 60_000, 'load after both restarts');
      stop = true;
      await Promise.all(clients);

      expect(codes.map((c) => c.code)).toEqual([0, 0]);
      // the restarts met runs in flight (so the hand-back was exercised), and each stopped with exit 0
      expect(codes[0]!.handedBack + codes[1]!.handedBack).toBeGreaterThan(0);
      const unexpected = answers.filter((x) => x.status !== 200 && x.status !== 201);
      expect(unexpected).toEqual([]);
      // every run (those whose answer a reset lost too) ends; none waits for a 10-minute lease
      const open = async () =>
      (await admin.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${schema}.agent_runs WHERE status IN ('queued', 'running')`)).rows[0]!.n; // prettier-ignore
      await until(async () => (await open()) === 0, 90_000, 'every agent run to end');
      const { rows } = await admin.query<{ id: string; status: string; completed: number }>(
        `SELECT r.id, r.status, (SELECT COUNT(*)::int FROM ${schema}.agent_events e WHERE e.run_id = r.id AND e.event = 'agent_run.completed') AS completed
         FROM ${schema}.agent_runs r`,
      );
      expect(rows.length).toBeGreaterThanOrEqual(runIds.size);
      for (const id of runIds) expect(rows.some((r) => r.id === id)).toBe(true);
      expect(rows.filter((r) => r.status !== 'completed' || r.completed !== 1)).toEqual([]);
    },
  );
});
