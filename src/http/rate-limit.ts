/**
 * Request rates at the HTTP door, per API key, before a request is parsed: one token of the key's
 * bucket per request (src/core/accounts/rate-limiter.ts, shared by every process on the data
 * directory). Every answer to a limited key says where it stands; a refused one is 429
 * `RATE_LIMIT_EXCEEDED` with `Retry-After`.
 */
import type { Context } from 'hono';
import type { App } from '../app.js';
import type { Caller } from '../core/context.js';
import { ServiceError } from '../errors.js';

/** Takes one request of `caller`'s rate; sets the rate-limit headers, throws 429 when none is left. */
export function enforceRate(c: Context, app: App, caller: Caller): void {
  const decision = app.services.accounts.takeRate(caller);
  if (decision.limit <= 0) return; // no limit for this key
  const headers = {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(Math.max(0, Math.floor(decision.remaining))),
    'x-ratelimit-reset': String(Math.max(0, Math.ceil((decision.resetAtMs - app.clock.now().getTime()) / 1000))),
  };
  if (decision.allowed) {
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    return;
  }
  const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  throw new ServiceError(
    'RATE_LIMIT_EXCEEDED',
    `API key ${caller.keyId} is limited to ${decision.limit} requests per second; retry in ${retryAfter} s`,
    { headers: { ...headers, 'retry-after': String(retryAfter) } },
  );
}
