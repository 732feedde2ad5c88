/**
 * Trawl as an OAuth resource server, through the real HTTP door on 127.0.0.1:0: an external authorization
 * server (oidc-provider as a separate process, the stand-in for Keycloak, Entra or Auth0) issues JWT
 * access tokens by the client_credentials grant, and a test-built own issuer signs tokens as Trawl's own
 * authorization server will. Metadata, challenges, audiences, expiry, scopes, key rotation, teams and
 * the identity rule, revocation, API keys and the keyless mode, and no token in the logs.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { startExternalIssuer, type ExternalIssuer, type IssuerClient } from '../helpers/external-issuer.js';
import { captureLogs } from '../helpers/log-capture.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const DEFAULT_SCOPE = 'search contents context monitors agent';
const ALPHA: IssuerClient = { id: 'alpha-app', secret: 'alpha-secret-0123456789abcdef0123', team: 'alpha' };
const BETA: IssuerClient = { id: 'beta-app', secret: 'beta-secret-0123456789abcdef01234', team: 'beta' };
const CAROL: IssuerClient = { id: 'carol', secret: 'carol-secret-0123456789abcdef01234', email: 'carol@example.org' };
const SDK_APP: IssuerClient = { id: 'sdk-app', secret: 'sdk-secret-0123456789abcdef012345', team: 'alpha', basic: true }; // prettier-ignore
const NOBODY: IssuerClient = { id: 'nobody', secret: 'nobody-secret-0123456789abcdef0123', email: 'dave@unknown.test' };

/** A clock the test moves forward (past the key set's reload cooldown). */
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

let issuer: ExternalIssuer;
let t: TestServer;
const logs = captureLogs();
const clients: Client[] = [];

beforeAll(async () => {
  issuer = await startExternalIssuer([ALPHA, BETA, CAROL, NOBODY, SDK_APP]);
  t = await startTestServer(
    { authIssuer: issuer.issuer, authEmailTeams: 'example.org=beta', allowInsecureWebhooks: true, tools: 'all' },
    { clock, logger: logs.logger },
  );
  for (const name of ['alpha', 'beta']) {
    expect((await postJson(t.url, '/admin/teams', { name }, { 'x-api-key': t.key })).status).toBe(201);
  }
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t?.close();
  await issuer?.close();
});

const mcpResource = () => `${t.url}/mcp`;
const restResource = () => `${t.url}/`;

/** A raw JSON-RPC POST to /mcp with `token` as the Bearer credential. */
async function rpc(token: string | undefined, method: string, params: Json = {}) {
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...MCP_HEADERS,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

/** A REST call with `token` as the Bearer credential. */
async function rest(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(t.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, // prettier-ignore
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Json };
}

/** The v1 SDK client over streamable HTTP with `token`. */
async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', t.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }), // prettier-ignore
  );
  clients.push(client);
  return client;
}

describe('protected-resource metadata and challenges', () => {
  it('serves RFC 9728 metadata for /mcp and for the REST API, naming the external issuer', async () => {
    for (const [path, resource, name] of [
      ['/.well-known/oauth-protected-resource/mcp', mcpResource(), 'Trawl MCP server'],
      ['/.well-known/oauth-protected-resource', restResource(), 'Trawl REST API'],
    ] as const) {
      const res = await fetch(t.url + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({
        resource,
        authorization_servers: [issuer.issuer],
        scopes_supported: ['search', 'contents', 'context', 'monitors', 'agent', 'admin:team', 'admin'],
        bearer_methods_supported: ['header'],
        resource_name: name,
        resource_documentation: `${t.url}/openapi.json`,
      });
    }
    // the authorization server's own metadata is the issuer's to serve
    const as = await fetch(`${t.url}/.well-known/oauth-authorization-server`);
    expect(as.status).toBe(404);
    expect(((await as.json()) as Json).error).toContain(issuer.issuer);
  });

  it('answers /mcp without a credential 401 naming the metadata and the default scopes', async () => {
    const res = await rpc(undefined, 'tools/list');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp", scope="${DEFAULT_SCOPE}"`,
    );
    const bad = await rpc('not.a.token', 'tools/list');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp", scope="${DEFAULT_SCOPE}", error="invalid_token"`,
    );
    expect(JSON.parse(bad.text)).toMatchObject({ tag: 'INVALID_API_KEY' });
  });

  it('keeps the REST 401 envelope, with a challenge naming the REST metadata', async () => {
    const res = await postJson(t.url, '/search', { query: 'x' });
    expect(res.status).toBe(401);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'requestId', 'tag']);
    expect(res.body.tag).toBe('INVALID_API_KEY');
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${t.url}/.well-known/oauth-protected-resource"`); // prettier-ignore
  });
});

