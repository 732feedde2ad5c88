/**
 * Signing in to the console through Trawl's own authorization server (src/http/console/oauth-sign-in.ts):
 * the console as the public client `trawl-console` with PKCE, its back end exchanging the code, and a
 * session holding only the scopes the person's key has and granted. The same walk in Chromium is in
 * test/browser/console.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { CookieJar, send, walkSignIn } from '../helpers/oauth.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ oauth: 'on' });
});
afterAll(async () => {
  await t.close();
});

/** The session the jar's cookie is, as the console's page asks for it. */
async function sessionOf(jar: CookieJar): Promise<Json> {
  const res = await fetch(`${t.url}/console/session`, { headers: { cookie: jar.header() } });
  return (await res.json()) as Json;
}

describe('console sign-in through OAuth', () => {
  it('says the page may offer it', async () => {
    expect(await sessionOf(new CookieJar())).toEqual({ signedIn: false, oauth: true });
  });

  it('signs in with a key on the sign-in page and lands on the console with a session of the granted scopes', async () => {
    const made = await postJson(t.url, '/admin/keys', { name: 'oauth console', scopes: ['search', 'monitors'] }, { 'x-api-key': t.key }); // prettier-ignore
    const jar = new CookieJar();
    const start = await send(jar, `${t.url}/console/oauth/start`);
    expect(start.status).toBe(303);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.pathname).toBe('/oauth/auth');
    expect(authorize.searchParams.get('client_id')).toBe('trawl-console');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(jar.seen.join('\n')).toMatch(
      /trawl_console_oauth=[^;]+; Path=\/console\/oauth; Max-Age=600; HttpOnly; SameSite=Lax/,
    );

    const walked = await walkSignIn(
      jar,
      t.url,
      authorize.href,
      `${t.url}/console/oauth/callback`,
      String(made.body.key),
    );
    expect(walked.consentScopes).toEqual(expect.arrayContaining(['search', 'monitors']));
    expect(walked.consentScopes).not.toContain('admin');
    const back = await send(jar, walked.redirect);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe('/console#/');
    expect(jar.cookies.get('trawl_session')).toMatch(/^tcs_/);
    expect(jar.cookies.has('trawl_console_oauth')).toBe(false);
    const session = await sessionOf(jar);
    expect(session).toMatchObject({ signedIn: true, key: { name: 'oauth console' } });
    expect([...session.key.scopes].sort()).toEqual(['monitors', 'search']);
    // the session works on the REST routes as that key, with the page's CSRF token
    const listed = await fetch(`${t.url}/monitors`, {
      headers: { cookie: jar.header(), 'x-trawl-csrf': session.csrf, 'sec-fetch-site': 'same-origin' },
    });
    expect(listed.status).toBe(200);
  });

  it('refuses a callback whose state is not the one it started, or that comes without its cookie', async () => {
    const jar = new CookieJar();
    await send(jar, `${t.url}/console/oauth/start`);
    const forged = await send(jar, `${t.url}/console/oauth/callback?code=abc&state=forged`);
    expect(forged.status).toBe(303);
    expect(forged.headers.get('location')).toMatch(/^\/console#\/signin\?error=/);
    const bare = await send(new CookieJar(), `${t.url}/console/oauth/callback?code=abc&state=x`);
    expect(bare.headers.get('location')).toMatch(/^\/console#\/signin\?error=/);
    expect(jar.cookies.has('trawl_session')).toBe(false);
    const refused = await send(jar, `${t.url}/console/oauth/callback?error=access_denied&error_description=no`);
    expect(decodeURIComponent(refused.headers.get('location')!)).toContain('no');
  });

  it('is a 404 that says why where OAuth is off', async () => {
    const plain = await startTestServer();
    try {
      const res = await fetch(`${plain.url}/console/oauth/start`, { redirect: 'manual' });
      expect(res.status).toBe(404);
      expect(((await res.json()) as Json).error).toContain('TRAWL_OAUTH=on');
    } finally {
      await plain.close();
    }
  });
});
