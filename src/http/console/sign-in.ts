/**
 * A console session opened for a caller who proved their key (pasted, or through OAuth): the cookie
 * set on the answer, and what the page is told about who is signed in.
 */
import type { Context } from 'hono';
import type { HttpDoor } from '../door.js';
import type { HttpEnv } from '../env.js';
import type { Caller } from '../../core/context.js';
import { effectiveScopes } from '../../core/access/scopes.js';
import { verifiedKey } from '../../core/accounts/keys.service.js';
import { SESSION_COOKIE, setCookie } from './session-cookie.js';

/** Whether the session cookie gets `Secure`: the server is reached over https. */
export const secureCookies = (app: HttpDoor) => app.auth.publicUrl().startsWith('https:');

/** What the page is told about the signed-in person. */
export function sessionView(app: HttpDoor, caller: Caller, csrf: string, expiresMs: number) {
  const row = verifiedKey(caller);
  return {
    signedIn: true as const,
    oauth: app.config.oauth === 'on',
    key: { id: caller.keyId, name: caller.keyName, scopes: [...effectiveScopes(caller.scopes)] },
    team: { id: caller.teamId, name: row?.team_name ?? caller.teamId },
    csrf,
    expiresAt: new Date(expiresMs).toISOString(),
  };
}

/** Opens a session for `caller` and answers with it and its cookie. */
export async function signedIn(
  c: Context<HttpEnv>,
  app: HttpDoor,
  caller: Caller,
  grantScopes: readonly string[] | null = null,
) {
  const opened = await app.consoleSessions.open(caller, grantScopes);
  const maxAgeS = (opened.expiresMs - app.clock.now().getTime()) / 1000;
  c.header('set-cookie', setCookie(SESSION_COOKIE, opened.token, { maxAgeS, secure: secureCookies(app) }));
  return opened;
}
