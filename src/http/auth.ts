/** API-key authentication of the HTTP door: `x-api-key: KEY` or `Authorization: Bearer KEY`. */
import { ServiceError } from '../errors.js';
import type { Caller } from '../core/context.js';
import type { KeysService } from '../core/accounts/keys.service.js';

/** The key a request presents, if any. */
export function presentedKey(headers: Headers): string | undefined {
  const direct = headers.get('x-api-key')?.trim();
  if (direct) return direct;
  const auth = headers.get('authorization');
  const match = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return match?.[1];
}

/** The authenticated caller; throws INVALID_API_KEY (401) for a missing, unknown or revoked key. */
export function authenticate(headers: Headers, keys: KeysService): Caller {
  const key = presentedKey(headers);
  if (!key) {
    throw new ServiceError(
      'INVALID_API_KEY',
      'Missing API key: send "x-api-key: KEY" or "Authorization: Bearer KEY". Create a key with: trawl keys create --name NAME',
    );
  }
  const caller = keys.verify(key);
  if (!caller) throw new ServiceError('INVALID_API_KEY', 'Invalid API key: it is unknown or has been revoked.');
  return caller;
}
