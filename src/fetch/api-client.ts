/**
 * A small JSON client for the provider APIs an operator configures (embeddings, models, web search).
 * Operator-chosen endpoints: no SSRF guard and no robots.txt, but the same timeouts, caps and tags.
 * Header values (API keys) never appear in errors or logs.
 */
import { Agent } from 'undici';
import type { Logger } from '../lib/logger.js';
import { readBody } from './body.js';
import { withDeadline } from './deadline.js';
import { statusError } from './errors.js';
import { DEFAULT_USER_AGENT } from './fetcher.js';
import { FetchError } from './types.js';
import { logUrl } from './url-policy.js';

export interface ApiClientOptions {
  userAgent?: string;
  logger?: Logger;
  /** Defaults 10 s connect, 60 s headers (models think before answering), 60 s between body chunks. */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Largest response read. Default 32 MiB. */
  maxResponseBytes?: number;
}

export interface ApiCallOptions {
  /** Sent as given; never logged. */
  headers?: Record<string, string>;
  /** Bounds the whole call (→ `CRAWL_TIMEOUT`). Default 60 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ApiClient {
  /** POSTs `body` as JSON and parses the JSON answer; throws `FetchError` (status tags, with up to 500 chars of the error body). */
  postJson<T>(url: string, body: unknown, options?: ApiCallOptions): Promise<T>;
  /** GETs a JSON document; same errors as `postJson`. */
  getJson<T>(url: string, options?: ApiCallOptions): Promise<T>;
  close(): Promise<void>;
}

const ERROR_BODY_CHARS = 500;

/** Creates a client over its own undici Agent. */
export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  const agent = new Agent({
    connect: { timeout: options.connectTimeoutMs ?? 10_000 },
    headersTimeout: options.headersTimeoutMs ?? 60_000,
    bodyTimeout: options.bodyTimeoutMs ?? 60_000,
  });
  const maxBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
  const userAgent = options.userAgent?.trim() || DEFAULT_USER_AGENT;

  const call = async <T>(method: 'GET' | 'POST', raw: string, body: unknown, opts: ApiCallOptions): Promise<T> => {
    const url = URL.canParse(raw) ? new URL(raw) : undefined;
    if (!url) throw new FetchError('UNSUPPORTED_URL', 'the API endpoint is not a valid URL');
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new FetchError('UNSUPPORTED_URL', `${url.protocol} is not an http(s) API endpoint`);
    }
    const where = logUrl(url);
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const startedAt = Date.now();
    const onTimeout = () => new FetchError('CRAWL_TIMEOUT', `${where} did not answer within ${timeoutMs} ms`);
    return withDeadline(timeoutMs, opts.signal, url.host, onTimeout, async (signal) => {
      const res = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        signal,
        headers: {
          'user-agent': userAgent,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const limits = { maxBytes, overflow: 'error' as const };
      const bytes = await readBody(res.body, res.headers['content-length'] as string | undefined, limits, url.host);
      const text = bytes.toString('utf8');
      options.logger?.debug({ url: where, method, status: res.statusCode, ms: Date.now() - startedAt }, 'api call');
      if (res.statusCode < 200 || res.statusCode >= 300) {
        throw statusError(res.statusCode, where, text.replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_CHARS));
      }
      try {
        return JSON.parse(text) as T;
      } catch (err) {
        const head = text.slice(0, 100);
        throw new FetchError('CRAWL_UNKNOWN_ERROR', `${where} answered non-JSON: ${head}`, res.statusCode, {
          cause: err,
        });
      }
    });
  };

  return {
    postJson: (url, body, opts = {}) => call('POST', url, body, opts),
    getJson: (url, opts = {}) => call('GET', url, undefined, opts),
    close: () => agent.close(),
  };
}
