/**
 * Fair queueing and deadlines that cover every wait, on the real HTTP door over each backend, against a
 * loopback site with a slow path and a fast path on one host: one team's flood (REST, or MCP tasks) does
 * not hold another team's fetch behind all of it; a deadline that passes while queued answers the timeout
 * then, not after the flood; the wait is reported (`x-svc-queued`, the MCP note). MCP tasks hold an
 * in-flight slot of their key while they work, are capped per key (TRAWL_MCP_MAX_TASKS), and get a TTL
 * under the configured cap. Assertions are on order and outcome, never on tight durations.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/app.js';
import { BACKENDS, startServerOn } from '../helpers/backend-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The loopback site: `/slow?ms=N` answers after N ms, `/fast` at once; it logs arrivals and counts finished slow answers. */
interface Site {
  origin: string;
  /** Request paths in arrival order. */
  arrivals: string[];
  /** Slow answers sent so far. */
  slowDone(): number;
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  const arrivals: string[] = [];
  let slowDone = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    arrivals.push(url.pathname);
    const page = (title: string) => `<html><head><title>${title}</title></head><body><p>${title} page.</p></body></html>`; // prettier-ignore
    const answer = (title: string) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(title));
    };
    if (url.pathname === '/slow') {
      setTimeout(
        () => {
          slowDone++;
          answer('Slow');
        },
        Number(url.searchParams.get('ms')),
      );
    } else if (url.pathname === '/fast') answer('Fast');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    slowDone: () => slowDone,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let site: Site;
let seq = 0;
/** A slow URL no other request asked for (so no cache answers it). */
const slow = (ms: number) => `${site.origin}/slow?ms=${ms}&n=${++seq}`;
/** How many slow requests had reached the site before the first fast one. */
const slowBeforeFast = () => site.arrivals.slice(0, site.arrivals.indexOf('/fast')).filter((p) => p === '/slow').length; // prettier-ignore

beforeAll(async () => {
  site = await startSite();
});
afterAll(async () => {
  await site.close();
});

/** A key of a new team on `t`. */
async function teamKey(t: TestServer, name: string): Promise<string> {
  const team = await t.app.services.accounts.teams.create(name, {}, null);
  return (await t.app.services.keys.create(name, { teamId: team.id }, null)).key;
}

