/**
 * The OAuth flow end to end, with real parts: a real `trawl serve` (the built CLI, TRAWL_OAUTH=on), a
 * client whose id is a Client ID Metadata Document served over HTTPS by a loopback fixture (its
 * self-signed certificate trusted through NODE_EXTRA_CA_CERTS, its loopback address opened by
 * TRAWL_PRIVATE_ALLOWLIST), the v2 MCP client's OAuth functions, and headless Chromium signing in with
 * an API key and consenting. Then refresh, revocation (the endpoint, and revoking the key), and no key,
 * code or token in the server's log.
 *
 * The second test connects the v2 client to /mcp itself: 401 → protected-resource metadata → the
 * authorization server's → the metadata document → Chromium → token → tools/call; then a token of one
 * team gets 404 for another team's monitor and no answer for its MCP task, a token for /mcp is refused
 * by the REST API, and revoking the key refuses its token at once.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  Client,
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  startAuthorization,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { CLI, ROOT, tempDir } from '../helpers/app.js';
import { serve, type ServeProcess } from '../helpers/crash.js';

const CHROMIUM = process.env.TRAWL_TEST_BROWSER ?? '/usr/bin/chromium';
const available = fs.existsSync(CHROMIUM) && fs.existsSync(CLI);
if (!available && process.env.CI) throw new Error(`CI must provide Chromium at ${CHROMIUM} and a built CLI`);

const TLS = path.join(ROOT, 'test/fixtures/tls');
const CLIENT_NAME = 'Flow Test <Client>';

const listen = (server: http.Server | https.Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

/** The loopback callback of the client: each hit's query, in order. */
function callbackServer() {
  const waiting: ((q: URLSearchParams) => void)[] = [];
  const server = http.createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    res.end('signed in; you may close this window');
    waiting.shift()?.(query);
  });
  return { server, next: () => new Promise<URLSearchParams>((resolve) => waiting.push(resolve)) };
}

