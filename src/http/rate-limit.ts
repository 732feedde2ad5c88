/**
 * Request limits at the HTTP door, per API key, before a request is parsed: its rate, when the key or
 * the operator sets one (src/core/accounts/rate-limiter.ts, shared by every process on the data
 * directory), and its requests in flight (src/core/accounts/in-flight.ts, per process). A rated key's
 * answers say where it stands; a refused request is 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { HttpDoor } from './door.js';
import type { Caller } from '../core/context.js';
import { HttpError } from './http-error.js';
import type { HttpEnv } from './env.js';

/**
 * Admits one request of `caller`: sets the rate-limit headers, throws 429 when refused, and leaves the
 * slot's release in the context for `releaseRequests` to call when the request ends.
 */
export async function enforceRate(c: Context<HttpEnv>, app: HttpDoor, caller: Caller): Promise<void> {
  const entry = await app.accounts.enterRequest(caller);
  const { rate } = entry;
  const headers: Record<string, string> =
    rate.limit > 0
      ? {
          'x-ratelimit-limit': String(rate.limit),
          'x-ratelimit-remaining': String(Math.max(0, Math.floor(rate.remaining))),
          'x-ratelimit-reset': String(Math.max(0, Math.ceil((rate.resetAtMs - app.clock.now().getTime()) / 1000))),
        }
      : {};
  if (entry.allowed) {
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    c.set('releaseRequest', entry.release);
    return;
  }
  const retryAfter = Math.max(1, Math.ceil(entry.retryAfterMs / 1000));
  throw new HttpError('RATE_LIMIT_EXCEEDED', `${entry.message}; retry in ${retryAfter} s`, {
    headers: { ...headers, 'retry-after': String(retryAfter) },
  });
}

/** Middleware: gives back the request's in-flight slot once its answer is made (errors included). */
export const releaseRequests: MiddlewareHandler<HttpEnv> = async (c, next) => {
  try {
    await next();
  } finally {
    c.get('releaseRequest')?.();
  }
};
