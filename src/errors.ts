/**
 * The one error type of the service: `ServiceError`, the core's domain error (a tag, a message, the
 * field at fault, a cause). Each door renders it: HTTP by its status table (src/http/status.ts), MCP by tag.
 */

/** Tags of a request whose parameters break the spec's rules (HTTP 400). */
const REQUEST_TAGS = [
  'INVALID_REQUEST',
  'INVALID_REQUEST_BODY',
  'INVALID_REQUEST_QUERY',
  'INVALID_NUM_RESULTS',
  'NUM_RESULTS_EXCEEDED',
  'INVALID_URLS',
  'SUBPAGES_LIMIT_EXCEEDED',
  'UNSUPPORTED_PUBLICATION_INCLUDE_FILTER',
  'PROHIBITED_CONTENT',
] as const;

/** Tags of a request refused for want of money: credits, a budget, or an x402 payment (HTTP 402). */
const MONEY_TAGS = [
  'NO_MORE_CREDITS',
  'API_KEY_BUDGET_EXCEEDED',
  'TEAM_BUDGET_EXCEEDED',
  'X402_PAYMENT_REQUIRED',
] as const;

/** The spec's error tags (its `tag` field); the spec leaves the set open-ended, this is Trawl's. */
export const ERROR_TAGS = [
  ...REQUEST_TAGS,
  'INVALID_API_KEY',
  ...MONEY_TAGS,
  'INSUFFICIENT_SCOPE',
  'TEAM_BLOCKED',
  'IDENTITY_NOT_MAPPED',
  'FEATURE_DISABLED',
  'FORBIDDEN_ORIGIN',
  'CRAWL_PRIVATE_ADDRESS',
  'CRAWL_ROBOTS_DISALLOWED',
  'NOT_FOUND',
  'NO_CONTENT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INVALID_JSON_SCHEMA',
  'RATE_LIMIT_EXCEEDED',
  'DEFAULT_ERROR',
  'INTERNAL_ERROR',
  'FETCH_DOCUMENT_ERROR',
  'UNABLE_TO_GENERATE_RESPONSE',
  'SERVICE_UNAVAILABLE',
] as const;

/** One of the spec's error tags. */
export type ErrorTag = (typeof ERROR_TAGS)[number];

/** Tags of a request refused for want of money (HTTP 402). */
export const PAYMENT_TAGS: readonly ErrorTag[] = MONEY_TAGS;

/** Tags of a request whose parameters are at fault: the caller must change them (HTTP 400 and 422). */
export const INVALID_INPUT_TAGS: readonly ErrorTag[] = [
  ...REQUEST_TAGS,
  'INVALID_JSON_SCHEMA',
  // the one page a request needs cannot be read (/findSimilar's `url`): the caller's to change
  'FETCH_DOCUMENT_ERROR',
];

/** Whether `tag` refuses a request for want of money (credits, budgets, payment). */
export const isPaymentRefusal = (tag: string): boolean => (PAYMENT_TAGS as readonly string[]).includes(tag);

/** Whether `tag` blames the request's parameters. */
export const isInvalidInput = (tag: string): boolean => (INVALID_INPUT_TAGS as readonly string[]).includes(tag);

/** An error the caller can act on: a spec tag, a message that says what to change, and the field at fault. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly tag: ErrorTag;
  /** Dotted path of the field at fault, when one is (`contents.text.maxCharacters`). */
  readonly field: string | undefined;

  constructor(tag: ErrorTag, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.tag = tag;
    this.field = options.field;
  }
}

/**
 * The database unreachable for the moment: refused or ended by the server (a restart, a failover, a
 * server starting up), not a fault of the request or of the code. `SERVICE_UNAVAILABLE`; the HTTP door
 * answers it 503 with `Retry-After` (src/http/status.ts), so that clients try again.
 */
export class StoreUnavailableError extends ServiceError {
  constructor(cause: unknown) {
    super('SERVICE_UNAVAILABLE', 'The database is unreachable for the moment (restarting or failing over); try again shortly.', { cause }); // prettier-ignore
  }
}

/** SQLSTATEs of a lost or refused database connection besides class 08: admin shutdown, crash shutdown, cannot connect now. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03']);
/** Socket errors of a connection refused or cut (as the PostgreSQL client surfaces them, unwrapped). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']); // prettier-ignore
/** What the `pg` client throws, as plain errors, for a connection the server ended (under a statement, or before the next) or that did not open in time. */
const UNREACHABLE_MESSAGES = /^(Connection terminated unexpectedly|Connection terminated due to connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)$/; // prettier-ignore

/**
 * Whether `err` says the database cannot be reached right now: a server error of SQLSTATE class 08
 * (connection exception) or 57P01-57P03, a refused or cut socket, or the `pg` client's own words for a
 * connection ended under it. Only the error itself is read, not its causes: a fetch or a provider wraps
 * its socket errors in its own.
 */
export function isStoreUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    const sqlState = 'severity' in err && /^[0-9A-Z]{5}$/.test(code);
    if (sqlState) return code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code);
    if (UNREACHABLE_CODES.has(code)) return true;
  }
  return UNREACHABLE_MESSAGES.test(err.message);
}

/**
 * Turns anything thrown into a ServiceError; the database unreachable becomes `StoreUnavailableError`;
 * other unexpected errors become INTERNAL_ERROR without internals.
 */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  if (isStoreUnreachable(err)) return new StoreUnavailableError(err);
  return new ServiceError('INTERNAL_ERROR', 'Internal error; the server log has the details.', {
    cause: err,
  });
}
