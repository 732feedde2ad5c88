/**
 * Summaries inside an agent: the MCP `get_contents` tool with `summary`, written by the calling client's
 * own model through `sampling/createMessage` (the SDK's real Client with a sampling handler) when no model
 * is configured or the operator prefers the client's, else by the operator's model on a loopback server.
 * The summary is in the page's fenced lines of the text, never in structuredContent.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema, type CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildMcpServer } from '../../src/mcp/server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { FETCHED_AT, storedDoc } from '../helpers/documents.js';
import { fenced } from '../helpers/mcp.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

const PAGE = storedDoc('https://docs.example.com/undici/pool', 'Pooling in undici', 'An undici Pool keeps sockets open to one origin. Requests queue when every socket is busy.'); // prettier-ignore

const apps: TestApp[] = [];
const clients: Client[] = [];
let model: ModelServer;
let sampled: CreateMessageRequest['params'][] = [];

beforeAll(async () => {
  model = await startModelServer({ reply: 'Written by the operator model.' });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(apps.splice(0).map((a) => a.close()));
  sampled = [];
  model.reset();
});
afterAll(() => model.close());

/** An app (optionally with a configured model) and a connected client whose model answers sampling. */
async function connect(flags: Record<string, unknown> = {}) {
  const t = makeTestApp(flags);
  apps.push(t);
  await t.app.services.documents.upsertMany([PAGE], FETCHED_AT);
  const client = new Client({ name: 'agent', version: '1' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    sampled.push(request.params);
    const json = request.params.systemPrompt?.includes('JSON Schema');
    const text = json ? JSON.stringify({ sockets: 'one origin' }) : 'Written by the client model.';
    return { model: 'client-model-1', role: 'assistant', content: { type: 'text', text }, stopReason: 'endTurn' };
  });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(t.app, { caller: null, betas: new Set() }).connect(s);
  await client.connect(c);
  clients.push(client);
  return client;
}

type Contents = { results: Record<string, unknown>[]; costDollars: { total: number } };
const getContents = async (client: Client, args: Record<string, unknown>) => {
  const res = (await client.callTool({
    name: 'get_contents',
    arguments: { urls: [PAGE.url], ...args },
  })) as unknown as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent: Contents;
  };
  expect(res.isError ?? false).toBe(false);
  // a summary asked for alone: the page's title and summary, fenced; its entry without them
  expect(res.structuredContent.results).toEqual([{ id: PAGE.url, url: PAGE.url, title: PAGE.title }]);
  return res;
};

/** The summary line of the page's fenced lines (the only ones: no text was asked for). */
function summaryOf(res: Awaited<ReturnType<typeof getContents>>): string {
  const pieces = fenced(res.content[0]!.text);
  expect(pieces).toHaveLength(1);
  expect(pieces[0]!.source).toBe(PAGE.url);
  const [title, summary, ...rest] = pieces[0]!.content.split('\n');
  expect([title, rest]).toEqual([`Title: ${PAGE.title}`, []]);
  expect(summary).toMatch(/^Summary: /);
  return summary!.slice('Summary: '.length);
}

describe('get_contents summaries through MCP sampling', () => {
  it("asks the client's model when no model is configured, uncached and at no token cost", async () => {
    const client = await connect();
    const first = await getContents(client, { summary: { query: 'how many sockets' } });
    expect(summaryOf(first)).toBe('Written by the client model.');
    expect(sampled).toHaveLength(1);
    expect(sampled[0]!.systemPrompt).toContain('how many sockets');
    expect(JSON.stringify(sampled[0]!.messages)).toContain('Requests queue when every socket is busy.');
    expect(first.structuredContent.costDollars.total).toBe(0.001);
    await getContents(client, { summary: { query: 'how many sockets' } });
    expect(sampled).toHaveLength(2);
  });

  it('shapes a summary.schema summary with the client model', async () => {
    const client = await connect();
    const schema = { type: 'object', properties: { sockets: { type: 'string' } }, required: ['sockets'] };
    const res = await getContents(client, { summary: { schema } });
    expect(JSON.parse(summaryOf(res))).toEqual({ sockets: 'one origin' });
    expect(sampled[0]!.systemPrompt).toContain(JSON.stringify(schema));
  });

  it("uses the operator's model when one is configured, and the client's with modelPrefer client", async () => {
    const server = await connect({ modelBaseUrl: model.baseUrl, model: 'test-model', modelTimeoutMs: 3000 });
    const byOperator = await getContents(server, { summary: true });
    expect(summaryOf(byOperator)).toBe('Written by the operator model.');
    expect(sampled).toHaveLength(0);
    expect(model.requests).toHaveLength(1);

    const prefer = await connect({ modelBaseUrl: model.baseUrl, model: 'test-model', modelTimeoutMs: 3000, modelPrefer: 'client' }); // prettier-ignore
    const byClient = await getContents(prefer, { summary: true });
    expect(summaryOf(byClient)).toBe('Written by the client model.');
    expect(model.requests).toHaveLength(1);
  });
});