describe.skipIf(!available)('OAuth sign-in of the v2 MCP client through Chromium', () => {
  const data = tempDir('trawl-oauth-flow-');
  const callback = callbackServer();
  let cimd: https.Server;
  let cimdUrl: string;
  let redirectUri: string;
  let trawl: ServeProcess;
  let admin: App;
  let browser: Browser;
  const keys = { alice: { id: '', key: '' }, bob: { id: '', key: '' }, carol: { id: '', key: '' } };

  beforeAll(async () => {
    redirectUri = `http://127.0.0.1:${await listen(callback.server)}/callback`;
    const tls = { key: fs.readFileSync(path.join(TLS, 'self-signed.key')), cert: fs.readFileSync(path.join(TLS, 'self-signed.crt')) }; // prettier-ignore
    cimd = https.createServer(tls, (req, res) => {
      if (req.url !== '/clients/flow.json') return void res.writeHead(404).end();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({
        client_id: cimdUrl,
        client_name: CLIENT_NAME,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      })); // prettier-ignore
    });
    cimdUrl = `https://127.0.0.1:${await listen(cimd)}/clients/flow.json`;
    // the keys, made by the operator on the same data directory as the server's
    const config = loadConfig({}, { dataDir: data.dir, logLevel: 'silent' });
    admin = createApp(config, { logger: createLogger('silent') });
    const other = await admin.services.accounts.teams.create('other', {}, null);
    const alice = await admin.services.keys.create('alice', { scopes: ['search', 'contents', 'monitors'] }, null);
    const bob = await admin.services.keys.create('bob', { teamId: other.id, scopes: ['search', 'monitors'] }, null);
    keys.alice = { id: alice.id, key: alice.key };
    keys.bob = { id: bob.id, key: bob.key };
    const carol = await admin.services.keys.create('carol', { scopes: ['search', 'monitors'] }, null);
    keys.carol = { id: carol.id, key: carol.key };
    trawl = await serve(data.dir, [], {
      logLevel: 'debug',
      env: {
        TRAWL_OAUTH: 'on',
        TRAWL_ALLOW_INSECURE_WEBHOOKS: 'true',
        TRAWL_PRIVATE_ALLOWLIST: '127.0.0.1',
        NODE_EXTRA_CA_CERTS: path.join(TLS, 'self-signed.crt'),
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await trawl?.stop();
    await admin?.close();
    cimd?.close();
    callback.server.close();
    data.cleanup();
  });

  /** Opens the authorization URL in Chromium, signs in with `key`, consents: the callback's query and the page's cookies. */
  async function signIn(authorizationUrl: URL, key: string) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const hit = callback.next();
    await page.goto(authorizationUrl.href);
    expect(await page.textContent('body')).toContain(CLIENT_NAME);
    await page.fill('#key', key);
    await page.click('button[type=submit]');
    await page.waitForSelector('button[value=allow]');
    const consent = (await page.textContent('body')) ?? '';
    const cookies = await context.cookies();
    await page.click('button[value=allow]');
    const query = await hit;
    await context.close();
    return { query, consent, cookies };
  }

  it('discovers the server, fetches the client metadata document, signs in and consents in Chromium, refreshes and revokes', async () => {
    const issuer = `${trawl.url}/oauth`;
    const metadata = await discoverAuthorizationServerMetadata(issuer);
    expect(metadata?.issuer).toBe(issuer);
    expect(metadata?.client_id_metadata_document_supported).toBe(true);
    const clientInformation = { client_id: cimdUrl };
    const resource = `${trawl.url}/mcp`;
    const { authorizationUrl, codeVerifier } = await startAuthorization(issuer, { metadata, clientInformation, redirectUrl: redirectUri, scope: 'search contents admin', resource, state: 'flow-1' }); // prettier-ignore

    const { query, consent, cookies } = await signIn(authorizationUrl, keys.alice.key);
    // the consent names the client (as text), its redirect host and the scopes the key holds of those asked
    expect(consent).toContain(`returning to ${new URL(redirectUri).host}`);
    expect(consent).toContain('search');
    expect(consent).toContain('contents');
    expect(consent).not.toContain('admin');
    const interaction = cookies.find((c) => c.name === '_interaction');
    expect(interaction).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
    expect(cookies.find((c) => c.name === '_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(query.get('state')).toBe('flow-1');
    expect(query.get('iss')).toBe(issuer);
    const code = query.get('code')!;

    const tokens = await exchangeAuthorization(issuer, { metadata, clientInformation, authorizationCode: code, iss: query.get('iss') ?? undefined, codeVerifier, redirectUri, resource }); // prettier-ignore
    expect(tokens).toMatchObject({
      token_type: expect.stringMatching(/^bearer$/i),
      expires_in: 600,
      scope: 'search contents',
    });
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({ iss: issuer, aud: resource, sub: keys.alice.id, client_id: cimdUrl, scope: 'search contents' }); // prettier-ignore

    // refresh rotates the refresh token
    const refreshed = await refreshAuthorization(issuer, { metadata, clientInformation, refreshToken: tokens.refresh_token!, resource }); // prettier-ignore
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(refreshAuthorization(issuer, { metadata, clientInformation, refreshToken: tokens.refresh_token!, resource })).rejects.toThrow(); // prettier-ignore

    // revoking the key revokes what was signed in with it: the next refresh fails
    await admin.keys.revoke(keys.alice.id, null);
    await expect(refreshAuthorization(issuer, { metadata, clientInformation, refreshToken: refreshed.refresh_token!, resource })).rejects.toThrow(); // prettier-ignore

    // nothing secret in the server's log: no key, code, token or verifier
    const log = trawl.log();
    for (const secret of [
      keys.alice.key,
      code,
      codeVerifier,
      tokens.access_token,
      tokens.refresh_token!,
      refreshed.refresh_token!,
    ]) {
      expect(log).not.toContain(secret);
    }
  }, 60_000);

  it('connects the v2 client to /mcp: 401 → metadata → sign-in → token → tools/call; a token of another team or resource is refused', async () => {
    const challenge = (await fetch(`${trawl.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).headers.get('www-authenticate') ?? ''; // prettier-ignore
    expect(challenge).toContain('resource_metadata');
    let authUrl: URL | undefined;
    let verifier = '';
    let saved: Awaited<ReturnType<OAuthClientProvider['tokens']>>;
    let info: Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
    const provider: OAuthClientProvider = {
      clientMetadataUrl: cimdUrl,
      get redirectUrl() {
        return redirectUri;
      },
      get clientMetadata() {
        return { client_name: CLIENT_NAME, redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }; // prettier-ignore
      },
      clientInformation: () => info,
      saveClientInformation: (i) => void (info = i),
      tokens: () => saved,
      saveTokens: (t) => void (saved = t),
      redirectToAuthorization: (url) => void (authUrl = url),
      saveCodeVerifier: (v) => void (verifier = v),
      codeVerifier: () => verifier,
    };
    const mcp = new URL(`${trawl.url}/mcp`);
    const first = new StreamableHTTPClientTransport(mcp, { authProvider: provider });
    await expect(new Client({ name: 'flow', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(authUrl).toBeDefined();
    const { query } = await signIn(authUrl!, keys.bob.key);
    await first.finishAuth(query);
    const client = new Client({ name: 'flow', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
    const tools = await client.listTools();
    expect(tools.tools.length).toBeGreaterThan(0);
    const result = await client.callTool({ name: 'search', arguments: { query: 'oauth' } });
    expect(result.isError).toBeFalsy();
    await client.close();
    const mcpToken = saved!.access_token;
    // the /mcp token is not a token for the REST API (its audience is /mcp)
    const rest = (token: string, path: string) => fetch(`${trawl.url}${path}`, { headers: { authorization: `Bearer ${token}` } }); // prettier-ignore
    expect((await rest(mcpToken, '/monitors')).status).toBe(401);

    // team isolation: carol (team default) makes a monitor; bob (team other), signed in for REST, gets 404
    const created = await fetch(`${trawl.url}/monitors`, {
      method: 'POST',
      headers: { 'x-api-key': keys.carol.key, 'content-type': 'application/json' },
      body: JSON.stringify({ search: { query: 'pooling' }, webhook: { url: 'http://127.0.0.1:9/hook' } }),
    });
    expect(created.status).toBe(201);
    const monitorId = ((await created.json()) as { id: string }).id;
    const issuer = `${trawl.url}/oauth`;
    const metadata = await discoverAuthorizationServerMetadata(issuer);
    const restResource = `${trawl.url}/`;
    const start = await startAuthorization(issuer, { metadata, clientInformation: { client_id: cimdUrl }, redirectUrl: redirectUri, scope: 'monitors', resource: restResource }); // prettier-ignore
    const restSignIn = await signIn(start.authorizationUrl, keys.bob.key);
    const restTokens = await exchangeAuthorization(issuer, { metadata, clientInformation: { client_id: cimdUrl }, authorizationCode: restSignIn.query.get('code')!, iss: restSignIn.query.get('iss') ?? undefined, codeVerifier: start.codeVerifier, redirectUri, resource: restResource }); // prettier-ignore
    expect((await rest(restTokens.access_token, '/monitors')).status).toBe(200);
    expect((await rest(restTokens.access_token, `/monitors/${monitorId}`)).status).toBe(404);

    // and carol's MCP task (made with her API key, by the v1 client) is no task for bob's token
    const v1 = new V1Client({ name: 'carol', version: '1' });
    await v1.connect(new V1Transport(new URL(`${trawl.url}/mcp`), { requestInit: { headers: { 'x-api-key': keys.carol.key } } })); // prettier-ignore
    const { task } = await v1.request({ method: 'tools/call', params: { name: 'search', arguments: { query: 'pooling' }, task: {} } }, CreateTaskResultSchema); // prettier-ignore
    await v1.close();
    const got = await fetch(`${trawl.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, // prettier-ignore
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: task.taskId } }),
    });
    const gotText = await got.text();
    expect(gotText).toMatch(/"error"/);
    expect(gotText).not.toMatch(/"status":"(working|completed)"/);

    // revoking bob's key refuses his access token at once
    await admin.keys.revoke(keys.bob.id, null);
    const after = await fetch(`${trawl.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mcpToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(after.status).toBe(401);
  }, 60_000);
});
