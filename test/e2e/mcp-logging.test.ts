/**
 * MCP logging through the SDK's real Client: the warnings a user should see (src/core/warnings.ts) as
 * `notifications/message` during a tool call (in memory and on the call's own stream over stateless
 * HTTP), `logging/setLevel` silencing them (over HTTP, for the requests of that POST), and REST answers
 * carrying the same warnings in their `warnings` field.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOG_LEVEL_META_KEY } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/compose/app.js';
import { WARNINGS } from '../../src/core/warnings.js';
import { buildMcpServer } from '../../src/mcp/server.js';
import { makeTestApp, postJson, startTestServer, type TestApp, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { connectModernMcp } from '../helpers/mcp.js';

type Logged = { level: string; logger?: string; data: { code: string; message: string } };

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A client of `app` that records the log notifications it receives. */
async function connect(app: App): Promise<{ client: Client; logged: Logged[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(app, { caller: null, betas: new Set() }).connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  const logged: Logged[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params as Logged));
  await client.connect(clientSide);
  closers.push(() => client.close());
  return { client, logged };
}
/** What `name` logs when called with `args`: the codes, in order. */
async function codesOf(c: { client: Client; logged: Logged[] }, name: string, args: Record<string, unknown>) {
  c.logged.length = 0;
  await c.client.callTool({ name, arguments: args });
  return c.logged.map((l) => l.data.code);
}

describe('warnings as log notifications', () => {
  let empty: TestApp;
  beforeAll(() => {
    empty = makeTestApp();
    closers.push(() => empty.close());
  });

  it('tells a client searching an empty index with no provider what to do, as a warning from trawl', async () => {
    const c = await connect(empty.app);
    expect(c.client.getServerCapabilities()?.logging).toEqual({});
    expect(await codesOf(c, 'search', { query: 'undici pool' })).toEqual(['INDEX_EMPTY']);
    expect(c.logged[0]).toEqual({ level: 'warning', logger: 'trawl', data: { code: 'INDEX_EMPTY', message: WARNINGS.INDEX_EMPTY } }); // prettier-ignore
    expect(c.logged[0]!.data.message).toMatch(/trawl crawl URL.*trawl import FILE.*TRAWL_SEARXNG_URL/);
  });

  it('sends nothing below the level the client set with logging/setLevel, and again once it lowers it', async () => {
    const c = await connect(empty.app);
    await c.client.setLoggingLevel('error');
    expect(await codesOf(c, 'search', { query: 'undici pool' })).toEqual([]);
    await c.client.setLoggingLevel('warning');
    expect(await codesOf(c, 'search', { query: 'undici pool' })).toEqual(['INDEX_EMPTY']);
  });

  it('says when the index has pages but none match and there is no provider to ask, or a summary needs a model', async () => {
    const t = makeTestApp();
    closers.push(() => t.close());
    await t.app.services.documents.upsertMany([storedDoc('https://docs.example.com/pool', 'Pools', 'An undici Pool keeps sockets open.')], new Date().toISOString()); // prettier-ignore
    const c = await connect(t.app);
    expect(await codesOf(c, 'search', { query: 'zyxwvutsrq' })).toEqual(['NO_SEARCH_PROVIDER']);
    expect(await codesOf(c, 'search', { query: 'undici pool' })).toEqual([]);
    expect(await codesOf(c, 'search', { query: 'undici pool', contents: { summary: true } })).toEqual(['MODEL_MISSING']); // prettier-ignore
  });

  it('says a fetch was refused by policy, naming the URL', async () => {
    const c = await connect(empty.app);
    expect(await codesOf(c, 'get_contents', { urls: ['http://127.0.0.1/private'] })).toEqual(['FETCH_REFUSED']);
    expect(c.logged[0]!.data.message).toContain('http://127.0.0.1/private');
  });

  it('says a web-search provider failed, naming it', async () => {
    const failing = http.createServer((_req, res) => res.writeHead(500).end('down'));
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => failing.close(() => resolve())));
    const t = makeTestApp({ searxngUrl: `http://127.0.0.1:${(failing.address() as AddressInfo).port}` });
    closers.push(() => t.close());
    const c = await connect(t.app);
    expect(await codesOf(c, 'search', { query: 'undici pool' })).toEqual(['PROVIDER_FAILED']);
    expect(c.logged[0]!.data.message).toMatch(/\(searxng\)$/);
  });
});

describe('warnings over stateless HTTP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    closers.push(() => s.close());
  });

  /** The SSE body of one POST of `messages` (a JSON-RPC batch) to /mcp. */
  const post = async (messages: unknown[]) => {
    const res = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': s.key }, // prettier-ignore
      body: JSON.stringify(messages),
    });
    expect(res.status).toBe(200);
    return res.text();
  };
  const search = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search', arguments: { query: 'undici' } } }; // prettier-ignore

  it('travel on the tool call’s own stream', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { 'x-api-key': s.key } } }); // prettier-ignore
    const client = new Client({ name: 'test', version: '1.0.0' });
    const logged: Logged[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params as Logged));
    await client.connect(transport);
    closers.push(() => client.close());
    await client.callTool({ name: 'search', arguments: { query: 'undici' } });
    expect(logged.map((l) => l.data.code)).toEqual(['INDEX_EMPTY']);
  });

  it('honour a level set in the same POST, and only there', async () => {
    const quiet = await post([{ jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'error' } }, search]); // prettier-ignore
    expect(quiet).toContain('"id":2');
    expect(quiet).not.toContain('notifications/message');
    const next = await post([search]);
    expect(next).toContain('"method":"notifications/message"');
    expect(next).toContain('"code":"INDEX_EMPTY"');
  });

  it('are the ones a REST answer carries in its warnings', async () => {
    const rest = await postJson(s.url, '/search', { query: 'undici' }, { 'x-api-key': s.key });
    expect(rest.status).toBe(200);
    expect(Object.keys(rest.body).sort()).toEqual(['costDollars', 'requestId', 'resolvedSearchType', 'results', 'searchTime', 'warnings']); // prettier-ignore
    expect(rest.body.warnings).toEqual([{ code: 'INDEX_EMPTY', message: WARNINGS.INDEX_EMPTY }]);
  });
});

describe('log levels of 2026-07-28 (in each request’s _meta)', () => {
  it('sends the warning to a v2 client, and nothing below the level its requests name', async () => {
    const t = makeTestApp();
    closers.push(() => t.close());
    const client = await connectModernMcp(t.app);
    closers.push(() => client.close());
    const logged: Logged[] = [];
    client.setNotificationHandler('notifications/message', (n) => void logged.push(n.params as Logged));
    await client.callTool({ name: 'search', arguments: { query: 'undici pool' } });
    expect(logged.map((l) => l.data.code)).toEqual(['INDEX_EMPTY']);

    logged.length = 0;
    const quiet = { _meta: { [LOG_LEVEL_META_KEY]: 'error' } };
    await client.callTool({ name: 'search', arguments: { query: 'undici pool' }, ...quiet });
    expect(logged).toEqual([]);
    await client.callTool({ name: 'search', arguments: { query: 'undici pool' }, _meta: { [LOG_LEVEL_META_KEY]: 'warning' } }); // prettier-ignore
    expect(logged.map((l) => l.data.code)).toEqual(['INDEX_EMPTY']);
  });
});
