/**
 * The fetcher: every outbound page fetch of Trawl. Flow per URL: URL policy → SSRF guard → robots.txt →
 * host limiter → request (retries) → redirects (each hop re-checked) → decode → classify. See README.md.
 */
import { gunzipSync } from 'node:zlib';
import { Agent } from 'undici';
import type { Logger } from '../lib/logger.js';
import { quotedUrl } from '../lib/safe-text.js';
import { VERSION } from '../version.js';
import { createAddressGuard, PAGE_GUARD_LIFTED_BY, type HostLookup } from './address-guard.js';
import { classifyContent } from './content-type.js';
import { capText } from './body.js';
import { decodeText } from './decode.js';
import { withDeadline } from './deadline.js';
import { statusError } from './errors.js';
import { createHostLimiter } from './host-limiter.js';
import { realSleep, type RetryClock } from './retry.js';
import { createRobotsPolicy, robotsRefusal } from './robots.js';
import { createTransport, type Exchange, type Hop } from './transport.js';
import {
  FetchError,
  type BrowserRenderer,
  type FetchRequest,
  type Fetcher,
  type RawResponse,
  type RenderedPage,
} from './types.js';
import { logUrl, parseFetchUrl } from './url-policy.js';

/** The default user agent: names Trawl, its version and where to read about it. */
export const DEFAULT_USER_AGENT = `Trawl/${VERSION} (+https://github.com/trawl)`;

export interface FetcherOptions extends RetryClock {
  /** `TRAWL_USER_AGENT`; its product token (before the first `/`) is what robots.txt rules match. */
  userAgent?: string;
  /** `TRAWL_ALLOW_PRIVATE_NETWORK`: lifts the SSRF guard entirely. Default false. */
  allowPrivateNetwork?: boolean;
  /** `TRAWL_PRIVATE_ALLOWLIST`: IPs/CIDRs reachable with the guard on. Throws at creation on an invalid entry. */
  privateAllowlist?: readonly string[];
  /** How host names are resolved (default: the system resolver); the webhook sender is given the same. */
  lookup?: HostLookup;
  /** `TRAWL_FETCH_MAX_BYTES`: body cap, raw and decompressed. Default 10 MiB. */
  maxBodyBytes?: number;
  /** Default 10. */
  maxRedirects?: number;
  /** Fetcher-level timeouts (→ `CRAWL_TIMEOUT`). Defaults 10 s connect, 15 s headers, 15 s between body chunks. */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** `TRAWL_ROBOTS`: obey robots.txt (requests may opt out with `robots: false`). Default true. */
  robots?: boolean;
  /** Bound on one robots.txt load. Default 10 s. */
  robotsTimeoutMs?: number;
  /** Retries of transient failures (reset/refused connections, 429, 502-504). Default 2. */
  retries?: number;
  /** First backoff, doubling per retry (with jitter). Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Longest Retry-After waited for. Default 10 s. */
  maxRetryAfterMs?: number;
  /** Requests per host in flight at once when the request brings no politeness. Default 6. */
  perHostConcurrency?: number;
  /** Renders pages for `render: true`; closed with the fetcher. */
  browser?: BrowserRenderer;
  logger?: Logger;
}

const ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,text/markdown;q=0.9,text/plain;q=0.8,' +
  'application/json;q=0.8,application/pdf;q=0.8,*/*;q=0.5';
const ROBOTS_MAX_BYTES = 500 * 1024;
/** The operator setting that raises the page body cap, named when a page is too large. */
const MAX_BYTES_SETTING = 'TRAWL_FETCH_MAX_BYTES';

/** The product token of a user agent (`Trawl/0.1.0 (+...)` → `Trawl`). */
export function productToken(userAgent: string): string {
  return /^[^\s/]+/.exec(userAgent.trim())?.[0] ?? 'Trawl';
}

/**
 * A gzip *file* (`sitemap.xml.gz` served as `application/gzip`, not a Content-Encoding) is opened, within
 * the body cap, and its content sniffed; anything else passes through untouched.
 */
function unwrapGzipFile(
  body: Buffer,
  contentType: string | undefined,
  url: URL,
  maxBytes: number,
): { body: Buffer; contentType: string | undefined } {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const gzipType = type === 'application/gzip' || type === 'application/x-gzip';
  const isGzip = body[0] === 0x1f && body[1] === 0x8b;
  if (!isGzip || !(gzipType || type === 'application/octet-stream' || type === '')) return { body, contentType };
  try {
    return { body: gunzipSync(body, { maxOutputLength: maxBytes }), contentType: undefined };
  } catch (err) {
    const tooLarge = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw new FetchError(
      tooLarge ? 'CRAWL_TOO_LARGE' : 'CRAWL_UNKNOWN_ERROR',
      `${quotedUrl(url)}: ${tooLarge ? `too large: the gzip file expands beyond ${capText(maxBytes, MAX_BYTES_SETTING)}` : 'the gzip file is corrupt'}`,
      null,
      { cause: err },
    );
  }
}

