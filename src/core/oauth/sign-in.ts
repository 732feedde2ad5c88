/**
 * Signing in on the authorization server's page with an API key: the key is verified by the keys
 * service (never stored by the server beyond its hash, never by the client), and attempts are limited
 * per client address and per key prefix (the `trawl_<id>` part, or the first characters of what was
 * pasted) in the store's token buckets, so every replica counts the same attempts.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RateBucketsRepo } from '../../store/contracts/rate-buckets.js';
import { verifiedKey, type KeysService } from '../accounts/keys.service.js';
import type { Caller } from '../context.js';

/** Attempts per address, and per key prefix, within a window of five minutes. */
export const SIGN_IN_LIMITS = { perAddress: 10, perKeyPrefix: 5, windowSeconds: 300 } as const;

export type SignInOutcome =
  | { ok: true; caller: Caller }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'blocked'; team: string }
  | { ok: false; reason: 'limited'; retryAfterSeconds: number };

/** The part of a pasted key that names it (never its secret): `trawl_<id>`, else its first 12 characters. */
export function keyPrefixOf(presented: string): string {
  const match = /^(trawl_[0-9a-f]{12})_/.exec(presented.trim());
  return match ? match[1]! : presented.trim().slice(0, 12);
}

export interface SignIn {
  attempt(presented: string, address: string): Promise<SignInOutcome>;
}

export function createSignIn(deps: { keys: KeysService; buckets: RateBucketsRepo; now: () => number }): SignIn {
  const { perAddress, perKeyPrefix, windowSeconds } = SIGN_IN_LIMITS;
  const take = (bucket: string, capacity: number) =>
    deps.buckets.take({ keyId: bucket, nowMs: deps.now(), capacity, ratePerSec: capacity / windowSeconds });
  return {
    async attempt(presented, address) {
      // both buckets are charged, so a flood from one address cannot spare a key's budget or the reverse
      const byAddress = await take(`oauth-sign-in:address:${address}`, perAddress);
      const byKey = await take(`oauth-sign-in:key:${keyPrefixOf(presented)}`, perKeyPrefix);
      if (!byAddress || !byKey) {
        const rate = byAddress ? perKeyPrefix / windowSeconds : perAddress / windowSeconds;
        return { ok: false, reason: 'limited', retryAfterSeconds: Math.ceil(1 / rate) };
      }
      const caller = await deps.keys.verify(presented.trim());
      if (!caller) return { ok: false, reason: 'invalid' };
      const row = verifiedKey(caller);
      if (row?.team_blocked_at) return { ok: false, reason: 'blocked', team: row.team_name };
      return { ok: true, caller };
    },
  };
}

/** CSRF tokens of the sign-in and consent forms: an HMAC of the interaction's uid under the server's key. */
export function createCsrf(key: string): { token(uid: string): string; check(uid: string, token: unknown): boolean } {
  const token = (uid: string) => createHmac('sha256', key).update(`csrf:${uid}`).digest('base64url');
  return {
    token,
    check(uid, presented) {
      if (typeof presented !== 'string') return false;
      const expected = Buffer.from(token(uid));
      const given = Buffer.from(presented);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