describe('tokens of the external issuer', () => {
  it('serve the SDK client at /mcp (tools/list, tools/call) and a REST route, as a key of the claimed team', async () => {
    const token = await issuer.token(ALPHA, mcpResource(), DEFAULT_SCOPE);
    const client = await mcpClient(token);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('search');
    const result = (await client.callTool({ name: 'search', arguments: { query: 'pooling' } })) as Json;
    expect(result.isError ?? false).toBe(false);

    const restToken = await issuer.token(ALPHA, restResource(), 'search');
    const searched = await rest(restToken, 'POST', '/search', { query: 'pooling' });
    expect(searched.status).toBe(200);
    expect(searched.body.results).toBeInstanceOf(Array);
    // the person's key, made on first use in team alpha with the default scopes, named for the operator
    const keys = (await callJson(t.url, t.key, 'GET', '/admin/keys')).body.data as Json[];
    const made = keys.filter((k) => String(k.name).startsWith('oauth: '));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ name: `oauth: ${ALPHA.id}@${new URL(issuer.issuer).host}`, teamId: expect.any(String), scopes: DEFAULT_SCOPE.split(' ') }); // prettier-ignore
  });

  it("serve the SDK client that signs in by itself: 401 → Trawl's metadata → the issuer's → a token for /mcp → tools/call", async () => {
    const authProvider = new ClientCredentialsProvider({
      clientId: SDK_APP.id,
      clientSecret: SDK_APP.secret,
      scope: 'search',
      expectedIssuer: issuer.issuer,
    });
    const client = new Client({ name: 'oauth-sdk', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.url), { authProvider }));
    clients.push(client);
    const result = (await client.callTool({ name: 'search', arguments: { query: 'pooling' } })) as Json;
    expect(result.isError ?? false).toBe(false);
    const token = authProvider.tokens()!.access_token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Json;
    expect(claims).toMatchObject({ iss: issuer.issuer, aud: mcpResource(), scope: 'search', trawl_team: 'alpha' });
  });

  it('refuses a token for another resource (audience), at /mcp and at REST', async () => {
    const forRest = await issuer.token(ALPHA, restResource(), 'search');
    const atMcp = await rpc(forRest, 'tools/list');
    expect(atMcp.status).toBe(401);
    expect(JSON.parse(atMcp.text).error).toMatch(/not for this resource/);
    expect(atMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const elsewhere = await issuer.token(ALPHA, 'https://other.example/mcp', 'search');
    const atRest = await rest(elsewhere, 'POST', '/search', { query: 'x' });
    expect(atRest.status).toBe(401);
    expect(atRest.body).toMatchObject({ tag: 'INVALID_API_KEY', error: expect.stringMatching(/not for this resource/) }); // prettier-ignore
  });

  it('answers a call needing a scope the token lacks 403 insufficient_scope (MCP) and INSUFFICIENT_SCOPE (REST)', async () => {
    const token = await issuer.token(ALPHA, mcpResource(), 'contents');
    expect((await rpc(token, 'tools/list')).status).toBe(200);
    const res = await rpc(token, 'tools/call', { name: 'search', arguments: { query: 'x' } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="search", resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(JSON.parse(res.text)).toMatchObject({ tag: 'INSUFFICIENT_SCOPE' });
    // a group tool's scope is its action's
    const monitors = await rpc(token, 'tools/call', { name: 'monitors', arguments: { action: 'list' } });
    expect(monitors.status).toBe(403);
    expect(monitors.headers.get('www-authenticate')).toContain('scope="monitors"');

    const restToken = await issuer.token(ALPHA, restResource(), 'contents');
    const searched = await rest(restToken, 'POST', '/search', { query: 'x' });
    expect(searched.status).toBe(403);
    expect(searched.body).toMatchObject({ tag: 'INSUFFICIENT_SCOPE' });
    const listed = await rest(restToken, 'GET', '/monitors');
    expect(listed.status).toBe(403);
    expect(Object.keys(listed.body)).toEqual(['error']); // monitor routes answer {error}
  });

  it('accepts tokens signed with a new key after the issuer rotates (the key set is fetched again)', async () => {
    const before = await issuer.token(ALPHA, mcpResource(), DEFAULT_SCOPE);
    expect((await rpc(before, 'tools/list')).status).toBe(200);
    const kid = await issuer.rotate();
    const after = await issuer.token(ALPHA, mcpResource(), DEFAULT_SCOPE);
    expect(JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString()).kid).toBe(kid);
    offsetMs += 31_000; // past the cooldown between two fetches of the key set
    expect((await rpc(after, 'tools/list')).status).toBe(200);
    expect((await rpc(before, 'tools/list')).status).toBe(200); // the old key is still published
  });

  it("gives a token of team A 404 for team B's monitor and MCP task", async () => {
    const betaRest = await issuer.token(BETA, restResource(), DEFAULT_SCOPE);
    const created = await rest(betaRest, 'POST', '/monitors', { search: { query: 'pooling' }, webhook: { url: 'http://127.0.0.1:9/hook' } }); // prettier-ignore
    expect(created.status).toBe(201);
    const betaMcp = await mcpClient(await issuer.token(BETA, mcpResource(), DEFAULT_SCOPE));
    const { task } = await betaMcp.request(
      { method: 'tools/call', params: { name: 'search', arguments: { query: 'pooling' }, task: {} } },
      CreateTaskResultSchema,
    );

    const alphaRest = await issuer.token(ALPHA, restResource(), DEFAULT_SCOPE);
    expect((await rest(alphaRest, 'GET', `/monitors/${created.body.id}`)).status).toBe(404);
    const alphaMcp = await issuer.token(ALPHA, mcpResource(), DEFAULT_SCOPE);
    const got = await rpc(alphaMcp, 'tasks/get', { taskId: task.taskId });
    expect(got.status).toBe(200);
    expect(got.text).toMatch(/"error"/);
    expect(got.text).not.toMatch(/"status":"(working|completed)"/);
    const viaTool = await rpc(alphaMcp, 'tools/call', { name: 'monitors', arguments: { action: 'get', id: created.body.id } }); // prettier-ignore
    expect(viaTool.text).toMatch(/NOT_FOUND|not found/i);
  });

  it('maps a person by the email domain (TRAWL_AUTH_EMAIL_TEAMS), and refuses 403 one mapped to no team', async () => {
    const carol = await rest(await issuer.token(CAROL, restResource(), 'search'), 'POST', '/search', { query: 'x' });
    expect(carol.status).toBe(200);
    const keys = (await callJson(t.url, t.key, 'GET', '/admin/keys')).body.data as Json[];
    const betaTeam = ((await callJson(t.url, t.key, 'GET', '/admin/teams')).body.data as Json[]).find((team) => team.name === 'beta'); // prettier-ignore
    expect(keys.find((k) => k.name === 'oauth: carol@example.org')).toMatchObject({ teamId: betaTeam!.id });

    const nobodyRest = await rest(await issuer.token(NOBODY, restResource(), 'search'), 'POST', '/search', { query: 'x' }); // prettier-ignore
    expect(nobodyRest.status).toBe(403);
    expect(nobodyRest.body).toMatchObject({ tag: 'IDENTITY_NOT_MAPPED', error: expect.stringMatching(/dave@unknown.test belongs to no Trawl team.*unknown.test/) }); // prettier-ignore
    const nobodyMcp = await rpc(await issuer.token(NOBODY, mcpResource(), 'search'), 'tools/list');
    expect(nobodyMcp.status).toBe(403);
  });

  it("refuses a person's tokens once their key is revoked, and a blocked team's", async () => {
    const token = await issuer.token(CAROL, restResource(), 'search');
    const keys = (await callJson(t.url, t.key, 'GET', '/admin/keys')).body.data as Json[];
    const carolKey = keys.find((k) => k.name === 'oauth: carol@example.org')!;
    expect((await callJson(t.url, t.key, 'DELETE', `/admin/keys/${carolKey.id}`)).status).toBe(200);
    const refused = await rest(token, 'POST', '/search', { query: 'x' });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatch(/carol@example.org .* has been revoked/);

    expect((await callJson(t.url, t.key, 'PATCH', '/admin/teams/beta', { blocked: true })).status).toBe(200);
    const blocked = await rest(await issuer.token(BETA, restResource(), 'search'), 'POST', '/search', { query: 'x' }); // prettier-ignore
    expect(blocked.status).toBe(403);
    expect(blocked.body.tag).toBe('TEAM_BLOCKED');
    expect((await callJson(t.url, t.key, 'PATCH', '/admin/teams/beta', { blocked: false })).status).toBe(200);
  });

  it('keeps API keys working as before, by x-api-key and by Bearer', async () => {
    expect((await callJson(t.url, t.key, 'POST', '/search', { query: 'x' })).status).toBe(200);
    expect((await rpc(t.key, 'tools/list')).status).toBe(200);
    const wrong = await rpc('trawl_000000000000_wrongwrongwrongwrongwrongwrongwrongwrongwro', 'tools/list');
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).error).toMatch(/Invalid API key/);
  });

  it('never writes a token into the logs', async () => {
    const token = await issuer.token(ALPHA, mcpResource(), DEFAULT_SCOPE);
    await rpc(token, 'tools/call', { name: 'search', arguments: { query: 'x' } });
    await rpc(`${token}x`, 'tools/list');
    await rest(token, 'POST', '/search', { query: 'x' });
    const text = logs.text();
    expect(text).toMatch(/"route":"\/mcp"/);
    expect(text).not.toContain(token.split('.')[2]!);
    expect(text).not.toContain(token.split('.')[1]!);
  });
});

