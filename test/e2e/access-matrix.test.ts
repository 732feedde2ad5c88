/**
 * The authorization matrix, called: every REST route and every MCP tool, action and method that reaches a
 * stored resource (src/http/access-matrix.ts, generated from the registry and src/mcp/access.ts), by
 * every kind of caller (src/ops/access-matrix.ts: the owner key, another key of its team, a key of another
 * team, a key without the scope, a blocked team's key, an operator key, no key, an x402 payment), through
 * the real doors on 127.0.0.1:0, on SQLite and on PostgreSQL. Each answer must be the one the matrix
 * documents (docs/accounts.md#who-may-do-what); a list must hold team A's resource exactly when the caller
 * reaches it. A route or tool added to the registry without a request here fails the first test.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { modernClient } from '../helpers/mcp.js';
import { accessMatrixSections } from '../../src/http/access-matrix.js';
import { expectedOutcome, PRINCIPALS, scopesFor, type MatrixEntry, type Outcome, type Principal } from '../../src/ops/access-matrix.js'; // prettier-ignore
import { OPERATIONS } from '../../src/ops/registry.js';
import { storedDoc } from '../helpers/documents.js';
import { BACKENDS, startServerOn } from '../helpers/backend-server.js';
import { tempDir, type TestServer } from '../helpers/app.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { makePayment, startFacilitator, TEST_RAIL, type Facilitator } from '../helpers/x402-facilitator.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PAGE = 'https://docs.example.com/matrix/pooling';
const HOOK = 'http://127.0.0.1:9/hook'; // never called: this server runs no monitor engine

/** What one call of an entry sends: the path's ids, the query and the body (MCP: all three as arguments). */
interface Call {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: Json;
  /** A body that is a file, not JSON (an upload route): its media type and text. */
  file?: { type: string; text: string };
}

/** Small folders the operator's code index jobs read, removed after the suite. */
const folders: { dir: string; cleanup(): void }[] = [];
/** A folder of one source file, for a code index job. */
function smallFolder(): string {
  const folder = tempDir('trawl-matrix-code-');
  fs.writeFileSync(path.join(folder.dir, 'pool.ts'), 'export const poolSize = (n: number) => Math.max(1, n);\n');
  folders.push(folder);
  return folder.dir;
}

/** The world of one backend: its server, a key per caller, and team A's resources made by the owner. */
interface World {
  t: TestServer;
  facilitator: Facilitator;
  model: ModelServer;
  /** A loopback host that answers no request (the page of a task still at work). */
  silent: { url: string; close(): Promise<void> };
  teamA: { id: string; name: string };
  keys: Record<Exclude<Principal, 'none' | 'x402'>, string> & { noScopeSearch: string; noScopeContents: string };
  monitorId: string;
  runId: string;
  agentRunId: string;
  taskId: string;
  /** A webhook delivery of team A's monitor (its `monitor.created` event, pending: no engine runs here). */
  deliveryId: string;
  /** An operator job (a code index of a small folder), the installation's. */
  jobId: string;
  /** An agent run of team A's owner that has ended (made on first use). */
  endedRunId: string;
  cursor: { tool: string; args: Json; cursor: string };
  mcp: Map<string, Client>;
  modernMcp: Map<string, ModernClient>;
}

