/**
 * The success and failure paths of the REST door with fixture operations (defined here with the real
 * defineOp): status codes, requestId in the body, path + query + body merged into one input, and
 * unexpected errors kept private. (The MCP door serves its catalog's tools: test/e2e/mcp*.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { plainAnswer } from '../../src/ops/reply.js';
import { defineOp } from '../../src/ops/define-op.js';
import { wireObject } from '../../src/schemas/common.schema.js';
import { makeTestApp, postJson, type TestApp } from '../helpers/app.js';

const echoOp = defineOp({
  name: 'echo',
  tool: 'echo',
  title: 'Echo',
  description: 'Fixture: repeats a text n times.',
  capability: 'search',
  access: { resource: 'index', verb: 'read' },
  route: { method: 'POST', path: '/echo' },
  body: wireObject({ text: z.string().min(1), n: z.int().min(1).max(5).default(2) }),
  output: z.object({ requestId: z.string(), echoed: z.array(z.string()), caller: z.string().nullable() }),
  requestIdInBody: true,
  successStatus: 201,
  annotations: { readOnlyHint: true, openWorldHint: false },
  render: (out) => plainAnswer(`echo: ${out.echoed.join(' ')}`, out),
  uses: [],
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
  access: { resource: 'monitor', verb: 'read' },
  route: { method: 'GET', path: '/things/:id' },
  params: z.object({ id: z.string().min(3) }),
  query: z.object({ limit: z.coerce.number().int().min(1).max(10).default(3) }),
  output: z.object({ id: z.string(), limit: z.number() }),
  errorBody: 'simple',
  annotations: { readOnlyHint: true, openWorldHint: false },
  render: (out) => plainAnswer(`${out.id}/${out.limit}`, out),
  uses: [],
  run: async (_s, input) => ({ id: input.id, limit: input.limit }),
});

const brokenOp = defineOp({
  name: 'broken',
  tool: 'broken',
  title: 'Broken',
  description: 'Fixture: fails unexpectedly, or returns output that breaks its own schema.',
  capability: 'search',
  access: { resource: 'index', verb: 'read' },
  route: { method: 'POST', path: '/broken' },
  body: wireObject({ mode: z.enum(['throw', 'bad-output']) }),
  output: z.object({ count: z.number() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  render: (out) => plainAnswer('never', out),
  uses: [],
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
  key = (await t.app.services.keys.create('fixture-caller', {}, null)).key;
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