describe("tokens of Trawl's own authorization server", () => {
  let sign: (
    claims: Json,
    options?: { kid?: string; typ?: string; expiresIn?: number; sub?: string; aud?: string },
  ) => Promise<string>;
  let keyId: string;
  let apiKey: string;

  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'own-1', alg: 'ES256', use: 'sig' };
    const own = { issuer: `${t.url}/oauth`, jwks: async () => ({ keys: [jwk] }) };
    t.app.auth.useOwnIssuer(own);
    const made = await postJson(t.url, '/admin/keys', { name: 'signed in', team: 'alpha', scopes: ['search', 'contents'] }, { 'x-api-key': t.key }); // prettier-ignore
    keyId = String(made.body.id);
    apiKey = String(made.body.key);
    sign = (claims, options = {}) =>
      new SignJWT({ scope: 'search contents', client_id: 'https://client.example/cimd.json', ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? 'own-1', typ: options.typ ?? 'at+jwt' })
        .setIssuer(own.issuer)
        .setSubject(options.sub ?? keyId)
        .setAudience(options.aud ?? mcpResource())
        .setIssuedAt()
        .setJti(crypto.randomUUID())
        .setExpirationTime(Math.floor(clock.now().getTime() / 1000) + (options.expiresIn ?? 600))
        .sign(privateKey);
  });

  it('lists the own issuer in the metadata beside the external one', async () => {
    const doc = (await (await fetch(`${t.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Json;
    expect(doc.authorization_servers).toEqual([`${t.url}/oauth`, issuer.issuer]);
  });

  it('serves a token as the key it was issued through, with the scopes both hold', async () => {
    const token = await sign({ scope: 'search contents monitors' });
    const ok = await rpc(token, 'tools/call', { name: 'search', arguments: { query: 'x' } });
    expect(ok.status).toBe(200);
    expect(ok.text).not.toMatch(/"isError":true/);
    // the token asks for monitors, the key has none: the scope both hold is what counts
    const monitors = await rpc(token, 'tools/call', { name: 'monitors', arguments: { action: 'list' } });
    expect(monitors.status).toBe(403);
    expect(monitors.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('refuses an expired token, one that is not an access token, and one of an unknown key id', async () => {
    const expired = await sign({}, { expiresIn: -120 }); // past the 30 s of skew allowed
    const res = await rpc(expired, 'tools/list');
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text).error).toMatch(/expired/);
    expect((await rpc(await sign({}, { typ: 'JWT' }), 'tools/list')).status).toBe(401);
    expect((await rpc(await sign({}, { kid: 'unknown' }), 'tools/list')).status).toBe(401);
  });

  it("draws from its key's rate: the key and its token share one bucket", async () => {
    const rated = await t.app.services.keys.create('rated', { scopes: ['search'], qps: 1 }, null);
    const token = await sign({ scope: 'search' }, { sub: rated.id, aud: restResource() });
    // the key alone empties the bucket; the token's first request then finds it empty too
    let status = 200;
    for (let i = 0; i < 10 && status !== 429; i++) {
      status = (await callJson(t.url, rated.key, 'POST', '/search', { query: 'x' })).status;
    }
    expect(status).toBe(429);
    const limited = await rest(token, 'POST', '/search', { query: 'x' });
    expect(limited.status).toBe(429);
    expect(limited.body.tag).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('refuses the tokens of a revoked key at once', async () => {
    const token = await sign({});
    expect((await rpc(token, 'tools/list')).status).toBe(200);
    expect((await callJson(t.url, t.key, 'DELETE', `/admin/keys/${keyId}`)).status).toBe(200);
    const res = await rpc(token, 'tools/list');
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text).error).toMatch(/unknown or revoked/);
    expect((await callJson(t.url, apiKey, 'POST', '/search', { query: 'x' })).status).toBe(401);
  });
});

describe('the keyless loopback mode with an external issuer', () => {
  let k: TestServer;
  beforeAll(async () => {
    k = await startTestServer({ authIssuer: issuer.issuer, mcpKeyless: true });
  });
  afterAll(() => k?.close());

  it('still serves /mcp without a credential, and still checks a token that is sent', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${k.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...MCP_HEADERS, ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    expect((await post({})).status).toBe(200);
    expect((await post({ authorization: 'Bearer not.a.token' })).status).toBe(401);
  });
});
