/**
 * Local `$ref`s in caller JSON Schemas (issue 21, defect 2) through the real HTTP door, with the model on
 * a loopback Chat Completions server: /search, /answer, /contents summaries, agent runs and monitor runs
 * follow `#/$defs/…` and `#/definitions/…`; the /search limits count what references expand to and refuse
 * recursion; remote references are refused; and the MCP `search` tool through the SDK's real client.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { startModelServer, type ChatCompletionRequestBody, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PAGES = [
  storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', 'An undici Pool keeps sockets open to one origin. Maintained by the undici team; call +1 415 555 0100 for support.'), // prettier-ignore
  storedDoc('https://docs.example.com/undici/agent', 'The undici Agent', 'An undici Agent manages one pool per origin.'), // prettier-ignore
];

/** An outputSchema whose fields are definitions: one under `$defs`, one under `definitions`. */
const REF_SCHEMA = {
  type: 'object',
  properties: { library: { $ref: '#/$defs/library' }, since: { $ref: '#/definitions/year' } },
  required: ['library', 'since'],
  $defs: { library: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  definitions: { year: { type: 'integer', minimum: 1990 } },
};
const ANSWER = { library: { name: 'undici' }, since: 2016 };

let model: ModelServer;
let t: TestServer;
/** What the model answers a structured request with (the answer envelope's `content`, or a summary). */
let structured: unknown = ANSWER;

const formatOf = (body: ChatCompletionRequestBody) => body.response_format?.json_schema;

beforeAll(async () => {
  model = await startModelServer({
    reply: (body) => {
      const format = formatOf(body);
      if (format?.name === 'answer') return { json: { content: structured, citations: {} } };
      if (format?.name === 'summary') return { json: structured };
      if (/quer/i.test(String(body.messages[0]?.content ?? '')) && /json/i.test(JSON.stringify(body))) {
        return { json: { queries: ['undici pool'] } };
      }
      return 'An undici Pool keeps sockets open to one origin [1].';
    },
  });
  t = await startTestServer({ modelBaseUrl: model.baseUrl, model: 'test-model', allowInsecureWebhooks: true });
  await t.app.services.documents.upsertMany(PAGES, new Date().toISOString());
});
afterEach(() => {
  model.reset();
  structured = ANSWER;
});
afterAll(async () => {
  await t.close();
  await model.close();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  if (method === 'POST') return postJson(t.url, path, body, { 'x-api-key': t.key });
  const res = await fetch(t.url + path, {
    method,
    headers: { 'x-api-key': t.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('local references, wherever a schema is accepted', () => {
  it('/search answers with them, the model reading an envelope whose $defs resolve', async () => {
    const res = await call('POST', '/search', { query: 'undici pool', type: 'instant', outputSchema: REF_SCHEMA });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.output.content).toEqual(ANSWER);
    const envelope = formatOf(model.requests[0]!.body)!.schema as Json;
    expect(envelope.$defs).toEqual(REF_SCHEMA.$defs);
    expect(envelope.definitions).toEqual(REF_SCHEMA.definitions);
    expect(envelope.properties.content.properties.library).toEqual({ $ref: '#/$defs/library' });
  });

  it('/search validates the answer through them: an answer the definition refuses is sent back once', async () => {
    structured = { library: { name: 'undici' }, since: 1800 };
    model.enqueue({ json: { content: structured, citations: {} } }, { json: { content: ANSWER, citations: {} } });
    const res = await call('POST', '/search', { query: 'undici pool', type: 'instant', outputSchema: REF_SCHEMA });
    expect(res.status).toBe(200);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.body.messages.at(-1)!.content).toMatch(/\/content\/since must be >= 1990/);
  });

  it('/answer answers with them', async () => {
    const res = await call('POST', '/answer', { query: 'undici pool', outputSchema: REF_SCHEMA });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.answer).toEqual(ANSWER);
  });

  it('/contents summaries follow them', async () => {
    const schema = { $ref: '#/definitions/page', definitions: { page: { type: 'object', properties: { gist: { type: 'string' } }, required: ['gist'] } } }; // prettier-ignore
    structured = { gist: 'pools' };
    const res = await call('POST', '/contents', { urls: [PAGES[0]!.url], summary: { schema } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.parse(res.body.results[0].summary)).toEqual({ gist: 'pools' });
  });

  it('agent runs complete with them, contact fields behind a reference still checked against the pages', async () => {
    const schema = {
      type: 'object',
      properties: { library: { $ref: '#/$defs/library' }, support: { $ref: '#/$defs/phone' }, sales: { $ref: '#/$defs/phone' } }, // prettier-ignore
      required: ['library'],
      $defs: { ...REF_SCHEMA.$defs, phone: { type: ['string', 'null'], format: 'phone' } },
    };
    structured = { library: { name: 'undici' }, support: '+1 415 555 0100', sales: '+1 212 555 0199' };
    const created = await call('POST', '/agent/runs', { query: 'undici pool support', effort: 'low', outputSchema: schema }); // prettier-ignore
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await t.app.services.agentRuns.engine.drain();
    const run = (await call('GET', `/agent/runs/${created.body.id}`)).body;
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    // the number a page shows is kept; the one none shows is set to null, not invented
    expect(run.output.structured).toEqual({ library: { name: 'undici' }, support: '+1 415 555 0100', sales: null });
  });

  it('monitor runs complete with them', async () => {
    const created = await call('POST', '/monitors', { search: { query: 'undici pool' }, outputSchema: REF_SCHEMA, webhook: { url: 'http://127.0.0.1:9/hook' } }); // prettier-ignore
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect((await call('POST', `/monitors/${id}/trigger`)).status).toBeLessThan(300);
    await t.app.services.monitors.engine.drain();
    const run = (await call('GET', `/monitors/${id}/runs`)).body.data[0] as Json;
    expect(run.status, JSON.stringify(run)).toBe('completed');
    expect(run.output.content).toEqual(ANSWER);
  });
});

describe('the /search limits, counted with references followed', () => {
  const search = (outputSchema: unknown) => call('POST', '/search', { query: 'q', type: 'instant', outputSchema });
  const item = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } } };

  it('counts a definition each time it is used', async () => {
    const res = await search({ type: 'object', properties: { x: { $ref: '#/$defs/i' }, y: { $ref: '#/$defs/i' }, z: { $ref: '#/$defs/i' } }, $defs: { i: item } }); // prettier-ignore
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/has 12 properties in total; at most 10/);
  });

  it('sees the depth a reference adds', async () => {
    const res = await search({ type: 'object', properties: { x: { type: 'object', properties: { y: { $ref: '#/$defs/i' } } } }, $defs: { i: item } }); // prettier-ignore
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/nesting depth is 3; at most 2/);
  });

  it('refuses a recursive reference, which no depth limit could bound', async () => {
    const res = await search({ type: 'object', properties: { node: { $ref: '#/$defs/node' } }, $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } } }); // prettier-ignore
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ tag: 'INVALID_REQUEST_BODY' });
    expect(res.body.error).toMatch(/outputSchema: \$ref "#\/\$defs\/node" \(at node\.next\) is recursive/);
  });

  it('accepts a recursive definition where no depth limit applies (agent runs)', async () => {
    const tree = { type: 'object', properties: { root: { $ref: '#/$defs/node' } }, $defs: { node: { type: 'object', properties: { name: { type: 'string' }, kids: { type: 'array', items: { $ref: '#/$defs/node' } } } } } }; // prettier-ignore
    structured = { root: { name: 'a', kids: [{ name: 'b', kids: [] }] } };
    const created = await call('POST', '/agent/runs', { query: 'undici tree', effort: 'low', outputSchema: tree });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await t.app.services.agentRuns.engine.drain();
    const run = (await call('GET', `/agent/runs/${created.body.id}`)).body;
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.output.structured).toEqual(structured);
  });
});

describe('the MCP door', () => {
  it('search answers with a schema of local references, through the SDK client', async () => {
    const client = await connectMcp(t.app);
    try {
      const res = (await client.callTool({ name: 'search', arguments: { query: 'undici pool', type: 'instant', outputSchema: REF_SCHEMA } })) as Parameters<typeof textOf>[0]; // prettier-ignore
      expect(res.isError, textOf(res)).toBeFalsy();
      expect(textOf(res)).toMatch(/"since": 2016/);
    } finally {
      await client.close();
    }
  });
});
