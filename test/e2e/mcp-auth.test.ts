/**
 * Authentication at /mcp through the real HTTP door and the MCP SDK's real client: a 401 with a Bearer
 * challenge and no OAuth metadata, REST answers unchanged, and the keyless loopback mode.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
};
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

/** The SDK's client over streamable HTTP, with the given request headers. */
async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers } }));
  return client;
}

/** The error `connect` fails with (it must fail). */
async function connectError(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const error = await connect(url, headers).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error, 'connect should have failed').toBeDefined();
  return error;
}

describe('/mcp with API keys (the default)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('answers a request without a key 401 with a Bearer challenge and no resource_metadata', async () => {
    const res = await postJson(t.url, '/mcp', INITIALIZE, MCP_HEADERS);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="trawl"');
    expect(res.body).toMatchObject({ tag: 'INVALID_API_KEY', error: expect.stringMatching(/Missing API key/) });
  });

  it('adds error="invalid_token" when the key sent is wrong, by either header', async () => {
    const wrong: Record<string, string>[] = [{ 'x-api-key': 'svc_wrong' }, { authorization: 'Bearer svc_wrong' }];
    for (const headers of wrong) {
      const res = await postJson(t.url, '/mcp', INITIALIZE, { ...MCP_HEADERS, ...headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="trawl", error="invalid_token"');
      expect(res.body).toMatchObject({ tag: 'INVALID_API_KEY', error: expect.stringMatching(/unknown or has been revoked/) }); // prettier-ignore
    }
  });

  it('leaves the REST answers to a missing or wrong key as they were (no challenge header)', async () => {
    const missing = await postJson(t.url, '/search', { query: 'x' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBeNull();
    expect(Object.keys(missing.body).sort()).toEqual(['error', 'requestId', 'tag']);
    expect(missing.body.tag).toBe('INVALID_API_KEY');
    const wrong = await postJson(t.url, '/search', { query: 'x' }, { 'x-api-key': 'svc_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBeNull();
  });

  it('answers 404 for OAuth metadata, so clients find no login to start', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-authorization-server/mcp',
      '/.well-known/openid-configuration',
    ]) {
      const res = await fetch(t.url + path);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: string }).error, path).toMatch(/no OAuth server.*API key/);
    }
    // the SDK's own discovery comes back empty-handed
    await expect(discoverOAuthProtectedResourceMetadata(new URL('/mcp', t.url))).rejects.toThrow(/does not implement OAuth/); // prettier-ignore
    expect(await discoverAuthorizationServerMetadata(t.url)).toBeUndefined();
  });

  it("makes the SDK client's connect fail with a 401 that names no resource metadata", async () => {
    const error = await connectError(t.url);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
    expect((error as Error).message).toMatch(/Missing API key/);
    const res = await fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...MCP_HEADERS },
      body: JSON.stringify(INITIALIZE),
    });
    expect(extractWWWAuthenticateParams(res)).toEqual({ resourceMetadataUrl: undefined, scope: undefined, error: undefined }); // prettier-ignore
  });

  it('serves the SDK client that sends a valid key, by x-api-key or Authorization: Bearer', async () => {
    const valid: Record<string, string>[] = [{ 'x-api-key': t.key }, { authorization: `Bearer ${t.key}` }];
    for (const headers of valid) {
      const client = await connect(t.url, headers);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    }
  });
});

describe('/mcp in the keyless loopback mode', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ mcpKeyless: true });
  });
  afterAll(() => t.close());

  it('serves the SDK client without a key, as the local user', async () => {
    const client = await connect(t.url);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  it('still checks a key that is sent', async () => {
    const error = await connectError(t.url, { 'x-api-key': 'svc_wrong' });
    expect((error as StreamableHTTPError).code).toBe(401);
    const client = await connect(t.url, { 'x-api-key': t.key });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  it('still checks Host and Origin, and refuses Origin: null', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ origin: 'null' }, /Origin "null"/],
      [{ origin: 'http://127.evil.example' }, /Origin "http:\/\/127.evil.example" is not allowed/],
      [{ origin: 'http://localhost.evil.example:8787' }, /is not allowed/],
      [{ host: '127.evil.example' }, /Host "127.evil.example"/],
    ];
    for (const [headers, message] of cases) {
      // fetch cannot set Host; node:http can, so the Host case goes through a raw request
      const res = headers.host ? await rawPost(t.url, headers.host) : await postJson(t.url, '/mcp', INITIALIZE, { ...MCP_HEADERS, ...headers }); // prettier-ignore
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body).toMatchObject({ tag: 'FORBIDDEN_ORIGIN', error: expect.stringMatching(message) });
    }
    const local = await fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...MCP_HEADERS, origin: 'http://localhost:6274' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(local.status).toBe(200);
    expect(await local.text()).toMatch(/"serverInfo"/);
  });

  it('keeps REST behind keys', async () => {
    const res = await postJson(t.url, '/search', { query: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.tag).toBe('INVALID_API_KEY');
  });

  it('is refused at start-up unless the listener is on loopback', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '127.evil.example', 'trawl.example']) {
      expect(() => loadConfig({}, { mcpKeyless: true, host }), host).toThrow(ConfigError);
      expect(() => loadConfig({}, { mcpKeyless: true, host }), host).toThrow(/TRAWL_MCP_KEYLESS.*loopback/);
    }
    expect(() => loadConfig({ TRAWL_MCP_KEYLESS: 'true', TRAWL_HOST: '0.0.0.0' })).toThrow(/TRAWL_HOST is "0.0.0.0"/);
    for (const host of ['127.0.0.1', 'localhost', '::1']) {
      expect(loadConfig({}, { mcpKeyless: true, host }).mcpKeyless, host).toBe(true);
    }
    expect(loadConfig({}, { host: '0.0.0.0' }).mcpKeyless).toBe(false);
  });
});

/** POST /mcp with a chosen Host header (fetch forbids setting it). */
async function rawPost(base: string, host: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const { request } = await import('node:http');
  const url = new URL('/mcp', base);
  const payload = JSON.stringify(INITIALIZE);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { host, 'content-type': 'application/json', ...MCP_HEADERS } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }),
        );
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}
