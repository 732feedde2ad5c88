/**
 * The one place where network failures become crawl tags: undici and Node error codes, and HTTP
 * statuses. Every other module of Trawl sees only `FetchError`, whose message names the cause in words
 * a user can act on (DNS, refused, TLS with its reason, which time-out and its limit).
 */
import { FetchError, type CrawlTag } from './types.js';

/** Connection-level failures worth another attempt. */
const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'EAI_AGAIN']);

/** HTTP statuses worth another attempt (429 only when its Retry-After fits). */
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

/** The fetcher's per-phase time-outs, named in the message of the one that fired. */
export interface PhaseTimeouts {
  connectMs?: number;
  headersMs?: number;
  bodyMs?: number;
}

const within = (ms: number | undefined) => (ms === undefined ? '' : ` within ${ms} ms`);

/** Each known code: its tag, and the cause in words (given the phase time-outs). */
const CAUSES: Record<string, { tag: CrawlTag; cause: (t: PhaseTimeouts) => string }> = {
  UND_ERR_CONNECT_TIMEOUT: { tag: 'CRAWL_TIMEOUT', cause: (t) => `connect time-out: no connection${within(t.connectMs)}` }, // prettier-ignore
  UND_ERR_HEADERS_TIMEOUT: { tag: 'CRAWL_TIMEOUT', cause: (t) => `headers time-out: the site sent no response headers${within(t.headersMs)}` }, // prettier-ignore
  UND_ERR_BODY_TIMEOUT: { tag: 'CRAWL_TIMEOUT', cause: (t) => `body time-out: the site stopped sending the body${t.bodyMs === undefined ? '' : ` for longer than ${t.bodyMs} ms`}` }, // prettier-ignore
  ETIMEDOUT: { tag: 'CRAWL_TIMEOUT', cause: () => 'connection time-out: the site did not answer in time' },
  ENOTFOUND: { tag: 'CRAWL_NOT_FOUND', cause: () => 'DNS name not found: the host name does not resolve' },
  EAI_NONAME: { tag: 'CRAWL_NOT_FOUND', cause: () => 'DNS name not found: the host name does not resolve' },
  EAI_NODATA: { tag: 'CRAWL_NOT_FOUND', cause: () => 'DNS name not found: the host name has no address' },
  EAI_AGAIN: { tag: 'SOURCE_NOT_AVAILABLE', cause: () => 'DNS lookup failed: the name server did not answer; retry later' }, // prettier-ignore
  ECONNREFUSED: { tag: 'SOURCE_NOT_AVAILABLE', cause: () => 'connection refused: the site is not reachable (nothing accepts connections on that port)' }, // prettier-ignore
  ECONNRESET: { tag: 'SOURCE_NOT_AVAILABLE', cause: () => 'connection reset by the site: the site is not reachable' },
  EPIPE: { tag: 'SOURCE_NOT_AVAILABLE', cause: () => 'connection closed by the site while Trawl was sending' },
  EHOSTUNREACH: { tag: 'SOURCE_NOT_AVAILABLE', cause: () => 'host unreachable: the site is not reachable' },
  ENETUNREACH: { tag: 'SOURCE_NOT_AVAILABLE', cause: () => 'network unreachable: the site is not reachable' },
  UND_ERR_SOCKET: { tag: 'SOURCE_NOT_AVAILABLE', cause: () => 'the connection failed: the site is not reachable' },
  UND_ERR_CLOSED: { tag: 'SOURCE_NOT_AVAILABLE', cause: () => 'the connection was closed: the site is not reachable' },
};

/** TLS failures in words; others keep Node's own wording. */
const TLS_REASONS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'a self-signed certificate is in the chain',
  ERR_TLS_CERT_ALTNAME_INVALID: 'hostname mismatch: the certificate is for another host name',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate cannot be verified (unknown issuer or incomplete chain)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the certificate cannot be verified (unknown issuer or incomplete chain)',
  CERT_REVOKED: 'the certificate has been revoked',
};
const TLS_CODE = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/;

/** The first error along a cause chain that carries a string `code`. */
function coded(err: unknown): { code: string; error: Error | undefined } | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return { code, error: e instanceof Error ? e : undefined };
  }
  return undefined;
}

/** The first `code` along an error's cause chain. */
function errorCode(err: unknown): string | undefined {
  return coded(err)?.code;
}

/** The first `FetchError` along an error's cause chain (the guard's refusal surfaces wrapped at times). */
function findFetchError(err: unknown): FetchError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof FetchError) return e;
  }
  return undefined;
}

/**
 * Maps any failure of a request to `host` onto a `FetchError` whose message names the cause; an
 * existing one passes through. `timeouts` are the limits a time-out message names.
 */
export function toFetchError(err: unknown, host: string, timeouts: PhaseTimeouts = {}): FetchError {
  const known = findFetchError(err);
  if (known) return known;
  const { code = '', error } = coded(err) ?? {};
  const fail = (tag: CrawlTag, cause: string) =>
    new FetchError(tag, `${host}: ${cause} (${code})`, null, { cause: err });
  const mapped = CAUSES[code];
  if (mapped) return fail(mapped.tag, mapped.cause(timeouts));
  if (TLS_CODE.test(code)) {
    const reason = TLS_REASONS[code] ?? error?.message ?? 'the secure connection failed';
    const detail = code === 'ERR_TLS_CERT_ALTNAME_INVALID' && error ? ` (${tlsDetail(error)})` : '';
    return fail('CRAWL_UNKNOWN_ERROR', `TLS error: ${reason}${detail}`);
  }
  if (code.startsWith('HPE_')) return fail('CRAWL_UNKNOWN_ERROR', 'malformed HTTP response');
  // undici's and Node's own words (no header or body of the site), bounded all the same
  const detail = err instanceof Error ? err.message : String(err);
  const bounded = detail.length > UNKNOWN_DETAIL_CHARS ? `${detail.slice(0, UNKNOWN_DETAIL_CHARS - 1)}…` : detail;
  return new FetchError('CRAWL_UNKNOWN_ERROR', `${host}: ${bounded}`, null, { cause: err });
}

/** Longest wording of an unknown failure kept in its message. */
const UNKNOWN_DETAIL_CHARS = 200;
/** An altname as a message may repeat it: a DNS name or an IP address, nothing the certificate could word. */
const SAFE_ALTNAME = /^(DNS:[A-Za-z0-9*_.-]{1,253}|IP Address:[0-9A-Fa-f:.]{2,45})$/;
/** Altnames named in a message at most; the rest are counted. */
const NAMED_ALTNAMES = 5;

/**
 * The names a certificate was for on a host name mismatch, e.g. `its names: DNS:b.test, DNS:*.b.test`. The site
 * wrote them: only well-formed DNS names and IP addresses are repeated, the others counted.
 */
function tlsDetail(error: Error): string {
  const reason = (error as { reason?: unknown }).reason;
  const text = typeof reason === 'string' ? reason : error.message;
  const at = text.indexOf('altnames: ');
  const names = at < 0 ? [] : text.slice(at + 'altnames: '.length).split(', ');
  const safe = names.filter((n) => SAFE_ALTNAME.test(n));
  const named = safe.slice(0, NAMED_ALTNAMES);
  const others = names.length - named.length;
  if (named.length === 0) return `its names: ${others} not repeated here`;
  return `its names: ${named.join(', ')}${others > 0 ? ` and ${others} more` : ''}`;
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