/** One request per registry operation, on team A's resources (fresh ones where the call changes them). */
const REQUESTS: Record<string, (w: World) => Promise<Call>> = {
  search: async () => ({ body: { query: 'connection pooling', numResults: 3 } }),
  findSimilar: async () => ({ body: { url: PAGE, numResults: 3 } }),
  contents: async () => ({ body: { urls: [PAGE], maxAgeHours: -1 } }),
  context: async () => ({ body: { query: 'connection pooling' } }),
  answer: async () => ({ body: { query: 'what is connection pooling?' } }),
  'monitors.create': async () => ({ body: { search: { query: 'pooling' }, webhook: { url: HOOK } } }),
  'monitors.list': async () => ({}),
  'monitors.get': async (w) => ({ params: { id: w.monitorId } }),
  'monitors.update': async (w) => ({ params: { id: w.monitorId }, body: { name: 'renamed' } }),
  'monitors.delete': async (w) => ({ params: { id: await newMonitor(w) } }),
  'monitors.trigger': async (w) => ({ params: { id: w.monitorId } }),
  'monitors.runs.list': async (w) => ({ params: { id: w.monitorId } }),
  'monitors.runs.get': async (w) => ({ params: { id: w.monitorId, runId: w.runId } }),
  'monitors.deliveries.list': async (w) => ({ params: { id: w.monitorId } }),
  'agent.create': async () => ({ body: { query: 'connection pooling', effort: 'minimal' } }),
  'agent.list': async () => ({}),
  'agent.get': async (w) => ({ params: { id: w.agentRunId } }),
  'agent.events': async (w) => ({ params: { id: w.agentRunId } }),
  'agent.cancel': async (w) => ({ params: { id: await newAgentRun(w) } }),
  'agent.delete': async (w) => ({ params: { id: await newAgentRun(w) } }),
  'admin.teams.list': async () => ({}),
  'admin.teams.create': async () => ({ body: { name: `made-${Math.random().toString(36).slice(2, 10)}` } }),
  'admin.teams.update': async (w) => ({ params: { team: w.teamA.name }, body: { enterprise: false } }),
  'admin.teams.credits': async (w) => ({ params: { team: w.teamA.name }, body: { amount: 1 } }),
  'admin.keys.list': async () => ({}),
  'admin.keys.create': async (w) => ({ body: { name: 'made', team: w.teamA.name } }),
  'admin.keys.revoke': async (w) => ({ params: { id: await newKeyOfA(w) } }),
  'admin.keys.update': async (w) => ({ params: { id: await newKeyOfA(w) }, body: { scopes: ['search'] } }),
  'admin.usage': async () => ({}),
  'admin.audit': async () => ({}),
  'admin.status': async () => ({}),
  'console.usage.series': async () => ({}),
  // a crawl of a closed port: it fails at once, and holds nothing at the suite's end
  'console.crawls.create': async () => ({ body: { urls: ['http://127.0.0.1:9/'], maxPages: 1 } }),
  'console.imports.create': async () => ({
    query: { collection: 'matrix' },
    file: { type: 'application/x-ndjson', text: '{"_id": "m1", "title": "Matrix", "text": "An imported record."}\n' },
  }),
  'console.code.create': async () => ({ body: { path: smallFolder() } }),
  'console.jobs.list': async () => ({}),
  'console.jobs.get': async (w) => ({ params: { id: w.jobId } }),
  'console.deliveries.retry': async (w) => ({ params: { id: w.monitorId, deliveryId: w.deliveryId } }),
  'console.tasks.list': async () => ({}),
  // an ended run (cancelled, if it had not finished): its followed stream ends with it
  'console.agent.events': async (w) => ({ params: { id: (w.endedRunId ||= await endedAgentRun(w)) } }),
};

/** Whether a list answer holds team A's resource, per list operation. */
const HOLDS_A: Record<string, (body: Json, w: World) => boolean> = {
  'monitors.list': (b, w) => b.data.some((m: Json) => m.id === w.monitorId),
  'agent.list': (b, w) => b.data.some((r: Json) => r.id === w.agentRunId),
  'admin.teams.list': (b, w) => b.data.some((t: Json) => t.id === w.teamA.id),
  'admin.keys.list': (b, w) => b.data.some((k: Json) => k.teamId === w.teamA.id),
  'admin.usage': (b, w) => b.data.some((l: Json) => l.teamId === w.teamA.id),
  'admin.audit': (b, w) => b.data.some((r: Json) => r.teamId === w.teamA.id),
  'console.usage.series': (b, w) => b.data.some((p: Json) => p.teamId === w.teamA.id),
  'console.tasks.list': (b, w) => b.data.some((task: Json) => task.taskId === w.taskId),
};

