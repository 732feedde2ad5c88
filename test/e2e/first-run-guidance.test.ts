/**
 * Issue 20, problem 1, replayed as a new user would: the first searches on a fresh data directory, with
 * no provider and no model configured, through the real REST door and the MCP tool. Each empty or
 * degraded answer says why and what to do in `warnings` (the MCP text under its heading); nothing to
 * search costs nothing and records no usage; a local-only search that finds results carries no warning.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARNINGS } from '../../src/core/warnings.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { connectMcp, outsideFences, textOf, type ToolResult } from '../helpers/mcp.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A started test server, closed after the file. */
async function server(flags: Record<string, unknown> = {}): Promise<TestServer> {
  const t = await startTestServer(flags);
  closers.push(() => t.close());
  return t;
}

/** A loopback HTTP server answering every request with `handler`, closed after the file. */
async function loopback(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve()))));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

const post = (t: TestServer, path: string, body: unknown) => postJson(t.url, path, body, { 'x-api-key': t.key });
const codes = (body: Json) => (body.warnings as { code: string }[] | undefined)?.map((w) => w.code);
/** What the app recorded as spent today, in dollars, over every team and key. */
const spentToday = async (t: TestServer) =>
  (await t.app.services.accounts.teams.usage(Date.now(), null)).reduce((sum, line) => sum + line.spent, 0);

const POOL = storedDoc(
  'https://docs.example.com/pool',
  'Connection pools',
  'An undici Pool keeps sockets open to one origin and reuses them for later requests.',
);

describe('the first search: empty index, no provider', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await server();
  });

  it('answers over REST with INDEX_EMPTY saying what to do, charges $0 and records no usage', async () => {
    const res = await post(t, '/search', { query: 'how do I reuse sockets in undici' });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
    expect(res.body.warnings).toEqual([{ code: 'INDEX_EMPTY', message: WARNINGS.INDEX_EMPTY }]);
    expect(WARNINGS.INDEX_EMPTY).toMatch(/trawl crawl URL.*trawl import FILE.*TRAWL_SEARXNG_URL.*TRAWL_BRAVE_API_KEY.*TRAWL_UPSTREAM_URL/); // prettier-ignore
    expect(res.body.costDollars).toEqual({ total: 0 });
    expect(await spentToday(t)).toBe(0);
  });

  it('says the same over MCP, in the text under the heading and in structuredContent', async () => {
    const client = await connectMcp(t.app);
    closers.push(() => client.close());
    const res = (await client.callTool({ name: 'search', arguments: { query: 'undici pool' } })) as ToolResult;
    expect(res.isError ?? false).toBe(false);
    expect(outsideFences(textOf(res))).toBe(`0 results\nNo results.\nWarning INDEX_EMPTY: ${WARNINGS.INDEX_EMPTY}`);
    expect(res.structuredContent?.warnings).toEqual([{ code: 'INDEX_EMPTY', message: WARNINGS.INDEX_EMPTY }]);
    expect(res.structuredContent?.costDollars).toEqual({ total: 0 });
    expect(await spentToday(t)).toBe(0);
  });

  it('plans no searches and asks no model for a deep search: nothing to search, nothing charged', async () => {
    const model: ModelServer = await startModelServer({ reply: { json: { queries: ['undici pool reuse'] } } });
    closers.push(() => model.close());
    const withModel = await server({ modelBaseUrl: model.baseUrl, model: 'gpt-4o-mini', modelTimeoutMs: 3000 });
    const res = await post(withModel, '/search', { query: 'undici pool', type: 'deep' });
    expect(res.status).toBe(200);
    expect(codes(res.body)).toEqual(['INDEX_EMPTY']);
    expect(res.body.costDollars).toEqual({ total: 0 });
    expect(model.requests).toHaveLength(0);
    expect(await spentToday(withModel)).toBe(0);
  });

  it('tells findSimilar that the index holds nothing to compare the page with, at $0', async () => {
    const site = await loopback((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<title>Pools</title><main><h1>Pools</h1><p>An undici Pool reuses sockets to one origin.</p></main>'),
    );
    const local = await server({ privateAllowlist: ['127.0.0.1'] });
    const res = await post(local, '/findSimilar', { url: `${site}/pools` });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
    expect(res.body.warnings).toEqual([{ code: 'NOTHING_TO_COMPARE', message: WARNINGS.NOTHING_TO_COMPARE }]);
    expect((res.body.costDollars as Json).total).toBe(0);
    expect(await spentToday(local)).toBe(0);
  });
});

