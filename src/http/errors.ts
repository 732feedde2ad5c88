/**
 * Error rendering of the REST door: the standard envelope `{requestId, error, tag}`, or `{error}` on
 * monitor routes; the status comes from the one tag table (./status.ts), 503 with Retry-After for the
 * database unreachable.
 */
import type { Context } from 'hono';
import { ServiceError, StoreUnavailableError, toServiceError } from '../errors.js';
import type { Logger } from '../lib/logger.js';
import { bodyOf, headersOf } from './http-error.js';
import { answerOf } from './status.js';

/** The shape of an error answer: the standard envelope, or `{error}` (monitor routes). */
export type ErrorBody = 'envelope' | 'simple';

/** The client went away before its whole body arrived: nobody is left to answer, and no server error. */
export class ClientClosedError extends Error {
  override readonly name = 'ClientClosedError';
}

/** The status logged for a request its client abandoned (nginx's convention; never sent to anyone). */
export const CLIENT_CLOSED_STATUS = 499;

/** Monitor routes answer `{error}`; everything else the standard envelope. */
export function errorBodyFor(path: string): ErrorBody {
  return path === '/monitors' || path.startsWith('/monitors/') ? 'simple' : 'envelope';
}

/**
 * The response for anything thrown while serving a request; unexpected errors are logged with their
 * cause, a client that went away mid-body at info level as a 499.
 */
export function errorResponse(
  c: Context,
  thrown: unknown,
  requestId: string,
  style: ErrorBody,
  logger: Logger,
): Response {
  if (thrown instanceof ClientClosedError) {
    logger.info({ requestId, reason: thrown.message }, 'client closed the request before sending its body');
    return c.body(null, CLIENT_CLOSED_STATUS as 400);
  }
  const err = toServiceError(thrown);
  if (err.tag === 'INTERNAL_ERROR' && !(thrown instanceof ServiceError)) {
    logger.error({ requestId, err: thrown }, 'unexpected error');
  }
  if (err instanceof StoreUnavailableError) {
    logger.warn({ requestId, err: err.cause }, 'the database is unreachable; answered 503');
  }
  const answer = answerOf(err);
  for (const [name, value] of Object.entries({ ...answer.headers, ...headersOf(err) })) c.header(name, value);
  const body =
    style === 'simple' ? { error: err.message } : { requestId, error: err.message, tag: err.tag, ...bodyOf(err) };
  return c.json(body, answer.status as 400);
}
