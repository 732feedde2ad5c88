/**
 * Error rendering of the REST door: the standard envelope `{requestId, error, tag}`, or `{error}` on
 * monitor routes; the status comes from the one tag table in src/errors.ts.
 */
import type { Context } from 'hono';
import { ServiceError, toServiceError } from '../errors.js';
import type { Logger } from '../lib/logger.js';

export type ErrorBody = 'envelope' | 'simple';

/** Monitor routes answer `{error}`; everything else the standard envelope. */
export function errorBodyFor(path: string): ErrorBody {
  return path === '/monitors' || path.startsWith('/monitors/') ? 'simple' : 'envelope';
}

export function errorResponse(
  c: Context,
  thrown: unknown,
  requestId: string,
  style: ErrorBody,
  logger: Logger,
): Response {
  const err = toServiceError(thrown);
  if (err.tag === 'INTERNAL_ERROR' && !(thrown instanceof ServiceError)) {
    logger.error({ requestId, err: thrown }, 'unexpected error');
  }
  for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
  const body =
    style === 'simple' ? { error: err.message } : { requestId, error: err.message, tag: err.tag, ...err.body };
  return c.json(body, err.status as 400);
}
