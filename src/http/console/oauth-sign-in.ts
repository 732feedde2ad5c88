/**
 * Signing in to the console through Trawl's own OAuth authorization server (TRAWL_OAUTH=on): the console
 * is a public client (`trawl-console`, registered by src/http/oauth/provider.ts) using the authorization
 * code flow with PKCE, and this server is its back end, so no token ever reaches the page's script.
 *
 * 1. `GET /console/oauth/start`: a PKCE verifier and a state, kept in a short-lived `HttpOnly` cookie
 *    scoped to `/console/oauth`, and a redirect to `/oauth/auth` asking for every scope (the consent
 *    page grants those the person's key holds, and they choose).
 * 2. The person signs in with a key of their team (or their organisation) and consents.
 * 3. `GET /console/oauth/callback`: the state checked against the cookie, the code exchanged at
 *    `/oauth/token` (this server calling its own listener, with the verifier), the access token verified
 *    like any other (core/accounts/oauth.ts), and a console session opened for its key, narrowed to the
 *    granted scopes. The token itself is dropped: the session is the page's credential.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { request } from 'undici';
import type { HttpDoor } from '../door.js';
import type { HttpEnv } from '../env.js';
import { SCOPES } from '../../core/access/scopes.js';
import { ServiceError } from '../../errors.js';
import { publicBaseOf } from '../oauth/public-url.js';
import { CONSOLE_CLIENT_ID } from '../oauth/console-client.js';
import { cookieOf, setCookie } from './session-cookie.js';
import { secureCookies, signedIn } from './sign-in.js';

const FLOW_COOKIE = 'trawl_console_oauth';
const FLOW_PATH = '/console/oauth';
/** How long a sign-in may take between start and callback. */
const FLOW_S = 600;

const b64url = (bytes: Buffer) => bytes.toString('base64url');

/** The page the browser lands on when the sign-in fails: back to the console's sign-in, with why. */
function failed(c: Context<HttpEnv>, app: HttpDoor, reason: string) {
  c.header('set-cookie', setCookie(FLOW_COOKIE, '', { maxAgeS: 0, secure: secureCookies(app), path: FLOW_PATH }));
  return c.redirect(`/console#/signin?error=${encodeURIComponent(reason)}`, 303);
}

/** The code exchanged for an access token at this server's own token endpoint. */
async function exchange(app: HttpDoor, base: string, code: string, verifier: string): Promise<string> {
  const local = app.auth.localUrl() ?? base;
  const publicUrl = new URL(base);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: `${base}/console/oauth/callback`,
    client_id: CONSOLE_CLIENT_ID,
    code_verifier: verifier,
    resource: `${base}/`,
  });
  const res = await request(`${local}/oauth/token`, {
    method: 'POST',
    // as if through the public URL (the TLS proxy's headers), so the issuer is the one the code was made by
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      host: publicUrl.host,
      'x-forwarded-proto': publicUrl.protocol.replace(':', ''),
      'x-forwarded-host': publicUrl.host,
    },
    body: form.toString(),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const body = (await res.body.json().catch(() => ({}))) as { access_token?: unknown; error_description?: unknown };
  if (res.statusCode !== 200 || typeof body.access_token !== 'string') {
    throw new ServiceError(
      'INVALID_API_KEY',
      `The authorization server refused the sign-in: ${typeof body.error_description === 'string' ? body.error_description : `status ${res.statusCode}`}.`,
    );
  }
  return body.access_token;
}

export function mountConsoleOAuth(hono: Hono<HttpEnv>, app: HttpDoor): void {
  const baseOf = () => {
    const base = app.config.oauth === 'on' ? publicBaseOf(app.config, app.auth) : undefined;
    if (!base) {
      throw new ServiceError(
        'NOT_FOUND',
        app.config.oauth === 'on'
          ? 'Signing in through OAuth needs TRAWL_PUBLIC_URL when Trawl does not listen on loopback.'
          : 'Signing in through OAuth needs TRAWL_OAUTH=on; sign in with an API key instead.',
      );
    }
    return base;
  };

  hono.get('/console/oauth/start', (c) => {
    const base = baseOf();
    const verifier = b64url(randomBytes(32));
    const state = b64url(randomBytes(16));
    const challenge = b64url(createHash('sha256').update(verifier).digest());
    // Lax: the browser comes back by a redirect that may start on another site (an organisation's sign-in)
    c.header(
      'set-cookie',
      setCookie(FLOW_COOKIE, `${state}.${verifier}`, {
        maxAgeS: FLOW_S,
        secure: secureCookies(app),
        sameSite: 'Lax',
        path: FLOW_PATH,
      }),
    );
    const query = new URLSearchParams({
      client_id: CONSOLE_CLIENT_ID,
      response_type: 'code',
      redirect_uri: `${base}/console/oauth/callback`,
      scope: SCOPES.join(' '),
      resource: `${base}/`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    });
    return c.redirect(`${base}/oauth/auth?${query.toString()}`, 303);
  });

  hono.get('/console/oauth/callback', async (c) => {
    const base = baseOf();
    const [state, verifier] = (cookieOf(c.req.raw.headers, FLOW_COOKIE) ?? '').split('.');
    const error = c.req.query('error');
    if (error) return failed(c, app, c.req.query('error_description') ?? error);
    const code = c.req.query('code');
    if (!state || !verifier || c.req.query('state') !== state) {
      return failed(c, app, 'The sign-in expired or was started elsewhere; start again.');
    }
    if (!code) return failed(c, app, 'The authorization server sent no code; start again.');
    let token: string;
    try {
      token = await exchange(app, base, code, verifier);
    } catch (err) {
      return failed(
        c,
        app,
        err instanceof ServiceError ? err.message : 'The authorization server could not be reached.',
      );
    }
    const caller = await app.auth.verifyToken(token, 'rest');
    await signedIn(c, app, caller, caller.scopes ?? null);
    c.header('set-cookie', setCookie(FLOW_COOKIE, '', { maxAgeS: 0, secure: secureCookies(app), path: FLOW_PATH }), {
      append: true,
    });
    return c.redirect('/console#/', 303);
  });
}
