/**
 * Hostile bodies (issue 32, row 3) through the real HTTP door: the worst 4 MiB shape of each route (a
 * flood of unknown keys at the top or nested under `summary`, `text`, `highlights`, `extras`, `trigger`,
 * `metadata`, MCP `tools/call` arguments; a flood of array items or objects) is refused by the body
 * limits with 400 INVALID_REQUEST_BODY naming the limit and the field, in the route's error shape, while
 * `/health` keeps answering; shapes just under the limits get the schema's answer, five keys listed and
 * the rest counted. No wall-clock figure here (bench/hostile-bodies.mjs has them): a quadratic walk takes
 * minutes on these bodies and fails by the test timeout.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { textOf, type ToolResult } from '../helpers/mcp.js';
import { connectHttpMcp } from '../fuzz/mcp-door.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ allowInsecureWebhooks: true });
});
afterAll(() => t.close());

/** The default TRAWL_MAX_BODY_BYTES (4 MiB), less room for each shape's closing text. */
const FILL = 4 * 1024 * 1024 - 256;

/** `head` + `"k0":1,"k1":1,…` (to 4 MiB, or `count` keys) + `tail`. */
function keys(head: string, tail: string, count = Infinity): string {
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; i < count && size < FILL - 16; i++) {
    const part = `${i ? ',' : ''}"k${i}":1`;
    parts.push(part);
    size += part.length;
  }
  parts.push(tail);
  return parts.join('');
}

/** `head` + `[item,item,…]` (to 4 MiB) + `tail`. */
const items = (head: string, item: string, tail: string) =>
  `${head}[${Array(Math.floor((FILL - head.length - tail.length) / (item.length + 1)))
    .fill(item)
    .join(',')}]${tail}`;