function responseOf(
  request: FetchRequest,
  url: URL,
  hop: Hop,
  startedAt: number,
  now: number,
  maxBodyBytes: number,
): RawResponse {
  const notModified = hop.status === 304 && Boolean(request.conditional?.etag || request.conditional?.lastModified);
  if (!notModified && (hop.status < 200 || hop.status >= 300)) throw statusError(hop.status, url.host);
  const base = {
    requestedUrl: request.url,
    url: url.href,
    status: hop.status,
    headers: hop.headers,
    fetchedAt: new Date(now).toISOString(),
    notModified,
    elapsedMs: now - startedAt,
    ...(hop.headers.etag ? { etag: hop.headers.etag } : {}),
    ...(hop.headers['last-modified'] ? { lastModified: hop.headers['last-modified'] } : {}),
  };
  if (notModified) return { ...base, kind: 'html', mediaType: '', text: '', bodyBase64: '' };
  const { body, contentType } = unwrapGzipFile(hop.body, hop.headers['content-type'], url, maxBodyBytes);
  const { kind, mediaType, charset } = classifyContent(contentType, url, body);
  if (kind === 'pdf') return { ...base, kind, mediaType, text: '', bodyBase64: body.toString('base64') };
  const markup = kind === 'html' ? 'html' : kind === 'xml' || kind === 'feed' ? 'xml' : 'none';
  const decoded = decodeText(body, charset, markup);
  return { ...base, kind, mediaType, text: decoded.text, bodyBase64: '', charset: decoded.charset };
}

/** The RawResponse of a page the browser rendered. */
function renderedResponse(request: FetchRequest, page: RenderedPage, startedAt: number, at: number): RawResponse {
  return {
    requestedUrl: request.url,
    url: page.url,
    status: page.status,
    headers: {},
    kind: 'html',
    mediaType: 'text/html',
    text: page.html,
    bodyBase64: '',
    charset: 'utf-8',
    fetchedAt: new Date(at).toISOString(),
    notModified: false,
    rendered: true,
    elapsedMs: at - startedAt,
  };
}

