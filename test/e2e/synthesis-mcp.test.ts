/**
 * Answers inside an agent: the MCP `search` tool with an output schema, written by the calling client's
 * own model through `sampling/createMessage` (the SDK's real Client with a sampling handler), by the
 * operator's model when one is configured, or extracted from the sources when neither is there. The
 * answer is the text's first block (`Answer:`, fenced as the model's), never in structuredContent.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema, type CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WARNINGS } from '../../src/core/warnings.js';
import { buildMcpServer } from '../../src/mcp/server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { fenced, outsideFences } from '../helpers/mcp.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

const DOCS = [
  storedDoc('https://docs.example.com/undici/pool', 'Pooling in undici', 'An undici Pool keeps sockets open to one origin. Requests queue when every socket is busy.'), // prettier-ignore
  storedDoc('https://blog.example.com/undici-agent', 'The undici Agent', 'The undici Agent holds one Pool per origin and is the dispatcher of fetch in Node.js.'), // prettier-ignore
];

const apps: TestApp[] = [];
const clients: Client[] = [];
let model: ModelServer;
let sampled: CreateMessageRequest['params'][] = [];

beforeAll(async () => {
  model = await startModelServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(apps.splice(0).map((a) => a.close()));
  sampled = [];
  model.reset();
});
afterAll(() => model.close());

/** An app (optionally with a configured model) and a connected client, with or without sampling. */
async function connect(options: { sampling: boolean; flags?: Record<string, unknown> }) {
  const t = makeTestApp(options.flags);
  apps.push(t);
  await t.app.services.documents.upsertMany(DOCS, '2026-11-20T10:00:00.000Z');
  const client = new Client({ name: 'agent', version: '1' }, { capabilities: options.sampling ? { sampling: {} } : {} }); // prettier-ignore
  if (options.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      sampled.push(request.params);
      const json = request.params.systemPrompt?.includes('JSON Schema');
      const text = json
        ? JSON.stringify({ content: { dispatcher: 'Agent' }, citations: { dispatcher: [2] } })
        : 'The undici Agent keeps one Pool per origin [2].';
      return { model: 'client-model-1', role: 'assistant', content: { type: 'text', text }, stopReason: 'endTurn' };
    });
  }
  const [c, s] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(t.app, { caller: null, betas: new Set() }).connect(s);
  await client.connect(c);
  clients.push(client);
  return client;
}

type Result = { id: string; url: string; title: string };
const call = async (client: Client, args: Record<string, unknown>) => {
  const res = (await client.callTool({ name: 'search', arguments: { type: 'instant', ...args } })) as unknown as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent: { costDollars: { total: number }; results: Result[] };
  };
  return res;
};

/**
 * The answer of a search result's text: its first block, labelled `Answer:` and fenced as the model's,
 * split into the content and the lines saying what backs each field. Checks that the answer is nowhere
 * in structuredContent.
 */
function answerOf(res: Awaited<ReturnType<typeof call>>): { content: string; sources: string[] } {
  expect(res.structuredContent).not.toHaveProperty('output');
  const text = res.content[0]!.text;
  // the heading, its warnings if any (one line each), then the answer
  expect(outsideFences(text)).toMatch(/^\d+ results\n(Warning [A-Z_]+: .*\n)*\nAnswer:\n<fence>\n\n\[1\]\n<fence>/);
  const answer = fenced(text)[0]!;
  expect(answer.source).toBe('model');
  const [content, backing] = answer.content.split('\n\nSources of the answer:\n');
  return { content: content!, sources: backing!.split('\n') };
}

