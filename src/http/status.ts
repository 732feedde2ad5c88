/**
 * Tag → HTTP status: the one table of the HTTP door (REST envelope, Responses door, /mcp). The spec lists
 * the tags and an open-ended set; where it does not say which status goes with a tag, the choice is
 * recorded here and in docs/api.md. Nothing else maps tags to statuses. Server-side failures answer with
 * the spec's one server status, 500 (a failed provider is a server's failure, whoever's server it was);
 * 405, 413 and 415 are the HTTP door's protocol-level answers. One exception, by error rather than tag:
 * the database unreachable for a moment (`StoreUnavailableError`: a restart, a failover) is 503 with
 * `Retry-After`, so that clients and load balancers try again (another replica, or a moment later).
 */
import { StoreUnavailableError, type ErrorTag, type ServiceError } from '../errors.js';

/** The status of each tag. */
export const TAG_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_REQUEST_BODY: 400,
  INVALID_REQUEST_QUERY: 400,
  INVALID_NUM_RESULTS: 400,
  NUM_RESULTS_EXCEEDED: 400,
  INVALID_URLS: 400,
  /** The one page a request needs (/findSimilar's `url`) cannot be read: the caller's `url` to change. */
  FETCH_DOCUMENT_ERROR: 400,
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
  /** A person signed in through an OAuth issuer whom the identity rule maps to no team (docs/accounts.md). */
  IDENTITY_NOT_MAPPED: 403,
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
  UNABLE_TO_GENERATE_RESPONSE: 500,
  SERVICE_UNAVAILABLE: 500,
} as const satisfies Record<ErrorTag, number>;

/** The status for a tag; unknown tags are generic server errors, as the spec tells clients to assume. */
export function statusOf(tag: string): number {
  return (TAG_STATUS as Record<string, number>)[tag] ?? 500;
}

/** The status of a store outage: the one 503. */
export const STORE_UNAVAILABLE_STATUS = 503;
/** Seconds a client waits before trying again after a store outage (a PostgreSQL restart takes about that). */
export const STORE_RETRY_AFTER_S = 2;

/** The status and extra headers of `err`'s answer: its tag's status, or 503 with Retry-After for a store outage. */
export function answerOf(err: ServiceError): { status: number; headers: Record<string, string> } {
  if (err instanceof StoreUnavailableError)
    return { status: STORE_UNAVAILABLE_STATUS, headers: { 'retry-after': String(STORE_RETRY_AFTER_S) } };
  return { status: statusOf(err.tag), headers: {} };
}
