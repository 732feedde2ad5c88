/**
 * The MCP `search` tool end to end through the SDK's real Client over streamable HTTP: highlights by
 * default, a compact text rendering next to the full structuredContent, and the answer-size guard.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentRecord } from '../../src/store/documents.repo.js';
import { startTestServer, type TestServer } from '../helpers/app.js';

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: { results: { url: string; text?: string; highlights?: string[] }[] };
}

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

let t: TestServer;
let small: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  small = await startTestServer({ mcpMaxTokens: 2000 });
  for (const s of [t, small]) s.app.services.documents.upsertMany(docs, NOW);
});
afterAll(async () => {
  await t?.close();
  await small?.close();
});

describe('MCP search tool', () => {
  it('returns highlights by default, rendered compactly, with the full response as structuredContent', async () => {
    const client = await connect(t);
    const res = (await client.callTool({
      name: 'search',
      arguments: { query: 'retry budgets', numResults: 3 },
    })) as ToolResult;
    await client.close();
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent!.results).toHaveLength(3);
    expect(res.structuredContent!.results[0]!.highlights!.length).toBeGreaterThan(0);
    const text = res.content[0]!.text;
    expect(text).toMatch(/^3 results/);
    expect(text).toContain('URL: https://docs.example.com/retries/');
    expect(text).toContain('Published: 2025-01-02');
    expect(text).toContain('Highlights:');
  });

  it('keeps an answer under the token cap, saying what it cut', async () => {
    const client = await connect(small);
    const res = (await client.callTool({
      name: 'search',
      arguments: { query: 'retry budgets', numResults: 10, contents: { text: true } },
    })) as ToolResult;
    await client.close();
    const text = res.content[0]!.text;
    const total = text.length + JSON.stringify(res.structuredContent).length;
    expect(total).toBeLessThanOrEqual(2000 * 4);
    expect(text).toMatch(/Answer cut to fit 2000 tokens/);
    expect(res.structuredContent!.results.length).toBeGreaterThan(0);
  });
});
