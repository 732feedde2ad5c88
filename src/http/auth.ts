/** API-key authentication of the HTTP door: `x-api-key: KEY` or `Authorization: Bearer KEY`. */
import { HttpError } from './http-error.js';
import type { Caller } from '../core/context.js';
import type { KeysService } from '../core/accounts/keys.service.js';
import { requireActiveTeam } from '../core/accounts/accounts.service.js';

/** The key a request presents, if any. */
export function presentedKey(headers: Headers): string | undefined {
  const direct = headers.get('x-api-key')?.trim();
  if (direct) return direct;
  const auth = headers.get('authorization');
  const match = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return match?.[1];
}

/**
 * The RFC 6750 challenge of a 401: `Bearer realm="trawl"`, with `error="invalid_token"` when a key was
 * sent. No `resource_metadata`: Trawl runs no OAuth server, so a client should ask for a key, not log in.
 */
export function bearerChallenge(keySent: boolean): string {
  return keySent ? 'Bearer realm="trawl", error="invalid_token"' : 'Bearer realm="trawl"';
}

/**
 * The authenticated caller; throws INVALID_API_KEY (401) for a missing, unknown or revoked key, with a
 * `WWW-Authenticate` challenge when `challenge` is set (the MCP door; REST answers stay as they were),
 * and TEAM_BLOCKED (403) for a key of a blocked team, whatever it asks for.
 */
export async function authenticate(
  headers: Headers,
  keys: KeysService,
  options: { challenge?: boolean } = {},
): Promise<Caller> {
  const key = presentedKey(headers);
  const refuse = (message: string) =>
    new HttpError('INVALID_API_KEY', message, {
      ...(options.challenge ? { headers: { 'www-authenticate': bearerChallenge(key !== undefined) } } : {}),
    });
  if (!key) {
    throw refuse(
      'Missing API key: send "x-api-key: KEY" or "Authorization: Bearer KEY". Create a key with: trawl keys create --name NAME',
    );
  }
  const caller = await keys.verify(key);
  if (!caller) throw refuse('Invalid API key: it is unknown or has been revoked.');
  requireActiveTeam(caller);
  return caller;
}
