/**
 * The stateless MCP door across replicas (issue 35): two real `trawl serve` processes (the built CLI)
 * on one PostgreSQL schema, and one client whose every HTTP request goes to the other replica than the
 * one before. For the v2 client (2026-07-28) and the v1 client (2025-11-25): tools/list, an answer cut
 * by its budget on one replica and continued by cursor on the other, and an agent run started as a task
 * on one replica, polled and cancelled through the other.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { serve, type ServeProcess } from '../helpers/crash.js';
import { legacyClient, modernEraClient, pollTask, type EraClient } from '../helpers/mcp-eras.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const schema = `replicas_mcp_${process.pid}_${Date.now().toString(36)}`;
const STORE = ['--database-url', TEST_DATABASE_URL, '--database-schema', schema, '--secret-key', randomBytes(32).toString('base64')]; // prettier-ignore
const PLAN = { json: { queries: ['undici pools'] } };
const LONG = Array.from({ length: 400 }, (_, i) => `<p>Sentence ${i}: an undici Pool keeps sockets open to one origin.</p>`).join(''); // prettier-ignore

let model: ModelServer;
let page: http.Server;
let pageUrl = '';
let replicas: ServeProcess[] = [];
const dirs: { cleanup: () => void }[] = [];
const clients: EraClient[] = [];
/** Which replica (0 or 1) answered each JSON-RPC method, in order. */
let served: { method: string; replica: number }[] = [];

/** The replica the alternating fetch sends the next request to. */
let nextReplica = () => 0;

/** A fetch that sends each request to the other replica than the one before. */
function alternating(): typeof fetch {
  let n = 0;
  nextReplica = () => n % 2;
  return (input, init) => {
    const replica = n++ % 2;
    const url = new URL(input instanceof Request ? input.url : String(input));
    url.host = new URL(replicas[replica]!.url).host;
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Json) : undefined;
    if (body?.method) served.push({ method: body.method as string, replica });
    return fetch(url, init);
  };
}
const replicaOf = (method: string, from = 0) => served.slice(from).find((s) => s.method === method)?.replica;

beforeAll(async () => {
  if (!pgReachable) return;
  model = await startModelServer({ reply: (body) => (/"queries"/.test(JSON.stringify(body)) ? PLAN : 'Pools [1].') });
  page = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><head><title>Connection pooling in undici</title></head><body><h1>Pools</h1>${LONG}</body></html>`);
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/pool`;
  const start = () => {
    const dir = tempDir('trawl-replica-mcp-');
    dirs.push(dir);
    return serve(dir.dir, [...STORE, '--model-base-url', model.baseUrl, '--model', 'm', '--tools', 'search,get_contents,agent_run']); // prettier-ignore
  };
  replicas = [await start()];
  replicas.push(await start());
}, 60_000);

afterAll(async () => {
  if (!pgReachable) return;
  await Promise.all(clients.map((c) => c.close()));
  for (const r of replicas) await r.kill();
  await model.close();
  await new Promise((resolve) => page.close(resolve));
  const db = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db.end();
  for (const d of dirs) d.cleanup();
});

describe.skipIf(!pgReachable).each(['modern', 'legacy'] as const)(
  'a %s client alternating between two replicas',
  (era) => {
    // prettier-ignore
    let c: EraClient;
    beforeAll(async () => {
      served = [];
      const key = replicas.map((r) => r.key).find(Boolean)!;
      const target = { kind: 'http' as const, url: replicas[0]!.url, key, fetch: alternating() };
      c = era === 'modern' ? await modernEraClient(target) : await legacyClient(target);
      clients.push(c);
    });

    it('lists the tools', async () => {
      expect((await c.listTools()).tools.map((t: Json) => t.name)).toEqual(['search', 'get_contents', 'agent_run']);
    });

    it('continues on one replica an answer cut on the other', async () => {
      const from = served.length;
      const args = { urls: [pageUrl], maxTokens: 500 };
      const first = await c.callTool('get_contents', args);
      expect(first.isError, first.content[0].text).toBeFalsy();
      const cursor = first.structuredContent?.nextCursor as string;
      expect(cursor).toMatch(/^ans\./);
      const second = await c.callTool('get_contents', { ...args, cursor });
      expect(second.isError, second.content[0].text).toBeFalsy();
      expect(second.content[0].text).toMatch(/Sentence \d+/);
      const calls = served.slice(from).filter((s) => s.method === 'tools/call');
      expect(new Set(calls.map((s) => s.replica)).size).toBe(2);
    });

    it('starts a task on one replica, and polls and cancels it through the other', { timeout: 90_000 }, async () => {
      const from = served.length;
      model.enqueue({ ...PLAN, delayMs: 20_000 });
      const task = await c.startTask('agent_run', { query: `a slow question (${era})`, effort: 'low' });
      const working = await pollTask(c, task.taskId, (t) => /is running/.test(t.statusMessage ?? ''));
      expect(working).toMatchObject({ status: 'working' });
      const started = replicaOf('tools/call', from)!;
      if (nextReplica() === started) await c.getTask(task.taskId); // so that the cancel goes to the other
      const aborted = model.whenAborted();
      await c.cancelTask(task.taskId);
      await aborted; // the model request of the replica running the run
      expect(await pollTask(c, task.taskId, (t) => t.status !== 'working')).toMatchObject({ status: 'cancelled' });
      expect(replicaOf('tasks/cancel', from)).toBe(1 - started);
      expect(
        served
          .slice(from)
          .filter((s) => s.method === 'tasks/get')
          .map((s) => s.replica),
      ).toContain(1 - started);
    });
  },
);
