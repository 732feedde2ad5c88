/**
 * The console's sign-in (src/http/console/, docs/console.md#signing-in), over the real HTTP door on
 * SQLite and PostgreSQL: an API key exchanged for an HttpOnly, SameSite=Strict cookie; the cookie honoured
 * on the REST routes only with the session's CSRF token and from the server's own origin; the session
 * acting as its key (scopes, team, tenancy); and its end: sign-out, a revoked key, a blocked team.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, teamWithKey as makeTeamWithKey } from '../helpers/app.js';
import { BACKENDS, startServerOn } from '../helpers/backend-server.js';
import type { TestServer } from '../helpers/app.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Session {
  cookie: string;
  csrf: string;
  body: Json;
  setCookie: string;
}

describe.each(BACKENDS)('console sessions on %s', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServerOn(backend, { allowInsecureWebhooks: true });
  });
  afterAll(async () => {
    await t.close();
  });

  const origin = () => new URL(t.url).origin;

  async function signIn(key: string): Promise<Session> {
    const res = await fetch(`${t.url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: origin(), 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ key }),
    });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const setCookie = res.headers.get('set-cookie') ?? '';
    const cookie = setCookie.split(';')[0]!;
    return { cookie, csrf: String(body.csrf), body, setCookie };
  }

  /** A request as the console's page makes it: the cookie, the CSRF header, its own origin. */
  function asPage(
    s: Session,
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    return fetch(`${t.url}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        cookie: s.cookie,
        'x-trawl-csrf': s.csrf,
        origin: origin(),
        'sec-fetch-site': 'same-origin',
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
  }

  const teamWithKey = (name: string, scopes: string[]) => makeTeamWithKey(t.url, t.key, name, scopes);

  it('exchanges a key for an HttpOnly, SameSite=Strict cookie that never holds the key', async () => {
    const s = await signIn(t.key);
    expect(s.setCookie).toMatch(
      /^trawl_session=tcs_[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
    );
    expect(s.setCookie).not.toContain(t.key);
    expect(s.body).toMatchObject({ signedIn: true, key: { name: 'test' }, team: { name: 'default' } });
    expect(s.body.key.scopes).toContain('admin');
    expect(JSON.stringify(s.body)).not.toContain(t.key);
    const again = await asPage(s, '/console/session');
    expect(await again.json()).toMatchObject({ signedIn: true, csrf: s.csrf });
    expect((await fetch(`${t.url}/console/session`)).status).toBe(200);
    expect(await (await fetch(`${t.url}/console/session`)).json()).toMatchObject({ signedIn: false });
  });

  it('refuses a bad key or body with the tag and the field', async () => {
    const bad = await postJson(t.url, '/console/session', { key: 'trawl_nope' }, { origin: origin() });
    expect(bad.status).toBe(401);
    expect(bad.body.tag).toBe('INVALID_API_KEY');
    const empty = await postJson(t.url, '/console/session', { key: '' }, { origin: origin() });
    expect(empty.status).toBe(400);
    expect(String(empty.body.error)).toContain('key');
    const notJson = await fetch(`${t.url}/console/session`, {
      method: 'POST',
      body: 'key=x',
      headers: { origin: origin() },
    });
    expect(notJson.status).toBe(400);
    const big = await postJson(t.url, '/console/session', { key: 'x'.repeat(10_000) }, { origin: origin() });
    expect(big.status).toBe(413);
  });

  it('honours the cookie on REST routes only with the CSRF token, from its own origin', async () => {
    const s = await signIn(t.key);
    expect((await asPage(s, '/status')).status).toBe(200);
    const noCsrf = await fetch(`${t.url}/status`, { headers: { cookie: s.cookie } });
    expect(noCsrf.status).toBe(401);
    expect(((await noCsrf.json()) as Json).error).toContain('x-trawl-csrf');
    expect((await asPage(s, '/status', { headers: { 'x-trawl-csrf': 'forged' } })).status).toBe(401);
    const elsewhere = await asPage(s, '/status', { headers: { origin: 'https://evil.example' } });
    expect(elsewhere.status).toBe(403);
    expect(((await elsewhere.json()) as Json).tag).toBe('FORBIDDEN_ORIGIN');
    const crossSite = await asPage(s, '/monitors', {
      method: 'POST',
      body: {},
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    // a cookie is no credential for /mcp (a key or token only)
    const mcp = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        cookie: s.cookie,
        'x-trawl-csrf': s.csrf,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
  });

  it("acts as its key: its scopes, and nothing of another team's", async () => {
    const keyA = await teamWithKey(`${backend}-console-a`, ['monitors']);
    const keyB = await teamWithKey(`${backend}-console-b`, ['monitors', 'search']);
    const a = await signIn(keyA);
    const b = await signIn(keyB);
    expect(a.body.key.scopes).toEqual(['monitors']);
    const made = await asPage(a, '/monitors', {
      method: 'POST',
      body: { search: { query: 'console tenancy' }, webhook: { url: 'http://127.0.0.1:9/hook' } },
    });
    expect(made.status).toBe(201);
    const id = String(((await made.json()) as Json).id);
    expect((await asPage(b, `/monitors/${id}`)).status).toBe(404);
    expect(JSON.stringify(await (await asPage(b, '/monitors')).json())).not.toContain(id);
    expect((await asPage(a, `/monitors/${id}`)).status).toBe(200);
    const admin = await asPage(a, '/status');
    expect(admin.status).toBe(403);
    expect(((await admin.json()) as Json).tag).toBe('INSUFFICIENT_SCOPE');
    expect((await asPage(a, '/admin/keys')).status).toBe(403);
  });

  it('ends on sign-out, when its key is revoked, and when its team is blocked', async () => {
    const out = await signIn(t.key);
    const signOut = await asPage(out, '/console/session', { method: 'DELETE' });
    expect(signOut.status).toBe(204);
    expect(signOut.headers.get('set-cookie')).toMatch(
      /^trawl_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/,
    );
    expect((await asPage(out, '/status')).status).toBe(401);

    const keyR = await teamWithKey(`${backend}-console-r`, ['search']);
    const revoked = await signIn(keyR);
    expect((await asPage(revoked, '/console/session')).status).toBe(200);
    const keys = (await (await fetch(`${t.url}/admin/keys`, { headers: { 'x-api-key': t.key } })).json()) as Json;
    const id = (keys.data as Json[]).find((k) => k.name === `${backend}-console-r key`)!.id;
    expect(
      (await fetch(`${t.url}/admin/keys/${id}`, { method: 'DELETE', headers: { 'x-api-key': t.key } })).status,
    ).toBe(200);
    expect((await asPage(revoked, '/search', { method: 'POST', body: { query: 'x' } })).status).toBe(401);
    expect(await (await asPage(revoked, '/console/session')).json()).toMatchObject({ signedIn: false });

    const keyX = await teamWithKey(`${backend}-console-x`, ['search']);
    const blocked = await signIn(keyX);
    const block = await fetch(`${t.url}/admin/teams/${backend}-console-x`, {
      method: 'PATCH',
      headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
      body: JSON.stringify({ blocked: true }),
    });
    expect(block.status).toBe(200);
    expect((await asPage(blocked, '/search', { method: 'POST', body: { query: 'x' } })).status).toBe(401);
    const retry = await postJson(t.url, '/console/session', { key: keyX }, { origin: origin() });
    expect(retry.status).toBe(403);
    expect(retry.body.tag).toBe('TEAM_BLOCKED');
  });
});
