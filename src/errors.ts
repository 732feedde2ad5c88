/**
 * The one error type of the service and the one table from error tag to HTTP status.
 * Services throw `ServiceError`; each door renders it (REST envelope, MCP `isError` result).
 */

/**
 * Tag → HTTP status. The spec lists the tags and an open-ended set; where it does not say which status
 * goes with a tag, the choice is recorded here and in docs/api.md. Nothing else maps tags to statuses.
 */
export const TAG_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_REQUEST_BODY: 400,
  INVALID_REQUEST_QUERY: 400,
  INVALID_NUM_RESULTS: 400,
  NUM_RESULTS_EXCEEDED: 400,
  INVALID_URLS: 400,
  SUBPAGES_LIMIT_EXCEEDED: 400,
  UNSUPPORTED_PUBLICATION_INCLUDE_FILTER: 400,
  PROHIBITED_CONTENT: 400,
  INVALID_API_KEY: 401,
  NO_MORE_CREDITS: 402,
  API_KEY_BUDGET_EXCEEDED: 402,
  TEAM_BUDGET_EXCEEDED: 402,
  X402_PAYMENT_REQUIRED: 402,
  INSUFFICIENT_SCOPE: 403,
  TEAM_BLOCKED: 403,
  FEATURE_DISABLED: 403,
  FORBIDDEN_ORIGIN: 403,
  /** A fetch policy's refusal of the one URL a request needs (/findSimilar's `url`), as /contents tags it. */
  CRAWL_PRIVATE_ADDRESS: 403,
  CRAWL_ROBOTS_DISALLOWED: 403,
  NOT_FOUND: 404,
  NO_CONTENT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_JSON_SCHEMA: 422,
  RATE_LIMIT_EXCEEDED: 429,
  DEFAULT_ERROR: 500,
  INTERNAL_ERROR: 500,
  FETCH_DOCUMENT_ERROR: 502,
  UNABLE_TO_GENERATE_RESPONSE: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorTag = keyof typeof TAG_STATUS;

/** The status for a tag; unknown tags are generic server errors, as the spec tells clients to assume. */
export function statusOf(tag: string): number {
  return (TAG_STATUS as Record<string, number>)[tag] ?? 500;
}

/** An error the caller can act on: a spec tag, a message that says what to change, and the field at fault. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly tag: ErrorTag;
  /** Dotted path of the field at fault, when one is (`contents.text.maxCharacters`). */
  readonly field: string | undefined;
  /** Extra headers the REST door should send (e.g. `allow` for 405). */
  readonly headers: Record<string, string> | undefined;
  /** Fields the standard envelope carries besides `requestId`, `error` and `tag` (the x402 challenge). */
  readonly body: Record<string, unknown> | undefined;

  constructor(
    tag: ErrorTag,
    message: string,
    options: { field?: string; cause?: unknown; headers?: Record<string, string>; body?: Record<string, unknown> } = {},
  ) {
    super(message, { cause: options.cause });
    this.tag = tag;
    this.field = options.field;
    this.headers = options.headers;
    this.body = options.body;
  }

  get status(): number {
    return statusOf(this.tag);
  }
}

/** Turns anything thrown into a ServiceError; unexpected errors become INTERNAL_ERROR without internals. */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  return new ServiceError('INTERNAL_ERROR', 'Internal error; the server log has the details.', {
    cause: err,
  });
}