/** Creates a fetcher over its own undici Agent; throws when `privateAllowlist` holds an invalid entry. */
export function createFetcher(options: FetcherOptions = {}): Fetcher {
  const userAgent = options.userAgent?.trim() || DEFAULT_USER_AGENT;
  const now = options.now ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const robotsOn = options.robots ?? true;
  const { browser, logger } = options;
  const guard = createAddressGuard({
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    privateAllowlist: options.privateAllowlist ?? [],
    liftedBy: PAGE_GUARD_LIFTED_BY,
    lookup: options.lookup,
  });
  const timeouts = {
    connectMs: options.connectTimeoutMs ?? 10_000,
    headersMs: options.headersTimeoutMs ?? 15_000,
    bodyMs: options.bodyTimeoutMs ?? 15_000,
  };
  const agent = new Agent({
    connect: guard.connector({ timeoutMs: timeouts.connectMs }),
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
  });
  const limiter = createHostLimiter(now);
  const baseHeaders = { 'user-agent': userAgent, 'accept-encoding': 'gzip, br, deflate' };

  const loadRobots = (robotsUrl: URL) =>
    withDeadline(
      options.robotsTimeoutMs ?? 10_000,
      undefined,
      robotsUrl.host,
      () =>
        new FetchError(
          'CRAWL_TIMEOUT',
          `${robotsUrl.host}: time-out: robots.txt did not arrive within ${options.robotsTimeoutMs ?? 10_000} ms`,
        ),
      async (signal) => {
        const exchange: Exchange = {
          signal,
          deadline: now() + (options.robotsTimeoutMs ?? 10_000),
          headers: { ...baseHeaders, accept: 'text/plain,*/*;q=0.5' },
          limits: { maxBytes: ROBOTS_MAX_BYTES, overflow: 'truncate' },
          maxRedirects: 5,
          robots: false,
        };
        const { hop } = await transport.follow(robotsUrl, exchange);
        return { status: hop.status, body: hop.body.toString('utf8') };
      },
      timeouts,
    );

  const robots = createRobotsPolicy({ productToken: productToken(userAgent), load: loadRobots, now, logger });
  const transport = createTransport({
    agent,
    guard,
    limiter,
    robots,
    now,
    logger,
    sleep: options.sleep ?? realSleep,
    defaultHostConcurrency: options.perHostConcurrency ?? 6,
    retry: {
      retries: options.retries ?? 2,
      baseDelayMs: options.retryBaseDelayMs ?? 500,
      maxDelayMs: 8_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 10_000,
      random: options.random ?? Math.random,
    },
  });

  const render = async (request: FetchRequest, url: URL, signal: AbortSignal, startedAt: number) => {
    if (!browser) {
      throw new FetchError('CRAWL_NEEDS_BROWSER', `${logUrl(url)} needs JavaScript and no browser is configured`);
    }
    // Literal and metadata hosts fail here; the browser sends every request through its own guarded Agent.
    guard.checkHost(url.hostname);
    if (robotsOn && request.robots !== false && !(await robots.check(url, signal, request.logger))) {
      throw new FetchError('CRAWL_ROBOTS_DISALLOWED', robotsRefusal(url));
    }
    const limits = {
      concurrency: request.politeness?.perHostConcurrency ?? 1,
      delayMs: request.politeness?.delayMs ?? 0,
    };
    const turn = {
      signal,
      tenant: request.tenant,
      onQueued: request.onQueued && ((waitedMs: number) => request.onQueued!(url.host, waitedMs)),
    };
    const page = await limiter.run(
      url.host,
      limits,
      () => {
        // the time left once the slot is ours: the wait for it counts against the deadline
        const timeoutMs = Math.max(1, startedAt + request.timeoutMs - now());
        return browser.renderPage
          ? browser.renderPage(url.href, { timeoutMs, signal })
          : browser.render(url.href, { timeoutMs, signal }).then((html) => ({ html, url: url.href, status: 200 }));
      },
      turn,
    );
    if (page.status >= 400) throw statusError(page.status, url.host);
    return renderedResponse(request, page, startedAt, now());
  };

  const fetchOne = async (request: FetchRequest, url: URL, signal: AbortSignal, startedAt: number) => {
    const headers: Record<string, string> = { ...baseHeaders, accept: ACCEPT };
    if (request.conditional?.etag) headers['if-none-match'] = request.conditional.etag;
    if (request.conditional?.lastModified) headers['if-modified-since'] = request.conditional.lastModified;
    const { url: finalUrl, hop } = await transport.follow(url, {
      signal,
      deadline: startedAt + request.timeoutMs,
      headers,
      limits: { maxBytes: maxBodyBytes, overflow: 'error', setting: MAX_BYTES_SETTING },
      maxRedirects: options.maxRedirects ?? 10,
      robots: robotsOn && request.robots !== false,
      ...(request.politeness ? { politeness: request.politeness } : {}),
      tenant: request.tenant,
      onQueued: request.onQueued,
      logger: request.logger,
    });
    return responseOf(request, finalUrl, hop, startedAt, now(), maxBodyBytes);
  };

  return {
    canRender: Boolean(browser),
    async fetch(request) {
      const startedAt = now();
      const log = request.logger ?? logger;
      const url = parseFetchUrl(request.url);
      const onTimeout = () =>
        new FetchError(
          'CRAWL_LIVECRAWL_TIMEOUT',
          `${logUrl(url)}: time-out: the whole fetch took longer than its ${request.timeoutMs} ms limit`,
        );
      try {
        const response = await withDeadline(
          request.timeoutMs,
          request.signal,
          url.host,
          onTimeout,
          (signal) =>
            request.render ? render(request, url, signal, startedAt) : fetchOne(request, url, signal, startedAt),
          timeouts,
        );
        log?.debug({ url: logUrl(url), status: response.status, ms: response.elapsedMs }, 'fetched');
        return response;
      } catch (err) {
        const tag = err instanceof FetchError ? err.tag : undefined;
        log?.debug({ url: logUrl(url), tag, ms: now() - startedAt }, 'fetch failed');
        throw err;
      }
    },
    async allowedByRobots(raw, signal) {
      if (!robotsOn) return true;
      try {
        return await robots.check(parseFetchUrl(raw), signal);
      } catch {
        return false;
      }
    },
    async close() {
      limiter.close();
      // destroy, not close: shutting down must not wait for a slow site's body.
      await Promise.allSettled([agent.destroy(), browser?.close()]);
    },
  };
}
