/**
 * Hostile caller JSON Schemas (issue 21, defects 1, 4 and the `phone` format) through the real HTTP
 * door, at every place a schema is accepted: bombs are refused by the limits before anything compiles,
 * and /health keeps answering meanwhile (and while a schema at the limits compiles in the worker);
 * schemas that do not compile answer 422 INVALID_JSON_SCHEMA with the compiler's reason (monitor
 * routes: `{error}`); over MCP the same through the SDK's real client. How fast: bench/caller-schemas.mjs.
 * The schema deadline is set far above any compile here (no test needs it to fire), so a loaded machine
 * cannot turn a compile into a time-out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const enumOf = (n: number) => object({ a: { type: 'string', enum: range(n).map((i) => `v${i}`) } });

let model: ModelServer;
let t: TestServer; // with a model: every schema is used for real
let plain: TestServer; // none: object schemas are refused after they are checked
let monitorId: string;
/** What the model puts in the answer envelope's `content`. */
let content: unknown = { phone: '+1 415 555 0100' };

beforeAll(async () => {
  model = await startModelServer({
    reply: (body) => {
      const name = body.response_format?.json_schema?.name;
      if (name === 'answer') return { json: { content, citations: {} } };
      if (name === 'summary') return { json: content };
      return 'A sentence [1].';
    },
  });
  t = await startTestServer({ modelBaseUrl: model.baseUrl, model: 'test-model', allowInsecureWebhooks: true, schemaTimeoutMs: 60_000 }); // prettier-ignore
  plain = await startTestServer({ schemaTimeoutMs: 60_000 });
  const page = storedDoc('https://docs.example.com/p', 'A page', 'A page about undici pools.');
  await t.app.services.documents.upsertMany([page], new Date().toISOString());
  const monitor = await postJson(t.url, '/monitors', { search: { query: 'q' }, webhook: { url: 'http://127.0.0.1:9/h' } }, { 'x-api-key': t.key }); // prettier-ignore
  monitorId = monitor.body.id as string;
});
afterAll(async () => {
  await t.close();
  await plain.close();
  await model.close();
});