describe('search tool answers through MCP sampling', () => {
  it("asks the client's model when no model is configured, answer and citations first in the text", async () => {
    const client = await connect({ sampling: true });
    const res = await call(client, { query: 'undici agent pool per origin', outputSchema: { type: 'text' }, systemPrompt: 'Be brief.' }); // prettier-ignore
    expect(res.isError).toBeFalsy();
    expect(sampled).toHaveLength(1);
    expect(sampled[0]!.systemPrompt).toContain('Be brief.');
    expect(sampled[0]!.includeContext).toBe('none');
    const answer = answerOf(res);
    expect(answer.content).toBe('The undici Agent keeps one Pool per origin.');
    // then what backs it: the one cited result (source [2] of the client's reply) and the confidence
    const second = res.structuredContent.results[1]!;
    expect(answer.sources).toEqual([expect.stringMatching(/^- content \((high|medium|low)\): /)]);
    expect(answer.sources[0]!.endsWith(`): ${second.title} <${second.url}>`), answer.sources[0]).toBe(true);
    // the client's model is the client's to pay for: the answer adds nothing to the search's price
    expect(res.structuredContent.costDollars.total).toBe(0.005);
  });

  it('gets schema-shaped JSON from the client model, validated like any other', async () => {
    const client = await connect({ sampling: true });
    const res = await call(client, {
      query: 'undici dispatcher',
      outputSchema: { type: 'object', properties: { dispatcher: { type: 'string' } }, required: ['dispatcher'] },
    });
    expect(res.isError).toBeFalsy();
    expect(JSON.parse(answerOf(res).content)).toEqual({ dispatcher: 'Agent' });
    expect(sampled[0]!.systemPrompt).toContain('"dispatcher"');
  });

  it('extracts a text answer when the client offers no sampling and no model is configured', async () => {
    const client = await connect({ sampling: false });
    const res = await call(client, { query: 'undici pool sockets', outputSchema: { type: 'text' } });
    expect(res.isError).toBeFalsy();
    expect(answerOf(res).content).toContain('Pool');
    expect(res.content[0]!.text).toContain(`\nWarning MODEL_MISSING: ${WARNINGS.MODEL_MISSING}\n`);
    const object = await call(client, { query: 'undici', outputSchema: { type: 'object', properties: { a: { type: 'string' } } } }); // prettier-ignore
    expect(object.isError).toBe(true);
    expect(object.content[0]!.text).toMatch(/^FEATURE_DISABLED: .*TRAWL_MODEL_BASE_URL/);
  });

  it('reports progress while a deep search plans, searches and writes', async () => {
    const client = await connect({ sampling: true });
    const notes: string[] = [];
    const res = (await client.callTool(
      { name: 'search', arguments: { type: 'deep-lite', query: 'undici agent pool', outputSchema: { type: 'text' } } },
      undefined,
      { onprogress: (p) => notes.push(String(p.message)) },
    )) as { isError?: boolean };
    expect(res.isError).toBeFalsy();
    expect(notes).toEqual(['planning searches', 'searching', 'writing the answer']);
    // the client's model planned the searches and wrote the answer
    expect(sampled.map((p) => p.systemPrompt?.slice(0, 30))).toEqual([
      expect.stringContaining('You plan web searches'),
      expect.stringContaining('You answer a question'),
    ]);
  });

  it("uses the operator's model first, and the client's when TRAWL_MODEL_PREFER is client", async () => {
    model.setReply('From the server model [1].');
    const flags = { modelBaseUrl: model.baseUrl, model: 'local-llm', modelTimeoutMs: 3000 };
    const server = await call(await connect({ sampling: true, flags }), { query: 'undici pool', outputSchema: { type: 'text' } }); // prettier-ignore
    expect(answerOf(server).content).toBe('From the server model.');
    expect(sampled).toHaveLength(0);
    expect(model.requests).toHaveLength(1);

    const preferClient = { ...flags, modelPrefer: 'client' };
    const client = await call(await connect({ sampling: true, flags: preferClient }), { query: 'undici pool', outputSchema: { type: 'text' } }); // prettier-ignore
    expect(answerOf(client).content).toBe('The undici Agent keeps one Pool per origin.');
    expect(sampled).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
  });
});
