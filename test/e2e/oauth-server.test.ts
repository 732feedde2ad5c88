// Trawl's own OAuth authorization server over plain HTTP (no browser): metadata, registration (DCR on and
// off), sign-in with an API key, consent, the code exchanged with PKCE for a JWT access token verified
// against the server's JWKS, refresh rotation, revocation, and the refusals (wrong redirect, bad PKCE,
// reused code, missing CSRF, unknown resource, sign-in rate limit), with the cookies' attributes.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import {
  actionOf,
  authorize,
  authorizationUrl,
  CookieJar,
  fieldOf,
  follow,
  pkcePair,
  send,
  tokenCall,
} from '../helpers/oauth.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

async function register(base: string, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${base}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test <Client>',
      redirect_uris: [REDIRECT],
      application_type: 'native',
      ...extra,
    }),
  });
  const text = await res.text();
  return { status: res.status, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, string> };
}

describe('the authorization server with registration on', () => {
  let t: TestServer;
  let clientId: string;
  let teamKey: string;
  beforeAll(async () => {
    t = await startTestServer({ oauth: 'on', oauthDcr: true });
    teamKey = (await t.app.services.keys.create('alice', { scopes: ['search', 'contents'] }, null)).key;
    const reg = await register(t.url);
    expect(reg.status).toBe(201);
    clientId = reg.body.client_id!;
  });
  afterAll(() => t.close());

  it('publishes its metadata at the RFC 8414 path and its discovery path', async () => {
    const rfc = (await (await fetch(`${t.url}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<
      string,
      unknown
    >;
    const oidc = await (await fetch(`${t.url}/oauth/.well-known/openid-configuration`)).json();
    expect(rfc).toEqual(oidc);
    expect(rfc).toMatchObject({
      issuer: `${t.url}/oauth`,
      authorization_endpoint: `${t.url}/oauth/auth`,
      token_endpoint: `${t.url}/oauth/token`,
      revocation_endpoint: `${t.url}/oauth/revoke`,
      registration_endpoint: `${t.url}/oauth/reg`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      client_id_metadata_document_supported: true,
    });
    expect(rfc.grant_types_supported).not.toContain('implicit');
    expect(rfc.grant_types_supported).not.toContain('client_credentials');
  });

  it('signs in with a key, asks consent, and issues a JWT for /mcp with the key scopes asked for', async () => {
    const { verifier, challenge } = pkcePair();
    const resource = `${t.url}/mcp`;
    const { redirect, jar, consentScopes } = await authorize({ base: t.url, clientId, redirectUri: REDIRECT, key: teamKey, scope: 'search admin monitors', resource, challenge }); // prettier-ignore
    // the key holds search (asked for), not admin nor monitors
    expect(consentScopes).toEqual(['search']);
    for (const line of jar.seen.filter((l) => /^_interaction|^_session/.test(l))) {
      expect(line.toLowerCase()).toContain('httponly');
      expect(line.toLowerCase()).toContain(line.startsWith('_session') ? 'samesite=strict' : 'samesite=lax');
      expect(line.toLowerCase()).not.toContain('secure'); // loopback: plain http
    }
    const url = new URL(redirect);
    expect(url.searchParams.get('state')).toBe('st-1');
    const code = url.searchParams.get('code')!;
    const token = await tokenCall(t.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId, resource }); // prettier-ignore
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'search' });
    const jwks = createRemoteJWKSet(new URL(`${t.url}/oauth/jwks`));
    const { payload } = await jwtVerify(token.body.access_token, jwks, {
      issuer: `${t.url}/oauth`,
      audience: resource,
    });
    const keyId = /^trawl_([0-9a-f]{12})_/.exec(teamKey)![1];
    expect(payload).toMatchObject({ sub: keyId, scope: 'search', client_id: clientId });
    // the issuer port the resource server verifies with gives the same keys
    const own = t.app.oauth.issuer(t.url);
    expect(own.issuer).toBe(`${t.url}/oauth`);
    expect((await own.jwks()).keys.every((k) => !('d' in k))).toBe(true);

    // refresh rotates: the old refresh token stops working
    const refreshed = await tokenCall(t.url, { grant_type: 'refresh_token', refresh_token: token.body.refresh_token, client_id: clientId }); // prettier-ignore
    expect(refreshed.body).toMatchObject({ token_type: 'Bearer' });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(token.body.refresh_token);
    const replay = await tokenCall(t.url, { grant_type: 'refresh_token', refresh_token: token.body.refresh_token, client_id: clientId }); // prettier-ignore
    expect(replay.body.error).toBe('invalid_grant');

    // the code is single-use, and its replay revokes what it gave (the grant and its refresh tokens)
    const again = await tokenCall(t.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId }); // prettier-ignore
    expect(again.body.error).toBe('invalid_grant');
    const afterReplay = await tokenCall(t.url, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, client_id: clientId }); // prettier-ignore
    expect(afterReplay.body.error).toBe('invalid_grant');

    // a token for a resource this server does not serve is refused
    const { redirect: second } = await authorize({ base: t.url, clientId, redirectUri: REDIRECT, key: teamKey, scope: 'search', resource: 'https://elsewhere.example/mcp', challenge, jar }); // prettier-ignore
    expect(new URL(second).searchParams.get('error')).toBe('invalid_target');
  });

  it('revokes a refresh token at the revocation endpoint, and all of a key’s grants when the key is revoked', async () => {
    const { verifier, challenge } = pkcePair();
    const bob = await t.app.services.keys.create('bob', { scopes: ['search'] }, null);
    const exchange = async () => {
      const { redirect } = await authorize({ base: t.url, clientId, redirectUri: REDIRECT, key: bob.key, scope: 'search', challenge }); // prettier-ignore
      const code = new URL(redirect).searchParams.get('code')!;
      return (await tokenCall(t.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId })).body; // prettier-ignore
    };
    const first = await exchange();
    const revoke = await fetch(`${t.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: first.refresh_token, client_id: clientId }).toString(),
    });
    expect(revoke.status).toBe(200);
    expect((await tokenCall(t.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: clientId })).body.error).toBe('invalid_grant'); // prettier-ignore

    const second = await exchange();
    await t.app.keys.revoke(bob.id, null);
    const refused = await tokenCall(t.url, { grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: clientId }); // prettier-ignore
    expect(refused.body.error).toBe('invalid_grant');
  });

  it('keeps refresh tokens working after the browser session ends (30 days, not the session)', async () => {
    const { verifier, challenge } = pkcePair();
    const { redirect } = await authorize({ base: t.url, clientId, redirectUri: REDIRECT, key: teamKey, scope: 'search', challenge }); // prettier-ignore
    const code = new URL(redirect).searchParams.get('code')!;
    const tokens = (await tokenCall(t.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId })).body; // prettier-ignore
    expect(tokens.refresh_expires_in ?? 30 * 24 * 3600).toBeGreaterThan(24 * 3600);
    t.app.db.prepare("DELETE FROM oauth_state WHERE kind = 'Session'").run();
    const refreshed = await tokenCall(t.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId }); // prettier-ignore
    expect(refreshed.status).toBe(200);
  });

  it('refuses a wrong redirect URI, a bad PKCE verifier, a missing challenge and a form without its CSRF token', async () => {
    const { verifier, challenge } = pkcePair();
    const jar = new CookieJar();
    const wrong = await send(jar, authorizationUrl({ base: t.url, clientId, redirectUri: 'http://127.0.0.1:9/elsewhere', key: teamKey, challenge })); // prettier-ignore
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('redirect_uri');
    // RFC 8252: a native client's loopback redirect may use any port
    const { redirect } = await authorize({ base: t.url, clientId, redirectUri: 'http://127.0.0.1:4567/callback', key: teamKey, scope: 'search', challenge }); // prettier-ignore
    const code = new URL(redirect).searchParams.get('code')!;
    const bad = await tokenCall(t.url, { grant_type: 'authorization_code', code, code_verifier: `${verifier}x`, redirect_uri: 'http://127.0.0.1:4567/callback', client_id: clientId }); // prettier-ignore
    expect(bad.body.error).toBe('invalid_grant');
    const noPkce = new URL(authorizationUrl({ base: t.url, clientId, redirectUri: REDIRECT, key: teamKey, challenge }));
    noPkce.searchParams.delete('code_challenge');
    noPkce.searchParams.delete('code_challenge_method');
    const step = await follow(jar, t.url, noPkce.href, REDIRECT);
    expect(new URL(step.url).searchParams.get('error')).toBe('invalid_request');
    // a sign-in form posted without its CSRF token
    const page = await follow(jar, t.url, authorizationUrl({ base: t.url, clientId, redirectUri: REDIRECT, key: teamKey, challenge }), REDIRECT); // prettier-ignore
    const html = await page.res.text();
    expect(page.res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(fieldOf(html, 'csrf')).toBeTruthy();
    const uid = /interaction\/([^/"]+)\/login/.exec(html)![1];
    const forged = await send(jar, `${t.url}/oauth/interaction/${uid}/login`, { csrf: 'forged', key: teamKey }, t.url);
    expect(forged.status).toBe(403);
    const bare = await send(jar, `${t.url}/oauth/interaction/${uid}/login`, { key: teamKey }, t.url);
    expect(bare.status).toBe(403);
    // a page elsewhere cannot post to it
    const foreign = await send(jar, `${t.url}/oauth/interaction/${uid}/login`, { csrf: fieldOf(html, 'csrf')!, key: teamKey }, 'https://evil.example'); // prettier-ignore
    expect(foreign.status).toBe(403);
  });

  it('answers a browser-based client of an allowed origin with CORS, and refuses another origin', async () => {
    const call = (origin: string) =>
      fetch(`${t.url}/oauth/token`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: 'unknown',
          client_id: clientId,
        }).toString(),
      });
    const local = await call('http://127.0.0.1:5173');
    expect(local.status).toBe(400);
    expect(local.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
    const evil = await call('https://evil.example');
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('fetches a client metadata document only through the SSRF guard: a loopback client id is refused', async () => {
    const { challenge } = pkcePair();
    const jar = new CookieJar();
    const clientId = 'https://127.0.0.1:9/clients/me.json';
    const res = await send(
      jar,
      authorizationUrl({ base: t.url, clientId, redirectUri: REDIRECT, key: teamKey, challenge }),
    );
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('client_id metadata document fetch failed');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('refuses a consent without its CSRF token, and sends the client access_denied when the person denies', async () => {
    const { challenge } = pkcePair();
    const jar = new CookieJar();
    const first = await follow(jar, t.url, authorizationUrl({ base: t.url, clientId, redirectUri: REDIRECT, key: '', scope: 'search', challenge }), REDIRECT); // prettier-ignore
    const login = await first.res.text();
    const signed = await send(jar, new URL(actionOf(login, 'login')!, t.url).href, { csrf: fieldOf(login, 'csrf')!, key: teamKey }, t.url); // prettier-ignore
    const consentStep = await follow(jar, t.url, new URL(signed.headers.get('location')!, t.url).href, REDIRECT);
    const consent = await consentStep.res.text();
    const action = new URL(actionOf(consent, 'consent')!, t.url).href;
    expect((await send(jar, action, { csrf: 'forged', decision: 'allow' }, t.url)).status).toBe(403);
    const denied = await send(jar, action, { csrf: fieldOf(consent, 'csrf')!, decision: 'deny' }, t.url);
    const back = await follow(jar, t.url, new URL(denied.headers.get('location')!, t.url).href, REDIRECT);
    expect(new URL(back.url).searchParams.get('error')).toBe('access_denied');
  });

  it('refuses to sign in with a key of a blocked team', async () => {
    const team = await t.app.services.accounts.teams.create('frozen', {}, null);
    const frozen = await t.app.services.keys.create('frank', { teamId: team.id, scopes: ['search'] }, null);
    await t.app.services.accounts.teams.block(team.id, null);
    const { challenge } = pkcePair();
    const jar = new CookieJar();
    const page = await follow(jar, t.url, authorizationUrl({ base: t.url, clientId, redirectUri: REDIRECT, key: '', challenge }), REDIRECT); // prettier-ignore
    const html = await page.res.text();
    const uid = /interaction\/([^/"]+)\/login/.exec(html)![1];
    const res = await send(jar, `${t.url}/oauth/interaction/${uid}/login`, { csrf: fieldOf(html, 'csrf')!, key: frozen.key }, t.url); // prettier-ignore
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('is blocked');
  });

  /** A new client's sign-in page on `base`: its cookies, the form's CSRF token and the interaction's id. */
  async function signInPage(base: string) {
    const client = (await register(base)).body.client_id!;
    const { challenge } = pkcePair();
    const jar = new CookieJar();
    const page = await follow(jar, base, authorizationUrl({ base, clientId: client, redirectUri: REDIRECT, key: '', challenge }), REDIRECT); // prettier-ignore
    const html = await page.res.text();
    return { jar, csrf: fieldOf(html, 'csrf')!, uid: /interaction\/([^/"]+)\/login/.exec(html)![1] };
  }

  it('limits sign-in attempts per key prefix and answers 429 with Retry-After', async () => {
    // a server of its own, so no attempt of the other tests counts
    const fresh = await startTestServer({ oauth: 'on', oauthDcr: true });
    try {
      const { jar, csrf, uid } = await signInPage(fresh.url);
      const wrongKey = `trawl_0123456789ab_${'x'.repeat(43)}`;
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await send(jar, `${fresh.url}/oauth/interaction/${uid}/login`, { csrf, key: wrongKey }, fresh.url);
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    } finally {
      await fresh.close();
    }
  });

  it('limits sign-in attempts per client address, whatever the keys tried', async () => {
    // a server of its own, so no attempt of the other tests counts
    const fresh = await startTestServer({ oauth: 'on', oauthDcr: true });
    try {
      const { jar, csrf, uid } = await signInPage(fresh.url);
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const key = `trawl_${String(i).padStart(12, 'a')}_${'y'.repeat(43)}`; // a new key prefix each time
        statuses.push(
          (await send(jar, `${fresh.url}/oauth/interaction/${uid}/login`, { csrf, key }, fresh.url)).status,
        );
      }
      expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    } finally {
      await fresh.close();
    }
  });
});

describe('the authorization server behind a TLS proxy', () => {
  it('sets Secure cookies for an https public URL, and refuses a request that did not come through the proxy', async () => {
    const t = await startTestServer({ oauth: 'on', oauthDcr: true, publicUrl: 'https://trawl.example.com' });
    try {
      const https = { 'x-forwarded-proto': 'https' };
      const meta = (await (await fetch(`${t.url}/.well-known/oauth-authorization-server/oauth`, { headers: https })).json()) as Record<string, unknown>; // prettier-ignore
      expect(meta.issuer).toBe('https://trawl.example.com/oauth');
      const reg = await fetch(`${t.url}/oauth/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...https },
        body: JSON.stringify({ redirect_uris: [REDIRECT], application_type: 'native' }),
      });
      const clientId = ((await reg.json()) as { client_id: string }).client_id;
      const url = authorizationUrl({ base: t.url, clientId, redirectUri: REDIRECT, key: '', challenge: pkcePair().challenge, resource: 'https://trawl.example.com/mcp' }); // prettier-ignore
      const res = await fetch(url, { redirect: 'manual', headers: https });
      expect(res.status).toBe(303);
      const cookies = res.headers.getSetCookie();
      expect(cookies.length).toBeGreaterThan(0);
      for (const line of cookies) expect(line).toMatch(/; secure; httponly$/);
      const plain = await fetch(url, { redirect: 'manual' });
      expect(plain.status).toBe(400);
      expect(((await plain.json()) as { error: string }).error).toContain('X-Forwarded-Proto');
    } finally {
      await t.close();
    }
  });
});

describe('the authorization server with registration off', () => {
  it('refuses registration, and answers 404 on every path when TRAWL_OAUTH is off', async () => {
    const on = await startTestServer({ oauth: 'on' });
    try {
      expect((await register(on.url)).status).toBeGreaterThanOrEqual(400);
      const meta = (await (await fetch(`${on.url}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<
        string,
        unknown
      >;
      expect(meta.registration_endpoint).toBeUndefined();
    } finally {
      await on.close();
    }
    const off = await startTestServer();
    try {
      expect((await fetch(`${off.url}/oauth/auth`)).status).toBe(404);
      expect((await fetch(`${off.url}/.well-known/oauth-authorization-server/oauth`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
