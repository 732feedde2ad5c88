/**
 * Replicas on one PostgreSQL (issue 24): three real `trawl serve` processes (the built CLI), each with
 * its own data directory, share one schema and are driven through their HTTP doors. One first key is
 * made however they race; a page fetched through one is found by the others' searches within a second;
 * credits spent through all three never exceed what the team has; due monitors run once; an agent run's
 * events are replayed by a replica that did not run it; and when the replica running it is killed with
 * SIGKILL, another takes the run over once its (short) lease has run out, and completes it once; a
 * monitor run so interrupted ends failed, its events delivered once each; a delivery whose replica dies
 * mid-attempt is made by another once its lease lapses. Each reports the shared store and the replicas
 * it has seen in GET /status.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { CLI, tempDir } from '../helpers/app.js';
import { run, serve, until, type ServeProcess } from '../helpers/crash.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const schema = `replicas_${process.pid}_${Date.now().toString(36)}`;
const secretKey = randomBytes(32).toString('base64');
/** What every command of this deployment is given: the shared store and its key. */
const STORE = ['--database-url', TEST_DATABASE_URL, '--database-schema', schema, '--secret-key', secretKey];
const isPlan = (body: unknown) => /"queries"/.test(JSON.stringify(body));

let db: pg.Pool;
let site: FixtureSite;
let model: ModelServer;
let receiver: Receiver;
/** While set, the model takes 30 s to answer anything but a plan: the replica running a run is killed meanwhile. */
let slow = false;
const dirs: { dir: string; cleanup: () => void }[] = [];
let replicas: ServeProcess[] = [];
let key = '';