/** A loopback host that takes requests and never answers them (until closed). */
async function startSilentHost(): Promise<World['silent']> {
  const sockets = new Set<Socket>();
  const server = http.createServer(() => undefined);
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const keyHeader = (key: string | undefined): Record<string, string> => (key ? { 'x-api-key': key } : {});

/** The key `who` calls `entry` with (a key lacking the entry's scope for `noScope`); none without a key. */
function keyOf(w: World, who: Principal, entry: MatrixEntry): string | undefined {
  if (who === 'none' || who === 'x402') return undefined;
  if (who === 'noScope') return scopesFor('noScope', entry)![0] === 'search' ? w.keys.noScopeSearch : w.keys.noScopeContents; // prettier-ignore
  return w.keys[who];
}

/** An HTTP answer as the matrix reads it: 2xx is `ok`, a refusal its tag (monitor routes answer `{error}` only). */
function outcomeOf(status: number, body: Json): Outcome {
  if (status >= 200 && status < 300) return 'ok';
  if (typeof body.tag === 'string') return body.tag as Outcome;
  const byStatus: Record<number, Outcome> = { 401: 'INVALID_API_KEY', 402: 'X402_PAYMENT_REQUIRED', 404: 'NOT_FOUND' };
  if (status === 403) return /is blocked/.test(String(body.error)) ? 'TEAM_BLOCKED' : 'INSUFFICIENT_SCOPE';
  return byStatus[status] ?? (`HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}` as Outcome);
}

/** A keyless call paid with x402: the challenge, then the payment for its first requirement. */
async function paidHeaders(w: World, url: string, init: RequestInit): Promise<Record<string, string>> {
  const challenge = (await (await fetch(url, init)).json()) as Json;
  if (!challenge.accepts) return {};
  return { 'PAYMENT-SIGNATURE': makePayment(challenge.accepts[0]) };
}

/** Calls a REST route as `who`; the outcome and the body. */
async function callRest(w: World, op: (typeof OPERATIONS)[number], entry: MatrixEntry, who: Principal) {
  const call = await REQUESTS[op.name]!(w);
  let path = op.route.path;
  for (const [name, value] of Object.entries(call.params ?? {}))
    path = path.replace(`:${name}`, encodeURIComponent(value));
  const url = `${w.t.url}${path}${call.query ? `?${new URLSearchParams(call.query)}` : ''}`;
  const headers: Record<string, string> = { ...keyHeader(keyOf(w, who, entry)) };
  if (call.body) headers['content-type'] = 'application/json';
  if (call.file) headers['content-type'] = call.file.type;
  const init: RequestInit = {
    method: op.route.method,
    headers,
    body: call.body ? JSON.stringify(call.body) : call.file?.text,
  };
  if (who === 'x402') Object.assign(headers, await paidHeaders(w, url, init));
  const res = await fetch(url, init);
  const text = await res.text();
  // an event stream (a followed agent run) is an answer too: its events are not JSON
  const json = /json/.test(res.headers.get('content-type') ?? '');
  const body = (text && json ? JSON.parse(text) : {}) as Json;
  return { outcome: outcomeOf(res.status, body), body };
}

/** A connected MCP client of `key` serving every tool. */
async function mcpClient(w: World, key: string): Promise<Client> {
  let client = w.mcp.get(key);
  if (!client) {
    const transport = new StreamableHTTPClientTransport(new URL(`${w.t.url}/mcp?tools=all`), {
      requestInit: { headers: { 'x-api-key': key } },
    });
    client = new Client({ name: 'matrix', version: '1.0.0' });
    await client.connect(transport);
    w.mcp.set(key, client);
  }
  return client;
}

/** A v2 client (2026-07-28, declaring the Tasks extension) of `key`. */
async function modernMcpClient(w: World, key: string): Promise<ModernClient> {
  let client = w.modernMcp.get(key);
  if (!client) {
    client = modernClient(true);
    await client.connect(new ModernHttp(new URL(`${w.t.url}/mcp?tools=all`), { requestInit: { headers: { 'x-api-key': key } } })); // prettier-ignore
    w.modernMcp.set(key, client);
  }
  return client;
}

/** A refused caller at /mcp: the HTTP answer to one JSON-RPC message, before any server is built. */
async function rawMcp(w: World, who: Principal, method: string, params: Json): Promise<Outcome> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const key = who === 'blocked' ? w.keys.blocked : undefined;
  const res = await fetch(`${w.t.url}/mcp`, {
    method: 'POST',
    headers: { ...headers, ...keyHeader(key), ...(who === 'x402' ? { 'PAYMENT-SIGNATURE': 'e30=' } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return outcomeOf(res.status, (await res.json()) as Json);
}

/** A tool result (or a protocol error) as the matrix reads it: the tag its error names, else `ok`. */
function toolOutcome(result: Json | Error): Outcome {
  if (result instanceof Error) {
    const tag = /\b([A-Z][A-Z_]{3,}):/.exec(result.message)?.[1];
    if (tag) return tag as Outcome;
    return (/not found/i.test(result.message) ? 'NOT_FOUND' : `error: ${result.message}`) as Outcome;
  }
  if (!result.isError) return 'ok';
  const text = String(result.content?.[0]?.text ?? '');
  return (/^([A-Z_]+):/.exec(text)?.[1] ?? `error: ${text.slice(0, 200)}`) as Outcome;
}

/** Calls `tool` with `args` as a keyed caller; the outcome and the structured content. */
async function callTool(w: World, key: string, tool: string, args: Json) {
  const client = await mcpClient(w, key);
  const result = await client.callTool({ name: tool, arguments: args }).catch((err: Error) => err);
  return { outcome: toolOutcome(result as Json | Error), structured: (result as Json).structuredContent as Json };
}

async function newMonitor(w: World): Promise<string> {
  const res = await fetch(`${w.t.url}/monitors`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': w.keys.owner },
    body: JSON.stringify({ search: { query: 'pooling' }, webhook: { url: HOOK } }),
  });
  expect(res.status, 'the owner makes a monitor').toBe(201);
  return ((await res.json()) as Json).id;
}

async function newAgentRun(w: World): Promise<string> {
  const res = await fetch(`${w.t.url}/agent/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': w.keys.owner },
    body: JSON.stringify({ query: 'connection pooling', effort: 'minimal' }),
  });
  expect(res.status, 'the owner starts an agent run').toBe(201);
  return ((await res.json()) as Json).id;
}

/** A run of team A's owner that has ended. */
async function endedAgentRun(w: World): Promise<string> {
  const id = await newAgentRun(w);
  await fetch(`${w.t.url}/agent/runs/${id}/cancel`, { method: 'POST', headers: { 'x-api-key': w.keys.owner } });
  return id;
}

const newKeyOfA = async (w: World) =>
  (await w.t.app.services.keys.create('of team A', { teamId: w.teamA.id }, null)).id;

/** Team A, B and a blocked team C; a key per caller; team A's monitor, run, agent run, task and answer cursor. */
async function buildWorld(t: TestServer, parts: Pick<World, 'facilitator' | 'model' | 'silent'>): Promise<World> {
  const { teams } = t.app.services.accounts;
  const keys = t.app.services.keys;
  const [a, b, c] = [await teams.create('team-a', {}, null), await teams.create('team-b', {}, null), await teams.create('team-c', {}, null)]; // prettier-ignore
  const make = async (team: string, scopes: Principal | 'search' | 'contents') => {
    const list = scopes === 'search' || scopes === 'contents' ? [scopes] : scopesFor(scopes, {})!;
    return (await keys.create(`${scopes} of ${team}`, { teamId: team, scopes: [...list] }, null)).key;
  };
  const w: World = {
    t,
    ...parts,
    teamA: { id: a.id, name: a.name },
    keys: {
      owner: await make(a.id, 'owner'),
      teammate: (await keys.create('teammate', { teamId: a.id }, null)).key,
      otherTeam: await make(b.id, 'otherTeam'),
      noScope: '',
      noScopeSearch: await make(a.id, 'search'),
      noScopeContents: await make(a.id, 'contents'),
      blocked: await make(c.id, 'blocked'),
      operator: await make(b.id, 'operator'),
    },
    monitorId: '',
    runId: '',
    agentRunId: '',
    taskId: '',
    deliveryId: '',
    jobId: '',
    endedRunId: '',
    cursor: { tool: 'search', args: {}, cursor: '' },
    mcp: new Map(),
    modernMcp: new Map(),
  };
  await teams.block(c.id, null);
  await t.app.services.documents.upsertMany(
    Array.from(
      { length: 12 },
      (_, i) =>
      storedDoc(i === 0 ? PAGE : `${PAGE}/${i}`, `Connection pooling, part ${i}`, `Connection pooling keeps sockets open. ${'Pooled sockets are reused. '.repeat(40)}`), // prettier-ignore
    ),
    new Date().toISOString(),
  );
  await fetch(`${t.url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': w.keys.owner },
    body: JSON.stringify({ query: 'pooling' }),
  }); // prettier-ignore: team A spends
  w.monitorId = await newMonitor(w);
  await fetch(`${t.url}/monitors/${w.monitorId}/trigger`, { method: 'POST', headers: { 'x-api-key': w.keys.owner } });
  const runs = (await (await fetch(`${t.url}/monitors/${w.monitorId}/runs`, { headers: { 'x-api-key': w.keys.owner } })).json()) as Json; // prettier-ignore
  w.runId = runs.data[0].id;
  w.agentRunId = await newAgentRun(w);
  const deliveries = (await (await fetch(`${t.url}/monitors/${w.monitorId}/deliveries`, { headers: { 'x-api-key': w.keys.owner } })).json()) as Json; // prettier-ignore
  w.deliveryId = deliveries.data[0].eventId;
  const job = await fetch(`${t.url}/console/api/code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': w.keys.operator },
    body: JSON.stringify({ path: smallFolder() }),
  });
  expect(job.status, 'the operator starts a job').toBe(202);
  w.jobId = ((await job.json()) as Json).id;
  const owner = await mcpClient(w, w.keys.owner);
  const started = await owner.request({ method: 'tools/call', params: { name: 'search', arguments: { query: 'pooling' }, task: {} } }, CreateTaskResultSchema); // prettier-ignore
  w.taskId = started.task.taskId;
  const args = { query: 'connection pooling', numResults: 10, contents: { text: true } };
  const first = (await owner.callTool({ name: 'search', arguments: { ...args, maxTokens: 500 } })) as Json;
  const cursor = first.structuredContent?.nextCursor as string | undefined;
  expect(cursor, 'the owner gets a cut answer and its cursor').toMatch(/^ans\./);
  w.cursor = { tool: 'search', args: { ...args, maxTokens: 500 }, cursor: cursor! };
  return w;
}

/** A task of team A's owner still at work: the page it reads never answers. */
async function openTask(w: World): Promise<string> {
  const owner = await mcpClient(w, w.keys.owner);
  const args = { urls: [`${w.silent.url}/page`], maxAgeHours: 0, livecrawlTimeout: 60_000 };
  const started = await owner.request({ method: 'tools/call', params: { name: 'get_contents', arguments: args, task: {} } }, CreateTaskResultSchema); // prettier-ignore
  return started.task.taskId;
}

/** What calling an MCP method entry takes (a task still at work, for a cancel). */
async function mcpCall(
  w: World,
  entry: MatrixEntry,
): Promise<{
  method: string;
  params: Json;
  run: (key: string) => Promise<Json | Error>;
  holdsA?: (result: Json) => boolean;
}> {
  const protocol = (key: string, method: string, params: Json) =>
    mcpClient(w, key)
      .then((c) => c.request({ method, params } as never, ResultSchema))
      .catch((err: Error) => err) as Promise<Json | Error>;
  switch (entry.name) {
    case 'tasks/get':
    case 'tasks/result':
    case 'tasks/cancel': {
      const params = { taskId: entry.name === 'tasks/cancel' ? await openTask(w) : w.taskId };
      return { method: entry.name, params, run: (k) => protocol(k, entry.name, params) };
    }
    case 'tasks/get (2026-07-28)':
    case 'tasks/update (2026-07-28)':
    case 'tasks/cancel (2026-07-28)': {
      // the v2 client: 2026-07-28, the Tasks extension's methods (an ended task: its cancel is acknowledged
      // as a no-op, and opens no task that would hold one of the owner's requests in flight)
      const method = entry.name.split(' ')[0]!;
      const params = { taskId: w.taskId };
      const run = (k: string) =>
        modernMcpClient(w, k)
          .then((c) => c.request({ method, params }, z.looseObject({})))
          .catch((err: Error) => err) as Promise<Json | Error>;
      return { method, params, run };
    }
    case 'tasks/list': {
      const holdsA = (result: Json) => (result.tasks as Json[]).some((t) => t.taskId === w.taskId);
      return { method: 'tasks/list', params: {}, run: (k) => protocol(k, 'tasks/list', {}), holdsA };
    }
    case 'resources/read trawl://agent-runs/{id}': {
      const params = { uri: `trawl://agent-runs/${w.agentRunId}` };
      return { method: 'resources/read', params, run: (k) => protocol(k, 'resources/read', params) };
    }
    case 'resources/list': {
      const id = await newAgentRun(w); // the newest, so within the list's first page
      const holdsA = (result: Json) => (result.resources as Json[]).some((r) => String(r.uri).endsWith(id));
      return { method: 'resources/list', params: {}, run: (k) => protocol(k, 'resources/list', {}), holdsA };
    }
    case 'tools/call with an answer cursor': {
      const params = { name: w.cursor.tool, arguments: { ...w.cursor.args, cursor: w.cursor.cursor } };
      return { method: 'tools/call', params, run: (k) => protocol(k, 'tools/call', params) };
    }
    default:
      throw new Error(`no call for MCP method ${entry.name}`);
  }
}

describe.each(BACKENDS)('the authorization matrix on %s', (backend) => {
  let w: World;
  const sections = accessMatrixSections();
  const [rest, tools, methods, doorRoutes] = sections.map((s) => s.entries) as [MatrixEntry[], MatrixEntry[], MatrixEntry[], MatrixEntry[]]; // prettier-ignore

  beforeAll(async () => {
    const [facilitator, model, silent] = await Promise.all([startFacilitator(), startModelServer({ reply: () => 'An answer [1].' }), startSilentHost()]); // prettier-ignore
    const t = await startServerOn(backend, {
      x402Rails: JSON.stringify([TEST_RAIL]),
      x402FacilitatorUrl: facilitator.url,
      modelBaseUrl: model.baseUrl,
      model: 'matrix-model',
      allowInsecureWebhooks: true,
      privateAllowlist: '127.0.0.1/32',
      tools: 'all',
    });
    w = await buildWorld(t, { facilitator, model, silent });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([...(w?.mcp.values() ?? []), ...(w?.modernMcp.values() ?? [])].map((c) => c.close()));
    await w?.t.close();
    await Promise.all([w?.facilitator.close(), w?.model.close(), w?.silent.close()]);
    for (const folder of folders.splice(0)) folder.cleanup();
  });

  it('has a request for every operation of the registry', () => {
    expect(OPERATIONS.map((op) => op.name).filter((name) => !REQUESTS[name])).toEqual([]);
  });

  it('answers every REST route as the matrix says, for every caller', { timeout: 120_000 }, async () => {
    const wrong: string[] = [];
    for (const [i, op] of OPERATIONS.entries()) {
      const entry = rest[i]!;
      for (const who of PRINCIPALS) {
        const expected = expectedOutcome(entry, who, { x402: true });
        const { outcome, body } = await callRest(w, op, entry, who);
        const listed = outcome === 'ok' && HOLDS_A[op.name] ? (HOLDS_A[op.name]!(body, w) ? 'ok' : 'own') : outcome;
        if (listed !== expected) wrong.push(`${entry.name} as ${who}: ${listed}, not ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('answers every MCP tool and action as the matrix says, for every caller', { timeout: 120_000 }, async () => {
    const wrong: string[] = [];
    for (const entry of tools) {
      const [tool, action] = entry.name.split(' ') as [string, string | undefined];
      const op = OPERATIONS.find((o) => (o.toolGroup ? `${o.toolGroup.tool} ${o.toolGroup.action}` : o.tool) === entry.name); // prettier-ignore
      for (const who of PRINCIPALS) {
        const call = op ? await REQUESTS[op.name]!(w) : { body: { query: 'connection pooling', effort: 'minimal' } };
        const args = { ...call.body, ...call.query, ...call.params, ...(action ? { action } : {}) };
        const expected = expectedOutcome(entry, who, { x402: true });
        const key = keyOf(w, who, entry);
        let got: Outcome;
        if (who === 'none' || who === 'x402' || who === 'blocked') {
          got = await rawMcp(w, who, 'tools/call', { name: tool, arguments: args });
        } else {
          const { outcome, structured } = await callTool(w, key!, tool, args);
          const holds = op && HOLDS_A[op.name];
          got = outcome === 'ok' && holds ? (holds(structured, w) ? 'ok' : 'own') : outcome;
        }
        if (got !== expected) wrong.push(`${entry.name} as ${who}: ${got}, not ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('answers the door’s own routes (GET /metrics) as the matrix says, for every caller', async () => {
    expect(doorRoutes.map((e) => e.name)).toEqual(['GET /metrics']);
    const wrong: string[] = [];
    for (const entry of doorRoutes) {
      const [method, path] = entry.name.split(' ') as [string, string];
      for (const who of PRINCIPALS) {
        const expected = expectedOutcome(entry, who, { x402: true });
        const res = await fetch(`${w.t.url}${path}`, { method, headers: keyHeader(keyOf(w, who, entry)) });
        const json = /json/.test(res.headers.get('content-type') ?? '');
        const got = outcomeOf(res.status, json ? ((await res.json()) as Json) : (await res.text(), {}));
        if (got !== expected) wrong.push(`${entry.name} as ${who}: ${got}, not ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('answers every MCP method that reaches a stored resource as the matrix says', { timeout: 60_000 }, async () => {
    const wrong: string[] = [];
    for (const entry of methods) {
      for (const who of PRINCIPALS) {
        const call = await mcpCall(w, entry);
        const expected = expectedOutcome(entry, who, { x402: true });
        let got: Outcome;
        if (who === 'none' || who === 'x402' || who === 'blocked') {
          got = await rawMcp(w, who, call.method, call.params);
        } else {
          const result = await call.run(keyOf(w, who, entry)!);
          got = result instanceof Error || result.isError ? toolOutcome(result) : 'ok';
          if (got === 'ok' && call.holdsA) got = call.holdsA(result as Json) ? 'ok' : 'own';
        }
        if (got !== expected) wrong.push(`${entry.name} as ${who}: ${got}, not ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