async function send(method: string, path: string, body: unknown, server = t) {
  const started = performance.now();
  const res = await fetch(server.url + path, {
    method,
    headers: { 'x-api-key': server.key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json, ms: performance.now() - started };
}

/** Every place a caller schema is accepted, as [name, method, path, body with the schema, field]. */
const PLACES: [string, string, string, (schema: unknown) => unknown, string][] = [
  [
    '/search outputSchema',
    'POST',
    '/search',
    (s) => ({ query: 'q', type: 'instant', outputSchema: s }),
    'outputSchema',
  ],
  ['/search contents.summary.schema', 'POST', '/search', (s) => ({ query: 'q', type: 'instant', contents: { summary: { schema: s } } }), 'contents.summary.schema'], // prettier-ignore
  ['/answer outputSchema', 'POST', '/answer', (s) => ({ query: 'q', outputSchema: s }), 'outputSchema'],
  ['/contents summary.schema', 'POST', '/contents', (s) => ({ urls: ['https://docs.example.com/p'], summary: { schema: s } }), 'summary.schema'], // prettier-ignore
  ['/agent/runs outputSchema', 'POST', '/agent/runs', (s) => ({ query: 'q', effort: 'low', outputSchema: s }), 'outputSchema'], // prettier-ignore
  ['/monitors outputSchema', 'POST', '/monitors', (s) => ({ search: { query: 'q' }, webhook: { url: 'http://127.0.0.1:9/h' }, outputSchema: s }), 'outputSchema'], // prettier-ignore
  ['PATCH /monitors/{id} outputSchema', 'PATCH', '/monitors/:id', (s) => ({ outputSchema: s }), 'outputSchema'],
];

/** Asserts a 422 INVALID_JSON_SCHEMA naming `field` (monitor routes: `{error}` alone). */
function expectSchemaRefused(res: { status: number; body: Json }, path: string, field: string, reason: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  if (path.startsWith('/monitors')) expect(Object.keys(res.body)).toEqual(['error']);
  else expect(res.body.tag).toBe('INVALID_JSON_SCHEMA');
  expect(res.body.error).toContain(`${field}: `);
  expect(res.body.error).toMatch(reason);
}

const at = (path: string) => path.replace(':id', monitorId);

describe('schema bombs are refused by the limits, before anything compiles', () => {
  it.each(PLACES)('%s: a 150,000-value enum', async (_name, method, path, body, field) => {
    const res = await send(method, at(path), body(enumOf(150_000)));
    expectSchemaRefused(res, path, field, /bytes as JSON; at most 65,536 .*TRAWL_MAX_SCHEMA_BYTES/);
  });

  it.each(PLACES)('%s: 1,001 enum values in a small schema', async (_name, method, path, body, field) => {
    const res = await send(method, at(path), body(enumOf(1001)));
    expectSchemaRefused(res, path, field, /more than 1,000 enum values .*TRAWL_MAX_SCHEMA_ENUM_VALUES/);
  });

  it('refuses a bomb over MCP too, through the SDK client', async () => {
    const client = await connectMcp(t.app);
    try {
      const res = (await client.callTool({ name: 'search', arguments: { query: 'q', outputSchema: enumOf(150_000) } })) as Parameters<typeof textOf>[0]; // prettier-ignore
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(/INVALID_JSON_SCHEMA.*outputSchema: .*TRAWL_MAX_SCHEMA_BYTES/s);
    } finally {
      await client.close();
    }
  });
});

describe('/health keeps answering', () => {
  /** GET /health every 10 ms until `until` settles; each answer's time in ms. */
  async function healthWhile(until: Promise<unknown>): Promise<number[]> {
    const times: number[] = [];
    let done = false;
    void until.finally(() => (done = true));
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${plain.url}/health`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
      await res?.text();
      times.push(res?.ok ? performance.now() - started : 5000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return times;
  }

  beforeAll(async () => {
    // Ajv's one-time load on the main thread and the worker's start-up are not what is measured here
    await send('POST', '/contents', { urls: ['https://docs.example.com/p'], summary: { schema: object({ a: {} }) } }, plain); // prettier-ignore
  });

  // How long /health waits (~100 ms is the goal; a stall was 3.2 s before) is measured by
  // bench/caller-schemas.mjs; here, that it answers at all while the work goes on.
  it('while a 40,000-value enum is refused', async () => {
    const bomb = send('POST', '/search', { query: 'q', outputSchema: enumOf(40_000) }, plain);
    const times = await healthWhile(bomb);
    expect((await bomb).status).toBe(422);
    expect(times).not.toContain(5000); // every /health was answered (5,000: failed or gave up after 5 s)
  });

  it('while a schema at the limits compiles in the worker', async () => {
    // 498 object branches in one anyOf: within every limit, about half a second to compile (more when loaded)
    const heavy = object({ a: { anyOf: range(498).map((i) => ({ type: 'object', properties: { [`k${i}`]: { const: i } }, required: [`k${i}`] })) } }); // prettier-ignore
    const bomb = send('POST', '/contents', { urls: ['https://docs.example.com/p'], summary: { schema: heavy } }, plain);
    const times = await healthWhile(bomb);
    const res = await bomb;
    expect(res.status, JSON.stringify(res.body)).toBe(403); // compiled, then refused: no model here
    expect(res.body.tag).toBe('FEATURE_DISABLED');
    expect(times.length).toBeGreaterThan(3); // /health was answered again and again while it compiled
    // a compile on the main thread would hold one /health for about the whole call: a share of the
    // call's own time, which load stretches as much as the compile, not a number of ms
    expect(Math.max(...times)).toBeLessThan(res.ms / 2);
  });
});

describe('schemas that do not compile answer 422 with the compiler’s reason', () => {
  it.each(PLACES)('%s: a pattern that is not a regular expression', async (_name, method, path, body, field) => {
    const res = await send(method, at(path), body(object({ a: { type: 'string', pattern: '(' } })));
    expectSchemaRefused(res, path, field, /pattern at \/properties\/a is not a valid regular expression: .*Unterminated group/); // prettier-ignore
  });

  it.each(PLACES)('%s: a remote $ref, nested', async (_name, method, path, body, field) => {
    const res = await send(
      method,
      at(path),
      body(object({ a: object({ b: { $ref: 'https://example.com/s.json' } }) })),
    );
    expectSchemaRefused(res, path, field, /\$ref "https:\/\/example.com\/s.json" at \/properties\/a\/properties\/b is not within the schema/); // prettier-ignore
  });

  it.each(PLACES)('%s: references in a loop, which only the compiler sees', async (name, method, path, body, field) => {
    const loop = { ...object({ a: { $ref: '#/$defs/x' } }), $defs: { x: { $ref: '#/$defs/y' }, y: { $ref: '#/$defs/x' } } }; // prettier-ignore
    const res = await send(method, at(path), body(loop));
    if (name === '/search outputSchema') {
      // where the spec limits depth, recursion is refused as the depth limit is (400), before compiling
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/outputSchema: \$ref "#\/\$defs\/x" \(at a\) is recursive/);
      return;
    }
    expectSchemaRefused(res, path, field, /not a valid JSON Schema: its references nest too deeply to compile/);
  });
});

describe('formats', () => {
  const schema = object({ phone: { type: 'string', format: 'phone' }, note: { type: 'string', format: 'x-house-style' } }); // prettier-ignore

  it('checks the spec’s phone format in answers', async () => {
    content = { phone: '+1 (415) 555-0100', note: 'any text' };
    const ok = await send('POST', '/answer', { query: 'q', outputSchema: schema });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.answer).toEqual(content);
    content = { phone: 'call the front desk', note: 'any text' };
    const bad = await send('POST', '/answer', { query: 'q', outputSchema: schema });
    expect(bad.status).toBe(500);
    expect(bad.body.tag).toBe('UNABLE_TO_GENERATE_RESPONSE');
    expect(bad.body.error).toMatch(/\/content\/phone must match format "phone"/);
  });
});
