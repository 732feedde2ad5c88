/**
 * A ServiceError raised by the HTTP door itself, with what only HTTP has: headers to send (`allow` of a
 * 405, `retry-after` of a 429, a `WWW-Authenticate` challenge, the x402 `PAYMENT-REQUIRED`) and fields the
 * error envelope carries besides `requestId`, `error` and `tag` (the x402 challenge).
 */
import { ServiceError, type ErrorTag } from '../errors.js';

/** The door's error: a domain error plus the headers and envelope fields its HTTP answer carries. */
export class HttpError extends ServiceError {
  /** Extra headers of the answer. */
  readonly headers: Record<string, string>;
  /** Fields the standard envelope carries besides `requestId`, `error` and `tag`. */
  readonly body: Record<string, unknown>;

  constructor(
    tag: ErrorTag,
    message: string,
    options: { field?: string; cause?: unknown; headers?: Record<string, string>; body?: Record<string, unknown> } = {},
  ) {
    super(tag, message, { field: options.field, cause: options.cause });
    this.headers = options.headers ?? {};
    this.body = options.body ?? {};
  }
}

/** The headers an error's answer carries (none unless the door raised it with some). */
export const headersOf = (err: ServiceError): Record<string, string> => (err instanceof HttpError ? err.headers : {});

/** The envelope fields an error adds (none unless the door raised it with some). */
export const bodyOf = (err: ServiceError): Record<string, unknown> => (err instanceof HttpError ? err.body : {});
