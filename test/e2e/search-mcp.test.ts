/**
 * The MCP `search` tool end to end through the SDK's real Client over streamable HTTP: 1,500 characters
 * of page text per result by default, each result's page lines fenced under its number, ids and URLs
 * (never page text) as structuredContent, and answers within the token budget continued by cursor.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentRecord } from '../../src/store/contracts/documents.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { entryOf, fenced, joinedPieces, outsideFences, pageLines, readAll, textOf, tokensOf, type ToolResult } from '../helpers/mcp.js'; // prettier-ignore

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NOW = '2026-11-20T10:00:00.000Z';
const sentence = (i: number) => `Retry budgets bound how often a client retries a failed call, sentence ${i}. `;
const docs: DocumentRecord[] = Array.from({ length: 12 }, (_, i) => ({
  url: `https://docs.example.com/retries/${i}`,
  title: `Retry budgets, part ${i}`,
  text: sentence(i).repeat(400),
  author: null,
  publishedDate: '2025-01-02T00:00:00.000Z',
  kind: 'html',
  metadata: {},
  origin: 'fetch',
  collection: null,
  contentHash: `h${i}`,
  fetchedAt: NOW,
}));

async function connect(t: TestServer): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${t.key}` } },
  });
  const client = new Client({ name: 'search-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The same search over REST, with `contents` as given. */
const restSearch = async (t: TestServer, body: Json) =>
  (await postJson(t.url, '/search', body, { 'x-api-key': t.key })).body as Json & { results: Json[] };

let t: TestServer;
let small: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  small = await startTestServer({ mcpMaxTokens: 2000 });
  for (const s of [t, small]) await s.app.services.documents.upsertMany(docs, NOW);
});
afterAll(async () => {
  await t?.close();
  await small?.close();
});

describe('MCP search tool', () => {
  it('returns 1,500 characters of text per result by default, fenced under its number, with ids and URLs as structuredContent', async () => {
    const client = await connect(t);
    const res = (await client.callTool({ name: 'search', arguments: { query: 'retry budgets', numResults: 3 } })) as ToolResult; // prettier-ignore
    await client.close();
    expect(res.isError).toBeFalsy();
    const rest = await restSearch(t, { query: 'retry budgets', numResults: 3, contents: { text: { maxCharacters: 1500 } } }); // prettier-ignore
    expect(rest.results).toHaveLength(3);
    const { results, requestId: _r, searchTime: _s, ...fields } = rest;
    expect(res.structuredContent).toEqual({
      ...fields,
      requestId: expect.stringMatching(/^[0-9a-f]{32}$/),
      searchTime: expect.any(Number),
      results: results.map(entryOf),
    });
    // an entry cites and fetches its result: id, URL, title and date (no text, no null author)
    expect(Object.keys(res.structuredContent!.results[0]).sort()).toEqual(['id', 'publishedDate', 'title', 'url']);
    const text = textOf(res);
    // Trawl's own lines outside the fences; each result's page lines inside one, named by its URL
    expect(outsideFences(text)).toBe('3 results\n\n[1]\n<fence>\n\n[2]\n<fence>\n\n[3]\n<fence>');
    expect(fenced(text)).toEqual(results.map((r) => ({ source: r.url, content: pageLines(r) })));
    for (const r of results) expect(r.text).toHaveLength(1500);
    expect(text).toContain('Published: 2025-01-02T00:00:00.000Z');
    expect(text).not.toContain('Highlights:');
    // the text is for the model, said once: structuredContent carries no page text
    expect(JSON.stringify(res.structuredContent)).not.toContain(sentence(0).trim());
    expect(tokensOf(res)).toBeLessThanOrEqual(6000);
  });

  it('gives highlights instead when asked for them', async () => {
    const client = await connect(t);
    const args = { query: 'retry budgets', numResults: 2, contents: { highlights: true } };
    const res = (await client.callTool({ name: 'search', arguments: args })) as ToolResult;
    await client.close();
    const rest = await restSearch(t, args);
    expect(rest.results[0]!.highlights.length).toBeGreaterThan(0);
    expect(fenced(textOf(res))).toEqual(rest.results.map((r) => ({ source: r.url, content: pageLines(r) })));
    expect(textOf(res)).toContain('Highlights:\n- ');
    expect(textOf(res)).not.toContain('Text:');
    expect(res.structuredContent!.results).toEqual(rest.results.map(entryOf));
  });

  it('keeps each answer within the token budget, and continues it by cursor with every result once and whole', async () => {
    const client = await connect(small);
    const args = { query: 'retry budgets', numResults: 10, contents: { text: { maxCharacters: 4000 } } };
    const first = (await client.callTool({ name: 'search', arguments: args })) as ToolResult;
    // the server's budget (TRAWL_MCP_MAX_TOKENS 2000): cut at a clean boundary, with the way on
    expect(tokensOf(first)).toBeLessThanOrEqual(2000);
    const cursor = first.structuredContent!.nextCursor as string;
    expect(cursor).toMatch(/^ans\./);
    expect(textOf(first)).toMatch(/^10 results\n\n\[1\]\n<untrusted-/);
    expect(textOf(first).endsWith(`[Answer cut to fit 2000 tokens. For the rest call search again with the same arguments and cursor: "${cursor}".]`)).toBe(true); // prettier-ignore

    const parts = await readAll(client, 'search', args, 2000);
    await client.close();
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.at(-1)!.structuredContent).not.toHaveProperty('nextCursor');
    const rest = await restSearch(small, args);
    expect(rest.results).toHaveLength(10);
    // joined, the parts give each result's entry once, in order, and its page lines exactly
    expect(parts.flatMap((p) => p.structuredContent!.results)).toEqual(rest.results.map(entryOf));
    expect(joinedPieces(parts)).toEqual(new Map(rest.results.map((r) => [r.url, pageLines(r)])));
  });

  it('takes a smaller budget per call (maxTokens)', async () => {
    const client = await connect(t);
    const res = (await client.callTool({ name: 'search', arguments: { query: 'retry budgets', numResults: 10, maxTokens: 1000 } })) as ToolResult; // prettier-ignore
    await client.close();
    expect(tokensOf(res)).toBeLessThanOrEqual(1000);
    expect(textOf(res)).toMatch(/\[Answer cut to fit 1000 tokens\. For the rest call search again/);
    expect(res.structuredContent!.nextCursor).toMatch(/^ans\./);
  });
});