describe('pages in the index, no provider', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await server();
    await t.app.services.documents.upsertMany([POOL], new Date().toISOString());
  });

  it('says NO_SEARCH_PROVIDER when nothing matches, and charges the search', async () => {
    const res = await post(t, '/search', { query: 'zyxwvutsrq' });
    expect(res.body.results).toEqual([]);
    expect(res.body.warnings).toEqual([{ code: 'NO_SEARCH_PROVIDER', message: WARNINGS.NO_SEARCH_PROVIDER }]);
    expect(WARNINGS.NO_SEARCH_PROVIDER).toMatch(/TRAWL_SEARXNG_URL.*trawl crawl URL/);
    expect((res.body.costDollars as Json).total).toBeGreaterThan(0);
  });

  it('carries no warning at all when the local index answers: Trawl’s normal mode', async () => {
    const res = await post(t, '/search', { query: 'undici pool sockets' });
    expect((res.body.results as Json[]).map((r) => r.url)).toEqual([POOL.url]);
    expect(res.body).not.toHaveProperty('warnings');
    const client = await connectMcp(t.app);
    closers.push(() => client.close());
    const mcp = (await client.callTool({ name: 'search', arguments: { query: 'undici pool sockets' } })) as ToolResult;
    expect(outsideFences(textOf(mcp))).not.toMatch(/Warning|No results/);
    expect(mcp.structuredContent).not.toHaveProperty('warnings');
  });

  it('says MODEL_MISSING when a summary or an answer is asked for without a model', async () => {
    const summary = await post(t, '/search', { query: 'undici pool', contents: { summary: true } });
    expect(codes(summary.body)).toEqual(['MODEL_MISSING']);
    expect((summary.body.warnings as Json[])[0]!.message).toMatch(/TRAWL_MODEL_BASE_URL.*TRAWL_MODEL/);
    expect(typeof (summary.body.results as Json[])[0]!.summary).toBe('string');
    const answer = await post(t, '/search', { query: 'undici pool', outputSchema: { type: 'text' } });
    expect(codes(answer.body)).toEqual(['MODEL_MISSING']);
    expect(answer.body.output).toBeDefined();
  });

  it('puts /contents degraded states in each status message, never in a top-level field', async () => {
    const res = await post(t, '/contents', { ids: [POOL.url], summary: true });
    expect(Object.keys(res.body).sort()).toEqual(['costDollars', 'requestId', 'results', 'searchTime', 'statuses']);
    expect(res.body.statuses).toEqual([
      { id: POOL.url, status: 'success', source: 'cached', message: expect.stringMatching(/^The summary is extractive.*TRAWL_MODEL_BASE_URL/) }, // prettier-ignore
    ]);
  });

  it('says a note shared by several pages once in the get_contents text', async () => {
    const other = storedDoc('https://docs.example.com/agent', 'Agents', 'An undici Agent keeps one Pool per origin.');
    await t.app.services.documents.upsertMany([other], new Date().toISOString());
    const client = await connectMcp(t.app);
    closers.push(() => client.close());
    const args = { ids: [POOL.url, other.url], summary: true };
    const res = (await client.callTool({ name: 'get_contents', arguments: args })) as ToolResult;
    const statuses = res.structuredContent?.statuses as Json[];
    expect(statuses.map((s) => s.message)).toEqual([statuses[0]!.message, statuses[0]!.message]);
    expect(outsideFences(textOf(res))).toContain(`\nNotes:\n- ${POOL.url}, ${other.url}: ${statuses[0]!.message as string}`); // prettier-ignore
  });
});

describe('a web-search provider that fails', () => {
  it('answers from the index with PROVIDER_FAILED naming the provider, over REST and MCP', async () => {
    const failing = await loopback((_req, res) => res.writeHead(500).end('down'));
    const t = await server({ searxngUrl: failing });
    await t.app.services.documents.upsertMany([POOL], new Date().toISOString());
    const res = await post(t, '/search', { query: 'undici pool' });
    expect((res.body.results as Json[]).map((r) => r.url)).toEqual([POOL.url]);
    expect(res.body.warnings).toEqual([{ code: 'PROVIDER_FAILED', message: `${WARNINGS.PROVIDER_FAILED} (searxng)` }]);
    const client = await connectMcp(t.app);
    closers.push(() => client.close());
    const mcp = (await client.callTool({ name: 'search', arguments: { query: 'undici pool' } })) as ToolResult;
    expect(outsideFences(textOf(mcp))).toMatch(/^1 results\nWarning PROVIDER_FAILED: .*\(searxng\)\n/);
  });

  it('says the same when the provider times out', async () => {
    const slow = await loopback((_req, res) => void setTimeout(() => res.writeHead(500).end(), 3000).unref());
    const t = await server({ searxngUrl: slow, providerTimeoutMs: 300 });
    const res = await post(t, '/search', { query: 'undici pool', type: 'fast' });
    expect(res.status).toBe(200);
    expect(codes(res.body)).toEqual(['PROVIDER_FAILED']);
  });
});
