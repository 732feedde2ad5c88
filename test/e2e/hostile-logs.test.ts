/**
 * Issue 21, defects 7 and 8 through the real HTTP door: an embeddings provider that echoes the request
 * (its Authorization header and body) in a 401 error body, and pages fetched with `user:pass@` and token
 * query parameters, leave no credential in the debug log; the log keeps the status and a short reason.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';

const KEY = 'plain-provider-key-4711';
const UPSTREAM_KEY = 'upstream-key-0042';
const PASSWORD = 'hunter2-basic-pass';
const TOKEN = 'tok-query-value-0815';
const lines: string[] = [];
let t: TestServer;
let site: FixtureSite;
let provider: http.Server;

beforeAll(async () => {
  // A hostile provider: refuses every call and echoes what it was sent, key included.
  provider = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const key = req.headers.authorization ?? req.headers['x-api-key'];
      const echo = { error: `invalid key: ${key}`, headers: req.headers, request: body, padding: 'x'.repeat(3000) };
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(echo));
    });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  site = await startFixtureSite();
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  t = await startTestServer(
    {
      privateAllowlist: ['127.0.0.1'],
      embeddingsUrl: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`,
      embeddingsModel: 'test-embed',
      embeddingsApiKey: KEY,
      upstreamUrl: `http://127.0.0.1:${(provider.address() as AddressInfo).port}`,
      upstreamApiKey: UPSTREAM_KEY,
    },
    { logger: createLogger('debug', stream) },
  );
});
afterAll(async () => {
  await t?.close();
  await site?.close();
  await new Promise((r) => provider?.close(r));
});

describe('logs under hostile input', () => {
  it('log a failing provider by status and a short reason, never its echoed key or body', async () => {
    const url = `${site.url}/docs/getting-started`;
    const res = await postJson(t.url, '/contents', { urls: [url], highlights: { query: 'setup' } }, { 'x-api-key': t.key }); // prettier-ignore
    expect(res.status).toBe(200);
    const log = lines.join('');
    const failed = lines.find((l) => l.includes('embeddings failed'));
    expect(failed).toBeDefined();
    expect(failed).toContain('401');
    expect(JSON.parse(failed!).err.message.length).toBeLessThan(600);
    expect(log).not.toContain(KEY);
    expect(log).not.toContain(t.key);
  });

  it('log a failing web-search provider by status and a short reason, never its echoed key', async () => {
    const res = await postJson(t.url, '/search', { query: 'hostile echo' }, { 'x-api-key': t.key });
    expect(res.status).toBeLessThan(500);
    const failed = lines.find((l) => l.includes('web search provider failed'));
    expect(failed).toBeDefined();
    const reason = (JSON.parse(failed!) as { reason: string }).reason;
    expect(reason).toContain('401');
    expect(reason.length).toBeLessThanOrEqual(400);
    expect(lines.join('')).not.toContain(UPSTREAM_KEY);
  });

  it('strip userinfo and token parameters from every URL a debug line carries', async () => {
    const base = new URL(site.url);
    const url = `http://alice:${PASSWORD}@${base.host}/docs/getting-started?access_token=${TOKEN}&page=2`;
    const res = await postJson(t.url, '/contents', { urls: [url] }, { 'x-api-key': t.key });
    expect(res.status).toBe(200);
    const log = lines.join('');
    expect(log).toContain('/docs/getting-started');
    expect(log).not.toContain(PASSWORD);
    expect(log).not.toContain(TOKEN);
  });
});