async function api(
  s: ServeProcess,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(s.url + route, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A CLI command of this deployment (its own data directory: the store is PostgreSQL). */
async function trawl(args: string[]): Promise<string> {
  const dir = tempDir('trawl-replica-cli-');
  dirs.push(dir);
  const res = await run([...args, '--data-dir', dir.dir, ...STORE]);
  if (res.code !== 0) throw new Error(`trawl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout.trim();
}

async function startReplica(): Promise<ServeProcess> {
  const dir = tempDir('trawl-replica-');
  dirs.push(dir);
  // prettier-ignore
  return serve(dir.dir, [...STORE, '--lease-ms', '1500', '--poll-ms', '250', '--webhook-timeout-ms', '1000', '--model-base-url', model.baseUrl, '--model', 'test-model', '--allow-insecure-webhooks', 'true']);
}

const count = async (sql: string, params: unknown[] = []) =>
  Number((await db.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${schema}.${sql}`, params)).rows[0]!.n);

beforeAll(async () => {
  if (!pgReachable) return;
  db = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  site = await startFixtureSite();
  receiver = await startReceiver();
  model = await startModelServer({
    reply: (body) => {
      if (isPlan(body)) return { json: { queries: ['async rust tasks'] } };
      return slow ? { delayMs: 30_000, content: 'too late' } : 'Async Rust runs futures on an executor [1].';
    },
  });
  // three replicas starting together on an empty database
  replicas = await Promise.all([startReplica(), startReplica(), startReplica()]);
  key = replicas.map((r) => r.key).find(Boolean) ?? '';
}, 60_000);

afterAll(async () => {
  if (!pgReachable) return;
  for (const r of replicas) await r.kill();
  await Promise.all([site.close(), model.close(), receiver.close()]);
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db.end();
  for (const d of dirs) d.cleanup();
});

describe.skipIf(!pgReachable)('replicas on one PostgreSQL', () => {
  it('make one first key however they race, and each answers with it', async () => {
    expect(replicas.filter((r) => r.key !== '')).toHaveLength(1);
    expect(dirs.filter((d) => fs.existsSync(path.join(d.dir, 'first-api-key')))).toHaveLength(1);
    expect(await count('api_keys')).toBe(1);
    for (const r of replicas) expect((await api(r, 'GET', '/monitors')).status).toBe(200);
  });

  // waits for other processes, which a loaded machine slows: bounds of a hang, not of speed
  it('report the shared store and every replica seen, in GET /status', { timeout: 60_000 }, async () => {
    const status = await until(async () => {
      const body = (await api(replicas[1]!, 'GET', '/status')).body;
      return body.store?.replicas?.length === 3 && body;
    }, 15_000, 'three replicas in the status report'); // prettier-ignore
    expect(status.store).toMatchObject({ backend: 'postgres', schema, schemaVersion: expect.any(Number) });
    expect(status.store.version).toMatch(/^\d+/);
    expect(status.store.url).not.toMatch(/@/); // no credentials
    const pids = status.store.replicas.map((r: Json) => r.pid).sort();
    expect(pids).toEqual(replicas.map((r) => r.pid).sort());
    for (const r of status.store.replicas) expect(r).toMatchObject({ behind: 0, lagMs: 0 });
  });

  // waits for other processes, which a loaded machine slows: bounds of a hang, not of speed
  it('find a page fetched through one replica in the others’ searches', { timeout: 60_000 }, async () => {
    const url = `${site.url}/articles/rust-async`;
    const fetched = await api(replicas[0]!, 'POST', '/contents', { urls: [url], text: true });
    expect(fetched.status).toBe(200);
    const search = { query: 'async rust futures executor', type: 'instant', numResults: 3 };
    // the writing replica has it at once
    expect((await api(replicas[0]!, 'POST', '/search', search)).body.results[0]?.url).toBe(url);
    for (const r of replicas.slice(1)) {
      await until(async () => (await api(r, 'POST', '/search', search)).body.results[0]?.url === url, 10_000, 'the page on another replica'); // prettier-ignore
    }
    // its contents are a cache hit on another replica: the site is not asked again
    const hits = site.hits('/articles/rust-async');
    const again = await api(replicas[2]!, 'POST', '/contents', { urls: [url], text: true });
    expect(again.body.results[0].title).toBe(fetched.body.results[0].title);
    expect(site.hits('/articles/rust-async')).toBe(hits);
  });

  // waits for other processes, which a loaded machine slows: bounds of a hang, not of speed
  it(
    'find code indexed by `trawl index` into the shared store in every replica’s /context',
    { timeout: 60_000 },
    async () => {
      const root = tempDir('trawl-replica-code-');
      dirs.push(root);
      fs.mkdirSync(path.join(root.dir, 'src'));
      fs.writeFileSync(path.join(root.dir, 'src', 'retry.ts'), '/** Retry a failing call with exponential backoff. */\nexport async function retryWithBackoff(fn: () => Promise<void>, attempts = 3) {\n  for (let i = 0; i < attempts; i++) {\n    try { return await fn(); } catch { await new Promise((r) => setTimeout(r, 2 ** i * 100)); }\n  }\n}\n'); // prettier-ignore
      await trawl(['index', root.dir]);
      for (const r of replicas) {
        await until(async () => {
        const found = await api(r, 'POST', '/context', { query: 'retry with exponential backoff', tokensNum: 2000 });
        return JSON.stringify(found.body).includes('retryWithBackoff');
      }, 15_000, 'the indexed code on every replica'); // prettier-ignore
      }
    },
  );

  // waits for other processes, which a loaded machine slows: bounds of a hang, not of speed
  it(
    'index pages `trawl crawl` stores in the shared store, their code examples too, on every replica',
    { timeout: 60_000 },
    async () => {
      const url = `${site.url}/docs/getting-started`;
      await trawl(['crawl', url, '--depth', '0', '--no-sitemaps', '--delay', '0']);
      for (const r of replicas) {
        await until(async () => {
        const found = await api(r, 'POST', '/search', { query: 'Ferrous CLI first query', type: 'instant' });
        return (found.body.results as Json[]).some((x) => x.url === url);
      }, 15_000, 'the crawled page on every replica'); // prettier-ignore
        // the page's fenced example, from the Markdown kept beside its text in the shared store
        const context = await api(r, 'POST', '/context', { query: 'createClient search numResults', tokensNum: 2000 });
        expect(context.body.response).toContain('createClient({ apiKey: process.env.FERROUS_API_KEY })');
      }
    },
  );

  // waits for other processes, which a loaded machine slows: bounds of a hang, not of speed
  it(
    'answer `trawl mcp` over stdio from the shared store: its search finds what the replicas stored',
    { timeout: 60_000 },
    async () => {
      const dir = tempDir('trawl-replica-mcp-');
      dirs.push(dir);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--data-dir', dir.dir, ...STORE, '--log-level', 'warn'],
        env: { ...(process.env as Record<string, string>), TRAWL_DATA_DIR: '' },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'replica-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        // a new process: its copy is built from the shared log when it starts following
        const found = await until(async () => {
        const res = (await client.callTool({ name: 'search', arguments: { query: 'async rust futures executor' } })) as { content: { text: string }[] }; // prettier-ignore
        const text = res.content.map((c) => c.text).join('\n');
        return text.includes('/articles/rust-async') && text;
      }, 15_000, 'the page in trawl mcp’s search'); // prettier-ignore
        expect(found).toContain('Why async Rust feels different');
      } finally {
        await client.close();
      }
    },
  );

  it('never spend more than a team’s credits, requests racing on every replica', async () => {
    await trawl(['teams', 'create', 'racers', '--credits', '0.05']); // ten /context calls at $0.005
    const racer = await trawl(['keys', 'create', '--name', 'racer', '--team', 'racers']);
    const results = await Promise.all(
      Array.from({ length: 30 }, async (_x, i) => {
        const res = await fetch(`${replicas[i % 3]!.url}/context`, {
          method: 'POST',
          headers: { 'x-api-key': racer, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'async rust executor', tokensNum: 500 }),
        });
        return { status: res.status, body: (await res.json()) as Json };
      }),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 402).every((r) => r.body.tag === 'NO_MORE_CREDITS')).toBe(true);
    const team = (await db.query<{ credits_micros: string }>(`SELECT * FROM ${schema}.teams WHERE name = 'racers'`)).rows[0]!; // prettier-ignore
    expect(Number(team.credits_micros)).toBe(0);
  });

  it('run each due monitor once, whichever replica finds it due', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await api(replicas[i % 3]!, 'POST', '/monitors', {
        search: { query: `async rust ${i}` },
        trigger: { type: 'interval', period: '1h' },
        webhook: { url: receiver.url },
      });
      expect(created.status).toBe(201);
      ids.push(created.body.id as string);
    }
    // an hour later: every monitor is due at once, and three schedulers poll every 250 ms
    await db.query(`UPDATE ${schema}.monitors SET next_run_ms = $1`, [Date.now() - 1000]);
    for (const id of ids) {
      await until(async () => (await count(`monitor_runs WHERE monitor_id = $1 AND status = 'completed'`, [id])) === 1, 15_000, `monitor ${id}’s run`); // prettier-ignore
    }
    await new Promise((r) => setTimeout(r, 1000)); // three more polls of each scheduler
    for (const id of ids) expect(await count('monitor_runs WHERE monitor_id = $1', [id])).toBe(1);
    const next = await db.query<{ next_run_ms: string }>(`SELECT next_run_ms FROM ${schema}.monitors`);
    expect(next.rows.every((r) => Number(r.next_run_ms) > Date.now() + 30 * 60_000)).toBe(true);
  });

  it(
    'replay a run’s events from any replica, and take the run over when the replica running it is killed',
    { timeout: 60_000 },
    async () => {
      slow = true;
      const created = await api(replicas[0]!, 'POST', '/agent/runs', { query: 'how do async rust executors work', effort: 'low' }); // prettier-ignore
      const id = created.body.id as string;
      await until(() => model.requests.some((r) => !isPlan(r.body)), 15_000, 'the answer request');
      const owner = (await db.query<{ owner: string }>(`SELECT owner FROM ${schema}.agent_runs WHERE id = $1`, [id])).rows[0]!.owner; // prettier-ignore
      const running = replicas.find((r) => owner.includes(`:${r.pid}:`))!;
      expect(running).toBeDefined();
      const others = replicas.filter((r) => r !== running);
      await running.kill();
      slow = false;
      const done = await until(
        async () => {
          const r = await api(others[0]!, 'GET', `/agent/runs/${id}`);
          return r.body.status !== 'queued' && r.body.status !== 'running' && r.body;
        },
        20_000,
        'the run taken over',
      );
      expect(done.status).toBe('completed');
      const taker = (await db.query<{ owner: string }>(`SELECT owner FROM ${schema}.agent_runs WHERE id = $1`, [id])).rows[0]!.owner; // prettier-ignore
      const executor = others.find((r) => taker.includes(`:${r.pid}:`))!;
      const bystander = others.find((r) => r !== executor)!;
      // replayed, as a stream, by the replica that did not run it
      const res = await fetch(`${bystander.url}/agent/runs/${id}/events`, {
        headers: { 'x-api-key': key, accept: 'text/event-stream', 'last-event-id': '1' },
      });
      const frames: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (e) => frames.push(e) });
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true })); // prettier-ignore
      const all = (await api(executor, 'GET', `/agent/runs/${id}/events?limit=1000`)).body.data as Json[];
      expect(all.map((e) => e.id)).toEqual(all.map((_e, i) => i + 1)); // numbered without gaps or repeats
      expect(frames.map((f) => Number(f.id))).toEqual(all.slice(1).map((e) => e.id));
      const kinds = all.map((e) => e.event as string);
      for (const once of ['agent_run.created', 'agent_run.started', 'agent_run.completed']) expect(kinds.filter((k) => k === once)).toHaveLength(1); // prettier-ignore
      replicas = others; // the killed one is gone
    },
  );

  it(
    'fail a monitor run interrupted when the replica running it is killed, its events delivered once each',
    { timeout: 60_000 },
    async () => {
      replicas.push(await startReplica());
      slow = true;
      const monitor = (await api(replicas[0]!, 'POST', '/monitors', { search: { query: 'async rust executor' }, webhook: { url: receiver.url } })).body; // prettier-ignore
      receiver.secrets.push(monitor.webhookSecret as string);
      const asked = model.requests.length;
      await api(replicas[0]!, 'POST', `/monitors/${monitor.id}/trigger`);
      await until(() => model.requests.slice(asked).some((r) => !isPlan(r.body)), 15_000, 'the run’s answer request');
      const { owner } = (await db.query<{ owner: string }>(`SELECT owner FROM ${schema}.monitor_runs WHERE monitor_id = $1`, [monitor.id])).rows[0]!; // prettier-ignore
      const running = replicas.find((r) => owner.includes(`:${r.pid}:`))!;
      await running.kill();
      replicas = replicas.filter((r) => r !== running);
      slow = false;
      const ended = await until(
        async () => {
          const runs = (await api(replicas[0]!, 'GET', `/monitors/${monitor.id}/runs`)).body.data as Json[];
          return runs.find((r) => r.status === 'failed' || r.status === 'completed');
        },
        20_000,
        'the monitor run to end',
      );
      expect(ended).toMatchObject({ status: 'failed', failReason: 'internal_error' });
      const types = ['monitor.created', 'monitor.run.created', 'monitor.run.completed'];
      const recorded = await until(
        async () => {
          const rows = (await api(replicas[0]!, 'GET', `/monitors/${monitor.id}/deliveries?limit=100`)).body.data as Json[]; // prettier-ignore
          return types.every((t) => rows.some((d) => d.type === t && d.status === 'delivered')) && rows;
        },
        20_000,
        'the run’s events delivered',
      );
      for (const t of types) expect(recorded.filter((d) => d.type === t)).toHaveLength(1);
    },
  );

  it(
    'deliver a webhook whose replicas were killed mid-delivery once the lease lapses, recorded delivered once',
    { timeout: 60_000 },
    async () => {
      receiver.stallNext(1, 20_000);
      const hits = receiver.hits;
      const monitor = (await api(replicas[0]!, 'POST', '/monitors', { search: { query: 'undici pool' }, webhook: { url: receiver.url } })).body; // prettier-ignore
      receiver.secrets.push(monitor.webhookSecret as string);
      await until(() => receiver.hits > hits, 15_000, 'the delivery to reach the receiver');
      // whichever replica holds it dies, and another starts
      for (const r of replicas.splice(0)) await r.kill();
      replicas.push(await startReplica());
      const created = (d: { event: Json }) => d.event.type === 'monitor.created' && d.event.data.id === monitor.id;
      await until(() => receiver.deliveries.some(created), 20_000, 'the delivery from the new replica');
      const recorded = await until(
        async () => {
          const rows = (await api(replicas[0]!, 'GET', `/monitors/${monitor.id}/deliveries?limit=100`)).body.data as Json[]; // prettier-ignore
          return rows.length > 0 && rows.every((d) => d.status === 'delivered') && rows;
        },
        10_000,
        'the delivery recorded',
      );
      expect(recorded.filter((d) => d.type === 'monitor.created')).toHaveLength(1);
      expect(receiver.deliveries.filter(created).every((d) => d.verified)).toBe(true);
    },
  );
});
