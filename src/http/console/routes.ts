/**
 * The web console on the HTTP listener (docs/console.md): the page and its assets under `/console`, and
 * the session routes that sign a person in and out. Everything else the page does, it does through the
 * REST routes themselves (and the console's own under `/console/api/`, src/ops/console.ops.ts), with
 * the session cookie as its key's credential (../auth.ts).
 *
 * - `GET /console`, `/console/assets/<file>`: the built app (./assets.ts), strict CSP.
 * - `GET /console/session`: who is signed in (and the session's CSRF token), or `{signedIn: false}`.
 * - `POST /console/session` `{key}`: an API key exchanged for a session cookie; the key is not kept.
 * - `DELETE /console/session`: sign out.
 * - `GET /console/oauth/start`, `/console/oauth/callback`: sign in through Trawl's own OAuth server
 *   (TRAWL_OAUTH=on), the console being a public client with PKCE (./oauth-sign-in.ts).
 *
 * Served when TRAWL_CONSOLE is `on`, or `auto` on a loopback listener; otherwise every path is a 404.
 */
import type { Context, Hono } from 'hono';
import type { HttpDoor } from '../door.js';
import type { HttpEnv } from '../env.js';
import { requireActiveTeam } from '../../core/accounts/accounts.service.js';
import { sameCsrf } from '../../core/accounts/console-sessions.js';
import { ServiceError } from '../../errors.js';
import { isLoopbackHostname } from '../../lib/loopback.js';
import { readBodyText } from '../body.js';
import { HttpError } from '../http-error.js';
import { CONSOLE_HEADERS, consoleAssets, type ConsoleAssets, type ConsoleFile } from './assets.js';
import { mountConsoleOAuth } from './oauth-sign-in.js';
import { CSRF_HEADER, SESSION_COOKIE, cookieOf, requireSameOrigin, setCookie } from './session-cookie.js';
import { secureCookies, sessionView, signedIn } from './sign-in.js';

/** The sign-in form's body: a key is ~50 characters; anything much larger is refused unread. */
const SIGN_IN_MAX_BYTES = 4096;

/** Whether the console is served on this listener. */
export function consoleEnabled(config: HttpDoor['config']): boolean {
  return config.console === 'on' || (config.console === 'auto' && isLoopbackHostname(config.host));
}

function serveFile(c: Context<HttpEnv>, file: ConsoleFile | undefined, what: string) {
  if (!file) {
    throw new ServiceError('NOT_FOUND', `No console ${what} here.`);
  }
  return c.body(new Uint8Array(file.body), 200, {
    ...CONSOLE_HEADERS,
    'content-type': file.type,
    'cache-control': file.cache,
  });
}

export function mountConsole(hono: Hono<HttpEnv>, app: HttpDoor, assets: ConsoleAssets = consoleAssets()): void {
  if (!consoleEnabled(app.config)) return;
  const noStore = { 'cache-control': 'no-store' };

  const page = (c: Context<HttpEnv>) => {
    const file = assets.page();
    if (!file) {
      throw new ServiceError(
        'SERVICE_UNAVAILABLE',
        `The console is not built (${assets.dir} has no index.html): run "npm run build" in the checkout.`,
      );
    }
    return serveFile(c, file, 'page');
  };
  hono.get('/console', page);
  hono.get('/console/', page);
  hono.get('/console/assets/:name', (c) => serveFile(c, assets.asset(c.req.param('name')), 'asset'));

  hono.get('/console/session', async (c) => {
    c.header('cache-control', 'no-store');
    requireSameOrigin(c.req.raw.headers, app.auth.publicUrl());
    const token = cookieOf(c.req.raw.headers, SESSION_COOKIE);
    const session = token ? await app.consoleSessions.resolve(token) : null;
    if (!session) return c.json({ signedIn: false, oauth: app.config.oauth === 'on' }, 200, noStore);
    requireActiveTeam(session.caller);
    return c.json(sessionView(app, session.caller, session.csrf, session.expiresMs), 200, noStore);
  });

  hono.post('/console/session', async (c) => {
    requireSameOrigin(c.req.raw.headers, app.auth.publicUrl());
    const text = await readBodyText(c, SIGN_IN_MAX_BYTES);
    let key: unknown;
    try {
      key = (JSON.parse(text) as { key?: unknown }).key;
    } catch {
      throw new ServiceError('INVALID_REQUEST_BODY', 'Send JSON: {"key": "trawl_…"}.', { field: 'key' });
    }
    if (typeof key !== 'string' || key.trim() === '') {
      throw new ServiceError('INVALID_REQUEST_BODY', 'key: paste an API key ("trawl_…").', { field: 'key' });
    }
    const caller = await app.keys.verify(key.trim());
    if (!caller) throw new HttpError('INVALID_API_KEY', 'That API key is unknown or has been revoked.');
    requireActiveTeam(caller);
    const opened = await signedIn(c, app, caller);
    return c.json(sessionView(app, caller, opened.csrf, opened.expiresMs), 200, noStore);
  });

  hono.delete('/console/session', async (c) => {
    requireSameOrigin(c.req.raw.headers, app.auth.publicUrl());
    const token = cookieOf(c.req.raw.headers, SESSION_COOKIE);
    const session = token ? await app.consoleSessions.resolve(token) : null;
    if (token && session) {
      if (!sameCsrf(session.csrf, c.req.header(CSRF_HEADER))) {
        throw new HttpError('INVALID_API_KEY', `Signing out needs the session's CSRF token in ${CSRF_HEADER}.`);
      }
      await app.consoleSessions.close(token);
    }
    c.header('set-cookie', setCookie(SESSION_COOKIE, '', { maxAgeS: 0, secure: secureCookies(app) }));
    return c.body(null, 204);
  });

  mountConsoleOAuth(hono, app);
}
