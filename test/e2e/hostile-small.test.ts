/**
 * Issue 21, defect 10 through the real HTTP door on 127.0.0.1:0: /mcp transport errors carry the
 * request id (header and JSON-RPC `error.data`), the key's scope is checked before the body is read,
 * /findSimilar on a URL the policy refuses answers the policy's 4xx, and a client that goes away
 * mid-body is logged as a client abort, not as a server error.
 */
import http from 'node:http';
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

type RpcError = { error: { code: number; message: string; data?: Record<string, unknown> } };

/** POSTs `body` to /mcp as a streamable-HTTP client would, with `headers` overriding. */
async function postMcp(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-api-key': t.key,
      ...headers,
    },
    body,
  });
  return { status: res.status, requestId: res.headers.get('x-request-id'), body: (await res.json()) as RpcError }; // prettier-ignore
}

describe('/mcp transport errors', () => {
  it('name the request id and a tag in error.data and in x-request-id (bad JSON)', async () => {
    const res = await postMcp('{"jsonrpc": "2.0", "method": ');
    expect(res.status).toBe(400);
    expect(res.requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body.error.code).toBe(-32700);
    expect(res.body.error.data).toMatchObject({ requestId: res.requestId, tag: 'INVALID_REQUEST_BODY' });
  });

  it('do so for a client that does not accept an event stream, keeping an incoming x-request-id', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const res = await postMcp(ping, { accept: 'application/json', 'x-request-id': 'trace-0123456789' });
    expect(res.status).toBe(406);
    expect(res.requestId).toBe('trace-0123456789');
    expect(res.body.error.data).toMatchObject({ requestId: 'trace-0123456789', tag: 'INVALID_REQUEST' });
  });
});

describe('the scope check', () => {
  it("refuses a key without the scope before reading its body (403, not the body's 400)", async () => {
    const contentsOnly = (await t.app.services.keys.create('contents only', { scopes: ['contents'] }, null)).key;
    for (const body of ['{"query": ', { query: 'x', numResults: 'many' }]) {
      const res = await postJson(t.url, '/search', body, { 'x-api-key': contentsOnly });
      expect([res.status, res.body.tag]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    }
    const allowed = await postJson(t.url, '/contents', { urls: 'nope' }, { 'x-api-key': contentsOnly });
    expect([allowed.status, allowed.body.tag]).toEqual([400, 'INVALID_REQUEST_BODY']);
  });

  it('refuses an MCP tool call outside the key’s scope before reading its arguments', async () => {
    const contentsOnly = (await t.app.services.keys.create('contents only, MCP', { scopes: ['contents'] }, null)).key;
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { 'x-api-key': contentsOnly } } }); // prettier-ignore
    const client = new Client({ name: 'scope-test', version: '1' });
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) =>
      ((await client.callTool({ name, arguments: args })) as { content: { text: string }[] }).content[0]!.text;
    expect(await call('search', { query: 'x', numResults: 'many' })).toMatch(/^INSUFFICIENT_SCOPE: /);
    expect(await call('get_contents', { urls: 'nope' })).toMatch(/^INVALID_REQUEST_BODY: .*urls/);
    await client.close();
  });
});

describe('/findSimilar on a URL the policy refuses', () => {
  it("answers the policy's 403 with the tag /contents gives that URL, not a 502", async () => {
    const url = 'http://10.1.2.3/private-page';
    const contents = await postJson(t.url, '/contents', { urls: [url] }, { 'x-api-key': t.key });
    const [status] = contents.body.statuses as { error: { tag: string } }[];
    expect(status!.error.tag).toBe('CRAWL_PRIVATE_ADDRESS');
    const res = await postJson(t.url, '/findSimilar', { url }, { 'x-api-key': t.key });
    expect([res.status, res.body.tag]).toEqual([403, status!.error.tag]);
    expect(res.body.error).toMatch(/private|TRAWL_ALLOW_PRIVATE_NETWORK/i);
  });

  it('answers 400 naming url for a URL Trawl never fetches (a port of another protocol, credentials)', async () => {
    for (const [url, why] of [
      ['http://127.0.0.1:1/admin', /port 1 belongs to another protocol/],
      ['http://user:pass@example.com/', /Trawl can fetch/],
    ] as const) {
      // prettier-ignore
      const res = await postJson(t.url, '/findSimilar', { url }, { 'x-api-key': t.key });
      expect([res.status, res.body.tag]).toEqual([400, 'INVALID_REQUEST_BODY']);
      expect(res.body.error).toMatch(why);
    }
  });
});

/** Sends the headers and half of a declared body to `path`, then drops the connection. */
async function abortMidBody(base: string, path: string, key: string): Promise<void> {
  const req = http.request(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': '4000',
      'x-api-key': key,
    },
  });
  req.on('error', () => undefined);
  req.write('{"query": "' + 'a'.repeat(1000));
  await new Promise((r) => setTimeout(r, 100)); // the server is reading the body by now
  req.destroy();
}

describe('a client that disconnects mid-body', () => {
  it('is logged as a client abort (499, info), never as a 500 or at error level', async () => {
    const lines: { level: number; msg: string; status?: number; path?: string }[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const s = await startTestServer({}, { logger: createLogger('info', stream) });
    try {
      for (const path of ['/search', '/mcp']) {
        await abortMidBody(s.url, path, s.key);
        await expect.poll(() => lines.find((l) => l.msg === 'request' && l.path === path)).toBeDefined();
        const request = lines.find((l) => l.msg === 'request' && l.path === path)!;
        expect([path, request.status]).toEqual([path, 499]);
      }
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
      expect(lines.some((l) => l.level === 30 && /client closed/.test(l.msg))).toBe(true);
      expect((await fetch(`${s.url}/health`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
