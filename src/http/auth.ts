/**
 * Authentication of the HTTP door: an API key (`x-api-key: KEY`, or `Authorization: Bearer KEY` for a
 * `trawl_…` key), or, with OAuth on, an access token (`Authorization: Bearer TOKEN`) of a trusted issuer
 * for this resource (core/accounts/oauth.ts), or, from the web console's own pages, its session cookie
 * with the session's CSRF token (./console/session-cookie.ts). Whichever, the caller is the key's:
 * metered, limited and owned as the key.
 */
import { HttpError } from './http-error.js';
import type { Caller } from '../core/context.js';
import type { DoorAuth, OAuthResource } from '../compose/door.js';
import type { KeysService } from '../core/accounts/keys.service.js';
import { requireActiveTeam } from '../core/accounts/accounts.service.js';
import { ServiceError } from '../errors.js';
import { unauthorizedChallenge } from './oauth/challenge.js';
import type { ConsoleSessions } from '../core/accounts/console-sessions.js';
import { sameCsrf } from '../core/accounts/console-sessions.js';
import { CSRF_HEADER, SESSION_COOKIE, cookieOf, requireSameOrigin } from './console/session-cookie.js';

/** What a Trawl API key looks like; any other Bearer value is taken for an access token when OAuth is on. */
const KEY_SHAPE = /^trawl_/;

/** The credential a request presents, if any: `x-api-key` (a key), else the Bearer value. */
export function presentedKey(headers: Headers): string | undefined {
  const direct = headers.get('x-api-key')?.trim();
  if (direct) return direct;
  const auth = headers.get('authorization');
  const match = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return match?.[1];
}

/** Whether the request's credential is an access token: a Bearer value that is not a Trawl key, with OAuth on. */
export function presentsToken(headers: Headers, auth: DoorAuth | undefined): boolean {
  if (!auth?.enabled() || headers.get('x-api-key')?.trim()) return false;
  const value = presentedKey(headers);
  return value !== undefined && !KEY_SHAPE.test(value);
}

/** What `authenticate` needs of the door. */
export interface Authenticator {
  keys: KeysService;
  auth?: DoorAuth;
  /** The console's sessions: a request without a key may present one's cookie (REST routes only). */
  consoleSessions?: ConsoleSessions;
}

/**
 * The authenticated caller; throws INVALID_API_KEY (401) for a missing, unknown or revoked key or a
 * refused token, with a `WWW-Authenticate` challenge when `challenge` is set (the MCP door) or OAuth is
 * on (then it names the resource's metadata), TEAM_BLOCKED (403) for a key of a blocked team, whatever
 * it asks for, and IDENTITY_NOT_MAPPED (403) for a person the identity rule maps to no team.
 */
export async function authenticate(
  headers: Headers,
  door: Authenticator,
  options: { challenge?: boolean; resource?: OAuthResource } = {},
): Promise<Caller> {
  const key = presentedKey(headers);
  const kind = options.resource ?? 'rest';
  const challenged = options.challenge || door.auth?.enabled();
  const refuse = (message: string) =>
    new HttpError('INVALID_API_KEY', message, {
      ...(challenged
        ? { headers: { 'www-authenticate': unauthorizedChallenge(door.auth, kind, key !== undefined) } }
        : {}),
    });
  if (!key && door.consoleSessions && kind === 'rest' && !options.challenge) {
    const caller = await sessionCaller(headers, door.consoleSessions, door.auth, refuse);
    if (caller) {
      requireActiveTeam(caller);
      return caller;
    }
  }
  if (!key) {
    const token = door.auth?.enabled()
      ? ', or sign in with OAuth (an access token as "Authorization: Bearer TOKEN")'
      : '';
    throw refuse(
      `Missing API key: send "x-api-key: KEY" or "Authorization: Bearer KEY"${token}. Create a key with: trawl keys create --name NAME`,
    );
  }
  const caller = presentsToken(headers, door.auth)
    ? await tokenCaller(key, door.auth!, kind, refuse)
    : await door.keys.verify(key);
  if (!caller) throw refuse('Invalid API key: it is unknown or has been revoked.');
  requireActiveTeam(caller);
  return caller;
}

/**
 * The caller of the console session whose cookie the request carries (undefined without the cookie):
 * refused unless the request echoes the session's CSRF token and comes from this server's own pages.
 */
async function sessionCaller(
  headers: Headers,
  sessions: ConsoleSessions,
  auth: DoorAuth | undefined,
  refuse: (message: string) => HttpError,
): Promise<Caller | undefined> {
  const token = cookieOf(headers, SESSION_COOKIE);
  if (!token) return undefined;
  requireSameOrigin(headers, auth?.publicUrl());
  const session = await sessions.resolve(token);
  if (!session)
    throw refuse('Your console session has ended (signed out, expired, or its key was revoked); sign in again.');
  if (!sameCsrf(session.csrf, headers.get(CSRF_HEADER))) {
    throw refuse(`A console session's request must carry its CSRF token in the ${CSRF_HEADER} header.`);
  }
  return session.caller;
}

/** The caller of an access token; its refusal (INVALID_API_KEY) carries the door's challenge. */
async function tokenCaller(
  token: string,
  auth: DoorAuth,
  kind: OAuthResource,
  refuse: (message: string) => HttpError,
): Promise<Caller> {
  try {
    return await auth.verifyToken(token, kind);
  } catch (err) {
    if (err instanceof ServiceError && err.tag === 'INVALID_API_KEY') throw refuse(err.message);
    throw err;
  }
}