/** POST /contents with `key`; `signal` lets a flood be called off. */
async function contents(t: TestServer, key: string, body: Json, signal?: AbortSignal) {
  const res = await fetch(`${t.url}/contents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ maxAgeHours: 0, ...body }),
    signal,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json, at: performance.now() };
}

async function mcpClient(t: TestServer, key: string, clients: Client[]): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
    requestInit: { headers: { 'x-api-key': key } },
  });
  const client = new Client({ name: 'fairness-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}
const startTask = (c: Client, args: Json, task: Json = {}) =>
  c.request({ method: 'tools/call', params: { name: 'get_contents', arguments: args, task } }, CreateTaskResultSchema); // prettier-ignore
const resultOf = async (c: Client, taskId: string) =>
  (await c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as Json;
/** Resolves once the site has seen `n` slow requests. */
async function slowArrived(n: number): Promise<void> {
  while (site.arrivals.filter((p) => p === '/slow').length < n) await new Promise((r) => setTimeout(r, 10));
}

describe.each(BACKENDS)('fair queueing and deadlines on %s', (backend) => {
  let t: TestServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    // 8 live fetches at once (the admission queue), 6 per host (the politeness queue): both queues fill
    t = await startServerOn(backend, { privateAllowlist: ['127.0.0.1'], fetchConcurrency: 8, tools: 'get_contents' });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  it("answers team B's fast page on the host team A floods in B's turn, reported as queued", async () => {
    const [a, b] = [await teamKey(t, 'flood-a'), await teamKey(t, 'fast-b')];
    site.arrivals.length = 0;
    // A: 8 requests (its in-flight limit) of 6 slow pages each, 48 fetches of one host
    const flood = Array.from({ length: 8 }, () =>
      contents(t, a, { urls: Array.from({ length: 6 }, () => slow(600)), livecrawlTimeout: 60_000 }),
    );
    await slowArrived(6);
    const fast = await contents(t, b, { urls: [`${site.origin}/fast`], livecrawlTimeout: 10_000 });
    expect(fast.status).toBe(200);
    expect(fast.body.statuses).toEqual([{ id: `${site.origin}/fast`, status: 'success', source: 'crawled' }]);
    expect(fast.headers.get('x-svc-queued')).toBe('true');
    expect(Number(fast.headers.get('x-svc-queue-ms'))).toBeGreaterThan(0);
    const floodDone = await Promise.all(flood);
    // first come, first served would have sent B's page after all 40 of A's that waited before it
    expect(slowBeforeFast()).toBeLessThan(24);
    expect(fast.at).toBeLessThan(Math.max(...floodDone.map((r) => r.at)));
    expect(floodDone.every((r) => r.body.statuses.every((s: Json) => s.status === 'success'))).toBe(true);
  });

  it('answers CRAWL_LIVECRAWL_TIMEOUT when the deadline passes in the queue, before the flood ahead of it ends', async () => {
    const [a, b] = [await teamKey(t, 'flood-a2'), await teamKey(t, 'late-b')];
    const stop = new AbortController();
    const doneBefore = site.slowDone();
    const flood = Array.from(
      { length: 4 },
      () =>
      contents(t, a, { urls: Array.from({ length: 4 }, () => slow(4000)), livecrawlTimeout: 60_000 }, stop.signal).catch(() => undefined), // prettier-ignore
    );
    await slowArrived(site.arrivals.filter((p) => p === '/slow').length + 6);
    const late = await contents(t, b, { urls: [slow(0)], livecrawlTimeout: 1000 });
    const slowDoneThen = site.slowDone() - doneBefore;
    stop.abort();
    await Promise.all(flood);
    expect(late.status).toBe(200);
    expect(late.body.statuses[0]).toMatchObject({ status: 'error', error: { tag: 'CRAWL_LIVECRAWL_TIMEOUT' } });
    expect(late.body.statuses[0].message).toMatch(/waited its whole 1000 ms limit in the queue of live fetches/);
    expect(late.headers.get('x-svc-queued')).toBe('true');
    // it did not wait for a slot past its deadline: none of the 4-second fetches ahead of it had ended
    expect(slowDoneThen).toBe(0);
  });

  it("counts MCP task work against the key's in-flight limit, and notes the wait in another team's answer", async () => {
    const [a, b] = [await teamKey(t, 'tasks-a'), await teamKey(t, 'mcp-b')];
    const flooder = await mcpClient(t, a, clients);
    const args = () => ({ urls: Array.from({ length: 3 }, () => slow(1000)), maxAgeHours: 0, livecrawlTimeout: 60_000 }); // prettier-ignore
    const tasks = await Promise.all(Array.from({ length: 8 }, () => startTask(flooder, args())));
    // the key's 8 slots are held by its tasks' work: a 9th call, task or not, is refused until one ends
    await expect(startTask(flooder, args())).rejects.toThrow(/RATE_LIMIT_EXCEEDED: API key \S+ has 8 requests in flight, the most it may \(TRAWL_RATE_LIMIT_CONCURRENCY\)/); // prettier-ignore
    const rest = await contents(t, a, { urls: [`${site.origin}/fast?rest`] });
    expect(rest.status).toBe(429);

    const reader = await mcpClient(t, b, clients);
    const answer = (await reader.callTool({ name: 'get_contents', arguments: { urls: [`${site.origin}/fast?mcp`], maxAgeHours: 0, livecrawlTimeout: 10_000 } })) as Json; // prettier-ignore
    expect(answer.isError).toBeFalsy();
    expect(answer.content[0].text).toMatch(/^1 of 1 pages read\n\(Queued \d+ ms behind other work( on host 127\.0\.0\.1:\d+)?\.\)/); // prettier-ignore
    const ended = await Promise.all(tasks.map(({ task }) => resultOf(flooder, task.taskId)));
    expect(ended.every((r) => !r.isError)).toBe(true);
    expect((await contents(t, a, { urls: [`${site.origin}/fast?after`] })).status).toBe(200);
  });
});

describe.each(BACKENDS)('MCP task caps on %s', (backend) => {
  let t: TestServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startServerOn(backend, { privateAllowlist: ['127.0.0.1'], tools: 'get_contents', mcpMaxTasks: 2 });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  it('refuses a task past TRAWL_MCP_MAX_TASKS open ones of the key, with a JSON-RPC error naming it', async () => {
    const owner = await mcpClient(t, await teamKey(t, 'capped'), clients);
    const other = await mcpClient(t, await teamKey(t, 'other'), clients);
    const args = () => ({ urls: [slow(800)], maxAgeHours: 0 });
    const open = [await startTask(owner, args()), await startTask(owner, args())];
    await expect(startTask(owner, args())).rejects.toThrow(/RATE_LIMIT_EXCEEDED: API key \S+ has 2 MCP tasks open, the most it may \(TRAWL_MCP_MAX_TASKS=2\)/); // prettier-ignore
    const elsewhere = await startTask(other, args()); // the cap is per key
    await Promise.all(open.map(({ task }) => resultOf(owner, task.taskId)));
    const again = await startTask(owner, args()); // ended tasks no longer count
    expect((await resultOf(owner, again.task.taskId)).isError).toBeFalsy();
    await resultOf(other, elsewhere.task.taskId);
  });

  it('grants 10 minutes when no ttl is asked, and cuts a day to the 1 h cap, saying so in the task', async () => {
    const client = await mcpClient(t, await teamKey(t, 'ttl'), clients);
    const plain = await startTask(client, { urls: [`${site.origin}/fast?ttl1`] });
    const day = await startTask(client, { urls: [`${site.origin}/fast?ttl2`] }, { ttl: 86_400_000 });
    expect(plain.task.ttl).toBe(600_000);
    expect(day.task.ttl).toBe(3_600_000);
    await resultOf(client, plain.task.taskId);
    expect(await client.experimental.tasks.getTask(day.task.taskId)).toMatchObject({ ttl: 3_600_000 });
  });
});
