/**
 * The OAuth flow end to end with an EXTERNAL authorization server: a real `trawl serve` (the built CLI)
 * as a pure resource server (TRAWL_AUTH_ISSUER, TRAWL_PUBLIC_URL), oidc-provider in its own process as
 * the issuer (test/fixtures/oauth/external-issuer.mjs, the stand-in for Keycloak, Entra or Auth0), a
 * client whose id is a Client ID Metadata Document served over HTTPS by a loopback fixture (its
 * self-signed certificate trusted by the issuer through NODE_EXTRA_CA_CERTS), the v2 MCP client's OAuth
 * functions, and headless Chromium signing a person in on the issuer's development pages (the login
 * name `NAME@TEAM` puts `trawl_team: TEAM` in the person's tokens) and consenting.
 *
 * 401 → Trawl's protected-resource metadata naming the issuer → the issuer's metadata → the metadata
 * document → Chromium → code exchanged with PKCE → tools/call as the person's key in their team; then
 * refresh (rotated: the old refresh token refused), revocation at the issuer (the next refresh fails),
 * revoking the person's key at Trawl (their access token refused at once); a token the issuer made
 * for another resource refused; a task of a person of team alpha is no task for one of team beta.
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
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { CLI, ROOT, tempDir } from '../helpers/app.js';
import { serve, type ServeProcess } from '../helpers/crash.js';
import { startExternalIssuer, type ExternalIssuer } from '../helpers/external-issuer.js';
import { modernEraClient, pollTask, type EraClient } from '../helpers/mcp-eras.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CHROMIUM = process.env.TRAWL_TEST_BROWSER ?? '/usr/bin/chromium';
const available = fs.existsSync(CHROMIUM) && fs.existsSync(CLI);
if (!available && process.env.CI) throw new Error(`CI must provide Chromium at ${CHROMIUM} and a built CLI`);

const TLS = path.join(ROOT, 'test/fixtures/tls');
const CLIENT_NAME = 'External Flow Client';
const PLAN = { json: { queries: ['undici pools per origin'] } };

const listen = (server: http.Server | https.Server, port = 0) =>
  new Promise<number>((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

/** A free loopback port (the public URL must name the port before the server starts). */
async function freePort(): Promise<number> {
  const probe = http.createServer();
  const port = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

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

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Json;

describe.skipIf(!available)('OAuth sign-in of the v2 MCP client at an external authorization server', () => {
  const data = tempDir('trawl-oauth-external-flow-');
  const callback = callbackServer();
  const cimdHits: string[] = [];
  let cimd: https.Server;
  let cimdUrl: string;
  let redirectUri: string;
  let issuer: ExternalIssuer;
  let model: ModelServer;
  let trawl: ServeProcess;
  let admin: App;
  let browser: Browser;
  const teams = { alpha: '', beta: '' };
  const clients: EraClient[] = [];

  beforeAll(async () => {
    redirectUri = `http://127.0.0.1:${await listen(callback.server)}/callback`;
    const tls = { key: fs.readFileSync(path.join(TLS, 'self-signed.key')), cert: fs.readFileSync(path.join(TLS, 'self-signed.crt')) }; // prettier-ignore
    cimd = https.createServer(tls, (req, res) => {
      if (req.url !== '/clients/external.json') return void res.writeHead(404).end();
      cimdHits.push(req.url);
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
    cimdUrl = `https://127.0.0.1:${await listen(cimd)}/clients/external.json`;
    issuer = await startExternalIssuer([], 600, { NODE_EXTRA_CA_CERTS: path.join(TLS, 'self-signed.crt') });
    model = await startModelServer({ reply: (body) => (/json/i.test(JSON.stringify(body)) ? PLAN : 'Pools are per origin [1].') }); // prettier-ignore
    // the teams, made by the operator on the same data directory as the server's
    const config = loadConfig({}, { dataDir: data.dir, logLevel: 'silent' });
    admin = createApp(config, { logger: createLogger('silent') });
    teams.alpha = (await admin.services.accounts.teams.create('alpha', {}, null)).id;
    teams.beta = (await admin.services.accounts.teams.create('beta', {}, null)).id;
    const port = await freePort();
    trawl = await serve(data.dir, [], {
      port,
      logLevel: 'debug',
      env: {
        TRAWL_AUTH_ISSUER: issuer.issuer,
        TRAWL_PUBLIC_URL: `http://127.0.0.1:${port}`,
        TRAWL_TOOLS: 'search,get_contents,agent_run',
        TRAWL_MODEL_BASE_URL: model.baseUrl,
        TRAWL_MODEL: 'm',
        TRAWL_PRIVATE_ALLOWLIST: '127.0.0.1',
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await browser?.close();
    await trawl?.stop();
    await admin?.close();
    await issuer?.close();
    await model?.close();
    cimd?.close();
    callback.server.close();
    data.cleanup();
  });

  /**
   * Opens the authorization URL in Chromium, signs in on the issuer's development login page as
   * `login` (any password), consents: the callback's query and the consent page's text. Nothing leaves
   * loopback (the development pages' web font is refused).
   */
  async function signIn(authorizationUrl: URL, login: string) {
    const context = await browser.newContext();
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
    const page = await context.newPage();
    const hit = callback.next();
    await page.goto(authorizationUrl.href);
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any password');
    await page.click('button[type=submit]');
    await page.waitForSelector('input[name=prompt][value=consent]', { state: 'attached' });
    const consent = (await page.textContent('body')) ?? '';
    await page.click('button[type=submit]');
    const query = await hit;
    await context.close();
    return { query, consent };
  }

  /** An OAuth client provider as an MCP client keeps one: the metadata document's URL, its state in memory. */
  function clientProvider() {
    let authUrl: URL | undefined;
    let verifier = '';
    let saved: Awaited<ReturnType<OAuthClientProvider['tokens']>>;
    let info: Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
    let discovery: Awaited<ReturnType<NonNullable<OAuthClientProvider['discoveryState']>>>;
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
      // kept so the callback is checked against the authorization server the redirect went to (SEP-2352)
      saveDiscoveryState: (state) => void (discovery = state),
      discoveryState: () => discovery,
    };
    return { provider, authUrl: () => authUrl, tokens: () => saved! };
  }

  /** The v2 client connects to /mcp, is refused 401, signs `login` in through Chromium and finishes the flow. */
  async function personSignsIn(login: string) {
    const p = clientProvider();
    const first = new StreamableHTTPClientTransport(new URL(`${trawl.url}/mcp`), { authProvider: p.provider });
    await expect(new Client({ name: 'external-flow', version: '1' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(p.authUrl()?.origin).toBe(issuer.issuer);
    const { query, consent } = await signIn(p.authUrl()!, login);
    expect(query.get('iss')).toBe(issuer.issuer);
    await first.finishAuth(query);
    const client = await modernEraClient({ kind: 'http', url: trawl.url, key: '', authProvider: p.provider });
    clients.push(client);
    return { ...p, client, consent, code: query.get('code')! };
  }

  /** A raw JSON-RPC POST to /mcp with `token` as the Bearer credential. */
  async function rpc(token: string, method: string, params: Json = {}) {
    const res = await fetch(`${trawl.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, // prettier-ignore
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '', text: await res.text() };
  }

  /** The key Trawl made for a person on first use. */
  async function keyOf(login: string) {
    const name = `oauth: ${login}@${new URL(issuer.issuer).host}`;
    return (await admin.keys.list(null)).find((k) => k.name === name);
  }

  it('signs a person in: 401 → metadata → the metadata document → Chromium → token → tools/call; refresh, revocation at the issuer and at Trawl', async () => {
    const resource = `${trawl.url}/mcp`;
    const challenged = await fetch(resource, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }); // prettier-ignore
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get('www-authenticate')).toContain(`resource_metadata="${trawl.url}/.well-known/oauth-protected-resource/mcp"`); // prettier-ignore
    const prm = (await (await fetch(`${trawl.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Json;
    expect(prm).toMatchObject({ resource, authorization_servers: [issuer.issuer] });
    const metadata = await discoverAuthorizationServerMetadata(issuer.issuer);
    expect(metadata).toMatchObject({ issuer: issuer.issuer, client_id_metadata_document_supported: true });

    const alice = await personSignsIn('alice@alpha');
    expect(cimdHits.length).toBeGreaterThan(0); // the issuer fetched the client's metadata document
    expect(alice.consent).toContain(resource);
    expect(alice.consent).toContain('search');
    const tokens = alice.tokens();
    expect(claimsOf(tokens.access_token)).toMatchObject({
      iss: issuer.issuer,
      aud: resource,
      sub: 'alice@alpha',
      client_id: cimdUrl,
      trawl_team: 'alpha',
      scope: expect.stringContaining('search'),
    });
    expect(tokens.refresh_token).toBeTruthy();

    const listed = await alice.client.listTools();
    expect(listed.tools.map((t: Json) => t.name)).toContain('search');
    const result = await alice.client.callTool('search', { query: 'oauth' });
    expect(result.isError ?? false).toBe(false);
    // the person acts as their own key, made on first use in the team their token names
    const key = await keyOf('alice@alpha');
    expect(key).toMatchObject({ teamId: teams.alpha });

    // refresh rotates the refresh token; the old one is refused by the issuer
    const clientInformation = { client_id: cimdUrl };
    const refreshed = await refreshAuthorization(issuer.issuer, { metadata, clientInformation, refreshToken: tokens.refresh_token!, resource }); // prettier-ignore
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(refreshAuthorization(issuer.issuer, { metadata, clientInformation, refreshToken: tokens.refresh_token!, resource })).rejects.toThrow(); // prettier-ignore
    expect((await rpc(refreshed.access_token, 'tools/list')).status).toBe(200);

    // revoked at the issuer, the refresh token refreshes no more
    const revocation = (metadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
    expect(revocation).toBe(`${issuer.issuer}/token/revocation`);
    const revoked = await fetch(revocation!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshed.refresh_token!, token_type_hint: 'refresh_token', client_id: cimdUrl }), // prettier-ignore
    });
    expect(revoked.status).toBe(200);
    await expect(refreshAuthorization(issuer.issuer, { metadata, clientInformation, refreshToken: refreshed.refresh_token!, resource })).rejects.toThrow(); // prettier-ignore

    // at Trawl, revoking the person's key refuses their (still unexpired) access token at once
    expect((await rpc(refreshed.access_token, 'tools/list')).status).toBe(200);
    await admin.keys.revoke(key!.id, null);
    const refused = await rpc(refreshed.access_token, 'tools/list');
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text).error).toMatch(/has been revoked/);

    // nothing secret in the server's log
    const log = trawl.log();
    for (const secret of [tokens.access_token, refreshed.access_token, tokens.refresh_token!, alice.code]) {
      expect(log).not.toContain(secret);
    }
  }, 60_000);

  it('refuses a token the issuer made, through the same flow, for another resource', async () => {
    const metadata = await discoverAuthorizationServerMetadata(issuer.issuer);
    const clientInformation = { client_id: cimdUrl };
    const resource = 'https://other.example/mcp';
    const { authorizationUrl, codeVerifier } = await startAuthorization(issuer.issuer, { metadata, clientInformation, redirectUrl: redirectUri, scope: 'search', resource, state: 'other-1' }); // prettier-ignore
    const { query } = await signIn(authorizationUrl, 'bob@alpha');
    expect(query.get('state')).toBe('other-1');
    const tokens = await exchangeAuthorization(issuer.issuer, { metadata, clientInformation, authorizationCode: query.get('code')!, iss: query.get('iss') ?? undefined, codeVerifier, redirectUri, resource }); // prettier-ignore
    expect(claimsOf(tokens.access_token)).toMatchObject({ iss: issuer.issuer, aud: resource, trawl_team: 'alpha' });
    const res = await rpc(tokens.access_token, 'tools/list');
    expect(res.status).toBe(401);
    expect(res.challenge).toContain('error="invalid_token"');
    expect(JSON.parse(res.text).error).toMatch(/not for this resource/);
    expect(await keyOf('bob@alpha')).toBeUndefined(); // a refused token makes no key
  }, 60_000);

  it('gives a person of team beta no answer for the task of a person of team alpha, both signed in through the flow', async () => {
    const carol = await personSignsIn('carol@alpha');
    const dave = await personSignsIn('dave@beta');
    expect(claimsOf(dave.tokens().access_token).trawl_team).toBe('beta');
    const task = await carol.client.startTask('agent_run', { query: 'how do undici pools work', effort: 'low' });
    expect(task).toMatchObject({ taskId: expect.any(String), status: 'working', resultType: 'task' });
    expect(await carol.client.getTask(task.taskId)).toMatchObject({ taskId: task.taskId });
    await expect(dave.client.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    await expect(dave.client.cancelTask(task.taskId)).rejects.toThrow(/Task not found/);
    expect(await keyOf('carol@alpha')).toMatchObject({ teamId: teams.alpha });
    expect(await keyOf('dave@beta')).toMatchObject({ teamId: teams.beta });
    // the run ends for its owner (so the server stops with nothing running)
    const done = await pollTask(carol.client, task.taskId, (t) => t.status !== 'working');
    expect(done.status).not.toBe('working');
  }, 90_000);
});
