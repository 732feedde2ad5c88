/**
 * Deeply nested bodies (issue 21, defect 3) through the real HTTP door and the MCP door: a body nesting
 * more than 64 levels is refused with 400 INVALID_REQUEST_BODY naming the field, measured on the text
 * before it is parsed (so two million levels cost milliseconds), never a 500 RangeError; a caller schema
 * within the body's limit but past TRAWL_MAX_SCHEMA_DEPTH is a 422 schema problem.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { connectMcp, textOf } from '../helpers/mcp.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ allowInsecureWebhooks: true });
});
afterAll(() => t.close());

/** JSON text of `{"a": {"a": … 1 …}}`, `levels` objects deep (built as text: JSON.stringify would overflow). */
const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

async function post(path: string, text: string) {
  const started = performance.now();
  const res = await fetch(t.url + path, {
    method: 'POST',
    headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as Json, ms: performance.now() - started };
}

const WEBHOOK = '"webhook":{"url":"http://127.0.0.1:9/h"}';
/** [name, path, body text around a value 10,000 levels deep, the field named]. */
const DEEP: [string, string, string, string][] = [
  ['/monitors metadata', '/monitors', `{"search":{"query":"q"},${WEBHOOK},"metadata":{"a":${nested(10_000)}}}`, 'metadata.a'], // prettier-ignore
  ['/agent/runs metadata', '/agent/runs', `{"query":"q","metadata":{"k":${nested(10_000)}}}`, 'metadata.k'],
  ['/search outputSchema', '/search', `{"query":"q","outputSchema":{"type":"object","properties":{"a":${nested(10_000)}}}}`, 'outputSchema.properties'], // prettier-ignore
  ['/monitors outputSchema', '/monitors', `{"search":{"query":"q"},${WEBHOOK},"outputSchema":{"type":"object","properties":{"a":${nested(10_000)}}}}`, 'outputSchema.properties'], // prettier-ignore
  ['/contents summary.schema', '/contents', `{"urls":["https://example.com"],"summary":{"schema":${nested(10_000)}}}`, 'summary.schema'], // prettier-ignore
  ['/agent/runs outputSchema', '/agent/runs', `{"query":"q","outputSchema":${nested(10_000)}}`, 'outputSchema.a'],
  ['/agent/runs input.data', '/agent/runs', `{"query":"q","input":{"data":[${nested(10_000)}]}}`, 'input.data'],
];

describe('REST bodies nested deeper than 64 levels', () => {
  it.each(DEEP)('%s: 400 INVALID_REQUEST_BODY naming the field', async (_name, path, text, field) => {
    const res = await post(path, text);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    if (!path.startsWith('/monitors')) expect(res.body.tag).toBe('INVALID_REQUEST_BODY');
    expect(res.body.error).toContain(`Invalid request body: ${field}: nests deeper than 64 levels`);
  });

  // JSON.parse of this would overflow the stack: the scanner's answer proves it measured first; how fast:
  // bench/test-timings.mjs
  it('refuses two million levels (4 MB), measured before parsing', async () => {
    const res = await post('/search', `{"query":"q","x":${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid request body: x: nests deeper than 64 levels \(at x\[0\]\[0\]/);
  });

  it('accepts 64 levels, and counts brackets inside strings as text', async () => {
    // metadata.a is 62 more levels: the body is 64 deep
    const res = await post('/monitors', `{"search":{"query":"q [[[{{{"},${WEBHOOK},"metadata":{"a":${nested(62)}}}`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const over = await post('/monitors', `{"search":{"query":"q"},${WEBHOOK},"metadata":{"a":${nested(63)}}}`);
    expect(over.status).toBe(400);
  });

  it('refuses a caller schema past TRAWL_MAX_SCHEMA_DEPTH as a schema problem (422)', async () => {
    const res = await post('/contents', `{"urls":["https://example.com"],"summary":{"schema":${nested(40)}}}`);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ tag: 'INVALID_JSON_SCHEMA' });
    expect(res.body.error).toMatch(/summary\.schema: nests deeper than 32 levels .*TRAWL_MAX_SCHEMA_DEPTH/);
  });
});

describe('MCP arguments nested deeper than 64 levels', () => {
  it('are refused as INVALID_REQUEST_BODY naming the field, through the SDK client', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const client = await connectMcp(t.app);
    try {
      const res = (await client.callTool({ name: 'search', arguments: { query: 'q', outputSchema: { type: 'object', properties: { a: deep } } } })) as Parameters<typeof textOf>[0]; // prettier-ignore
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(/INVALID_REQUEST_BODY.*outputSchema\.properties: nests deeper than 64 levels/s);
    } finally {
      await client.close();
    }
  });
});