const tool = (name: string, args: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`; // prettier-ignore
const WEBHOOK = '"webhook":{"url":"http://127.0.0.1:9/h"}';
const KEYS = 'has more than 10000 keys in one object';

/** [route, what, body text, the field the refusal names ('' for the root), the rule]. */
const WORST: [string, string, string, string, string][] = [
  ['/search', 'top', keys('{"query":"x",', '}'), '', KEYS],
  ['/search', 'contents.summary', keys('{"query":"x","contents":{"summary":{', '}}}'), 'contents.summary', KEYS],
  ['/search', 'contents.text', keys('{"query":"x","contents":{"text":{', '}}}'), 'contents.text', KEYS],
  ['/search', 'contents.highlights', keys('{"query":"x","contents":{"highlights":{', '}}}'), 'contents.highlights', KEYS], // prettier-ignore
  ['/search', 'additionalQueries items', items('{"query":"x","additionalQueries":', '"q"', '}'), 'additionalQueries', 'holds more than 200000 values in all'], // prettier-ignore
  ['/contents', 'summary', keys('{"urls":["https://a.example/"],"summary":{', '}}'), 'summary', KEYS],
  ['/contents', 'text', keys('{"urls":["https://a.example/"],"text":{', '}}'), 'text', KEYS],
  ['/contents', 'highlights', keys('{"urls":["https://a.example/"],"highlights":{', '}}'), 'highlights', KEYS],
  ['/contents', 'extras', keys('{"urls":["https://a.example/"],"extras":{', '}}'), 'extras', KEYS],
  ['/contents', 'objects in urls', items('{"urls":', '{}', '}'), 'urls', 'holds more than 20000 objects and arrays in all'], // prettier-ignore
  ['/findSimilar', 'top', keys('{"url":"https://a.example/",', '}'), '', KEYS],
  ['/context', 'top', keys('{"query":"x",', '}'), '', KEYS],
  ['/answer', 'top', keys('{"query":"x",', '}'), '', KEYS],
  ['/monitors', 'top', keys(`{"search":{"query":"x"},${WEBHOOK},`, '}'), '', KEYS],
  ['/monitors', 'trigger', keys(`{"search":{"query":"x"},${WEBHOOK},"trigger":{"type":"cron","expression":"0 * * * *",`, '}}'), 'trigger', KEYS], // prettier-ignore
  ['/monitors', 'metadata', keys(`{"search":{"query":"x"},${WEBHOOK},"metadata":{`, '}}'), 'metadata', KEYS],
  ['/monitors', 'search.contents.text', keys(`{${WEBHOOK},"search":{"query":"x","contents":{"text":{`, '}}}}'), 'search.contents', KEYS], // prettier-ignore
  ['/agent/runs', 'top', keys('{"query":"x",', '}'), '', KEYS],
  ['/agent/runs', 'input.data rows', items('{"query":"x","input":{"data":', '{"a":1}', '}}'), 'input.data', 'holds more than 20000 objects and arrays in all'], // prettier-ignore
  ['/admin/teams', 'top', keys('{"name":"t",', '}'), '', KEYS],
  ['/mcp', 'tools/call arguments', keys(tool('search', '{"query":"x",').slice(0, -2), '}}}'), 'params.arguments', KEYS], // prettier-ignore
  ['/mcp', 'tools/call arguments.contents.summary', keys(tool('get_contents', '{"urls":["https://a.example/"],"summary":{').slice(0, -2), '}}}}'), 'params.arguments', KEYS], // prettier-ignore
];

/** POSTs `text` to `path` and, while it is being answered, GETs /health; both answers. */
async function postWithHealth(path: string, text: string) {
  const headers = { 'x-api-key': t.key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }; // prettier-ignore
  const answer = fetch(t.url + path, { method: 'POST', headers, body: text }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json })); // prettier-ignore
  const health = await fetch(`${t.url}/health`).then((r) => r.status);
  return { ...(await answer), health };
}

describe('the worst 4 MiB body of each route', () => {
  it('is 4 MiB of JSON, under the body cap', { timeout: 60_000 }, () => {
    for (const [, , text] of WORST) {
      expect(text.length).toBeGreaterThan(4_000_000);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4 * 1024 * 1024);
      expect(() => JSON.parse(text) as unknown).not.toThrow();
    }
  });

  it.each(WORST)(
    '%s, %s: 400 naming the limit and the field, /health answering meanwhile',
    async (path, _what, text, field, rule) => {
      // prettier-ignore
      const res = await postWithHealth(path, text);
      expect(res.health).toBe(200);
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
      const where = field ? `${field}: ` : '';
      expect(res.body.error).toMatch(new RegExp(`^Invalid request body: ${where.replace(/\./g, '\\.')}${rule} \\(`));
      expect(res.body.error).toMatch(/, the limit for request bodies$/);
      if (path.startsWith('/monitors')) expect(Object.keys(res.body)).toEqual(['error']);
    else expect(res.body).toEqual({ requestId: expect.any(String), error: expect.any(String), tag: 'INVALID_REQUEST_BODY' }); // prettier-ignore
    },
  );

  it('OpenAI’s error shape on /v1/responses, same limit', async () => {
    const res = await postWithHealth('/v1/responses', keys('{"model":"svc-agent","input":"x","metadata":{', '}}'));
    expect(res.health).toBe(200);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/metadata: has more than 10000 keys in one object/);
  });
});

describe('bodies just under the limits', () => {
  it('9,999 unknown keys in each of four objects: the schema’s answer, five listed and the rest counted', async () => {
    const body = keys(keys(keys(keys('{"query":"x","contents":{"summary":{', '},"text":{', 9_999), '},"highlights":{', 9_999), '},"extras":{', 9_999), '}},', 9_999).slice(0, -1) + '}'; // prettier-ignore
    const res = await postWithHealth('/search', body);
    expect(res.health).toBe(200);
    expect(res.status).toBe(400);
    expect(res.body.tag).toBe('INVALID_REQUEST_BODY');
    const listed = [0, 1, 2, 3, 4].map((i) => `contents.text.k${i}: unknown field`).join('; ');
    expect(res.body.error).toBe(`Invalid request body: ${listed}; and ${4 * 9_999 - 5} more`);
  });

  it('199,990 items in urls: the schema’s limit on urls', async () => {
    const res = await postWithHealth('/contents', `{"urls":[${Array(199_990).fill('1').join(',')}]}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid request body: urls: must have at most 100 items');
  });

  it('over MCP (the SDK’s client): 9,999 unknown argument keys are an error result naming five', async () => {
    const client: Client = await connectHttpMcp(t.url, t.key);
    try {
      const args = { query: 'x', ...Object.fromEntries(Array.from({ length: 9_998 }, (_, i) => [`k${i}`, 1])) };
      const result = (await client.callTool({ name: 'search', arguments: args })) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^INVALID_REQUEST_BODY: Invalid request body: k0: unknown field; k1: .*; and 9993 more/); // prettier-ignore
    } finally {
      await client.close();
    }
  });
});
