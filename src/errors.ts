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

/** Turns anything thrown into a ServiceError; unexpected errors become INTERNAL_ERROR without internals. */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  return new ServiceError('INTERNAL_ERROR', 'Internal error; the server log has the details.', {
    cause: err,
  });
}
