/**
 * The one place where network failures become crawl tags: undici and Node error codes, and HTTP
 * statuses. Every other module of Trawl sees only `FetchError`.
 */
import { FetchError, type CrawlTag } from './types.js';

/** Connection-level failures worth another attempt. */
const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'EAI_AGAIN']);

/** HTTP statuses worth another attempt (429 only when its Retry-After fits). */
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

const CODE_TAGS: Record<string, CrawlTag> = {
  UND_ERR_CONNECT_TIMEOUT: 'CRAWL_TIMEOUT',
  UND_ERR_HEADERS_TIMEOUT: 'CRAWL_TIMEOUT',
  UND_ERR_BODY_TIMEOUT: 'CRAWL_TIMEOUT',
  ETIMEDOUT: 'CRAWL_TIMEOUT',
  ENOTFOUND: 'CRAWL_NOT_FOUND',
  EAI_NONAME: 'CRAWL_NOT_FOUND',
  EAI_NODATA: 'CRAWL_NOT_FOUND',
  ECONNREFUSED: 'SOURCE_NOT_AVAILABLE',
  ECONNRESET: 'SOURCE_NOT_AVAILABLE',
  EPIPE: 'SOURCE_NOT_AVAILABLE',
  EHOSTUNREACH: 'SOURCE_NOT_AVAILABLE',
  ENETUNREACH: 'SOURCE_NOT_AVAILABLE',
  EAI_AGAIN: 'SOURCE_NOT_AVAILABLE',
  UND_ERR_SOCKET: 'SOURCE_NOT_AVAILABLE',
  UND_ERR_CLOSED: 'SOURCE_NOT_AVAILABLE',
};

const DESCRIPTIONS: Partial<Record<CrawlTag, string>> = {
  CRAWL_TIMEOUT: 'the site did not answer in time',
  CRAWL_NOT_FOUND: 'the host name does not resolve',
  SOURCE_NOT_AVAILABLE: 'the site is not reachable',
};

/** The first `code` along an error's cause chain. */
function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** The first `FetchError` along an error's cause chain (the guard's refusal surfaces wrapped at times). */
function findFetchError(err: unknown): FetchError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof FetchError) return e;
  }
  return undefined;
}

/** Maps any failure of a request to `host` onto a `FetchError`; an existing one passes through. */
export function toFetchError(err: unknown, host: string): FetchError {
  const known = findFetchError(err);
  if (known) return known;
  const code = errorCode(err) ?? '';
  const detail = err instanceof Error ? err.message : String(err);
  const tag = CODE_TAGS[code];
  if (tag) return new FetchError(tag, `${host}: ${DESCRIPTIONS[tag] ?? tag} (${code})`, null, { cause: err });
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) {
    return new FetchError('CRAWL_UNKNOWN_ERROR', `${host}: TLS failure (${code})`, null, { cause: err });
  }
  if (code.startsWith('HPE_')) {
    return new FetchError('CRAWL_UNKNOWN_ERROR', `${host}: malformed HTTP response (${code})`, null, { cause: err });
  }
  return new FetchError('CRAWL_UNKNOWN_ERROR', `${host}: ${detail}`, null, { cause: err });
}

/** The error for a final non-2xx answer: 404/410 not found, other 4xx HTTP error, 5xx not available. */
export function statusError(status: number, where: string, detail = ''): FetchError {
  const suffix = detail ? `: ${detail}` : '';
  if (status === 404 || status === 410) {
    return new FetchError('CRAWL_NOT_FOUND', `${where} answered ${status}${suffix}`, status);
  }
  if (status >= 500) return new FetchError('SOURCE_NOT_AVAILABLE', `${where} answered ${status}${suffix}`, status);
  return new FetchError('CRAWL_HTTP_ERROR', `${where} answered ${status}${suffix}`, status);
}

/** Whether a failed attempt (an error or a status) may succeed when tried again. */
export function isTransient(failure: { error?: unknown; status?: number }): boolean {
  if (failure.status !== undefined) return TRANSIENT_STATUSES.has(failure.status);
  return TRANSIENT_CODES.has(errorCode(failure.error) ?? '');
}
