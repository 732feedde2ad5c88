/**
 * The success and failure paths of both doors with fixture operations (defined here with the real
 * defineOp), since no capability answers yet: status codes, requestId in the body, path + query + body
 * merged into one input, structuredContent with a text rendering, and unexpected errors kept private.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { buildMcpServer } from '../../src/mcp/server.js';
import { defineOp } from '../../src/ops/define-op.js';
import { wireObject } from '../../src/schemas/common.schema.js';
import { makeTestApp, postJson, type TestApp } from '../helpers/app.js';

const echoOp = defineOp({
  name: 'echo',
  tool: 'echo',
  title: 'Echo',
  description: 'Fixture: repeats a text n times.',
  capability: 'search',
  route: { method: 'POST', path: '/echo' },
  body: wireObject({ text: z.string().min(1), n: z.int().min(1).max(5).default(2) }),
  output: z.object({ requestId: z.string(), echoed: z.array(z.string()), caller: z.string().nullable() }),
  requestIdInBody: true,
  successStatus: 201,
  annotations: { readOnlyHint: true, openWorldHint: false },
  render: (out) => `echo: ${out.echoed.join(' ')}`,
  run: async (_services, input, ctx) => ({
    requestId: 'ignored',
    echoed: Array.from({ length: input.n }, () => input.text),
    caller: ctx.caller?.keyName ?? null,
  }),
});

const thingOp = defineOp({
  name: 'things.get',
  tool: 'get_thing',
  title: 'Get a thing',
  description: 'Fixture: merges path, query and body.',
  capability: 'monitors',
  route: { method: 'GET', path: '/things/:id' },
  params: z.object({ id: z.string().min(3) }),
  query: z.object({ limit: z.coerce.number().int().min(1).max(10).default(3) }),
  output: z.object({ id: z.string(), limit: z.number() }),
  errorBody: 'simple',
  annotations: { readOnlyHint: true, openWorldHint: false },
  render: (out) => `${out.id}/${out.limit}`,
  run: async (_s, input) => ({ id: input.id, limit: input.limit }),
});

const brokenOp = defineOp({
  name: 'broken',
  tool: 'broken',
  title: 'Broken',
  description: 'Fixture: fails unexpectedly, or returns output that breaks its own schema.',
  capability: 'search',
  route: { method: 'POST', path: '/broken' },
  body: wireObject({ mode: z.enum(['throw', 'bad-output']) }),
  output: z.object({ count: z.number() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  render: () => 'never',
  run: async (_s, input) => {
    if (input.mode === 'throw') throw new Error('secret internal detail: db at /var/lib/x');
    return { count: 'not a number' } as unknown as { count: number };
  },
});

const OPS = [echoOp, thingOp, brokenOp];

let t: TestApp;
let server: RunningServer;
let key: string;
beforeAll(async () => {
  t = makeTestApp();
  server = await startHttpServer(t.app, '127.0.0.1', 0, OPS);
  key = t.app.services.keys.create('fixture-caller').key;
});
afterAll(async () => {
  await server.close();
  await t.close();
});

describe('REST door success path', () => {
  it('answers with the op status, the caller in ctx, and requestId equal to the header', async () => {
    const res = await postJson(server.url, '/echo', { text: 'hi' }, { 'x-api-key': key });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      requestId: res.headers.get('x-request-id'),
      echoed: ['hi', 'hi'],
      caller: 'fixture-caller',
    });
    expect(Object.keys(res.body)[0]).toBe('requestId');
  });

  it('merges path and query into the input, with query coercion and defaults', async () => {
    const res = await fetch(`${server.url}/things/abc?limit=7`, { headers: { 'x-api-key': key } });
    expect(await res.json()).toEqual({ id: 'abc', limit: 7 });
    const dflt = await fetch(`${server.url}/things/abc`, { headers: { 'x-api-key': key } });
    expect(await dflt.json()).toEqual({ id: 'abc', limit: 3 });
    const bad = await fetch(`${server.url}/things/ab`, { headers: { 'x-api-key': key } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'Invalid path parameter: id: must be at least 3 characters' });
  });

  it('answers an unexpected error as INTERNAL_ERROR without internals', async () => {
    const res = await postJson(server.url, '/broken', { mode: 'throw' }, { 'x-api-key': key });
    expect(res.status).toBe(500);
    expect(res.body.tag).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(res.body)).not.toContain('secret internal detail');
  });
});

describe('MCP door success path', () => {
  let client: Client;
  beforeAll(async () => {
    const [c, s] = InMemoryTransport.createLinkedPair();
    await buildMcpServer(t.app, { caller: null, betas: new Set() }, OPS).connect(s);
    client = new Client({ name: 'test', version: '1' });
    await client.connect(c);
  });
  afterAll(() => client.close());

  it('returns structuredContent and the text rendering', async () => {
    const res = await client.callTool({ name: 'echo', arguments: { text: 'yo', n: 3 } });
    expect(res.isError).toBeFalsy();
    expect(res.content).toEqual([{ type: 'text', text: 'echo: yo yo yo' }]);
    const structured = res.structuredContent as { requestId: string; echoed: string[]; caller: null };
    expect(structured.echoed).toEqual(['yo', 'yo', 'yo']);
    expect(structured.caller).toBeNull();
    expect(structured.requestId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('merges path and query fields into one tool input', async () => {
    const res = await client.callTool({ name: 'get_thing', arguments: { id: 'xyz' } });
    expect(res.structuredContent).toEqual({ id: 'xyz', limit: 3 });
  });

  it('keeps internals out of an unexpected error', async () => {
    const res = (await client.callTool({ name: 'broken', arguments: { mode: 'throw' } })) as {
      isError: boolean;
      content: { text: string }[];
    };
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/^INTERNAL_ERROR:/);
    expect(res.content[0]!.text).not.toContain('secret');
  });

  it('never passes structured output that breaks the declared schema', async () => {
    const res = (await client.callTool({ name: 'broken', arguments: { mode: 'bad-output' } })) as {
      isError: boolean;
      content: { text: string }[];
    };
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/Output validation error/);
  });
});
