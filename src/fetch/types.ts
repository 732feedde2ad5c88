/**
 * The fetcher's contract: what a caller asks for, what comes back, and how a fetch fails. Every
 * outbound HTTP request of Trawl goes through a `Fetcher`; its failures carry a per-URL crawl tag.
 */
import type { Logger } from '../lib/logger.js';

/** Per-URL crawl failure tags (reported in `/contents` `statuses[].error.tag`). */
export type CrawlTag =
  /** The site answered 404 or 410, or the host name does not resolve. */
  | 'CRAWL_NOT_FOUND'
  /** The site did not connect, send headers or send its body within the fetcher's own timeouts. */
  | 'CRAWL_TIMEOUT'
  /** The whole live fetch exceeded the request's `livecrawlTimeout`. */
  | 'CRAWL_LIVECRAWL_TIMEOUT'
  /** The site answered 5xx, refused the connection, or nothing is cached when only the cache may answer. */
  | 'SOURCE_NOT_AVAILABLE'
  /** Not an http(s) URL, or a URL that can never be fetched (bad port, credentials in it). */
  | 'UNSUPPORTED_URL'
  /** The host resolves to a loopback, private, link-local, CGNAT, multicast or metadata address. */
  | 'CRAWL_PRIVATE_ADDRESS'
  /** robots.txt disallows the URL for Trawl's user agent. */
  | 'CRAWL_ROBOTS_DISALLOWED'
  /** The body is larger than the configured cap. */
  | 'CRAWL_TOO_LARGE'
  /** More redirects than the configured limit, or a redirect loop. */
  | 'CRAWL_TOO_MANY_REDIRECTS'
  /** A content type Trawl cannot read (images, archives, video, ...). */
  | 'CRAWL_UNSUPPORTED_CONTENT_TYPE'
  /** The site answered another 4xx (401, 403, 429, ...). */
  | 'CRAWL_HTTP_ERROR'
  /** The page needs JavaScript to show its content and no browser is configured (or rendering failed). */
  | 'CRAWL_NEEDS_BROWSER'
  /** Anything else (TLS failure, malformed response). */
  | 'CRAWL_UNKNOWN_ERROR';

/** A fetch that failed, with its crawl tag and the site's HTTP status when there was one. */
export class FetchError extends Error {
  readonly tag: CrawlTag;
  readonly httpStatusCode: number | null;
  constructor(tag: CrawlTag, message: string, httpStatusCode: number | null = null, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FetchError';
    this.tag = tag;
    this.httpStatusCode = httpStatusCode;
  }
}

/** What Trawl can read. Anything else is `CRAWL_UNSUPPORTED_CONTENT_TYPE`. */
export type ContentKind = 'html' | 'text' | 'markdown' | 'json' | 'feed' | 'xml' | 'pdf';

export interface FetchRequest {
  url: string;
  /** Bounds the whole fetch (all redirects and the body): `livecrawlTimeout`. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Check robots.txt first (automated fetches: crawls, subpages, and /contents). Default true. */
  robots?: boolean;
  /** Validators of a cached copy: a 304 answer comes back as `notModified: true` with no body. */
  conditional?: { etag?: string; lastModified?: string };
  /** Crawls pass their politeness: at most this many requests per host at once, this delay between them. */
  politeness?: { perHostConcurrency: number; delayMs: number };
  /**
   * Render the page in the configured headless browser instead of reading the static response
   * (for pages whose static HTML has no content). `CRAWL_NEEDS_BROWSER` when no browser is configured.
   */
  render?: boolean;
  /**
   * Whose turn the host's slots are taken in: the waiters of one host are served round-robin between
   * tenants (default: the server's own work).
   */
  tenant?: string;
  /** Called when the fetch waited in a host's queue behind other requests: the host and the wait (ms). */
  onQueued?: (host: string, waitedMs: number) => void;
  /**
   * The logger of the request this fetch serves (default: the fetcher's): its lines follow that
   * request's rules, so a zero-retention team's name no URL (src/lib/content-free.ts).
   */
  logger?: Logger;
}

/** A successful fetch: the decoded body of the final URL after redirects. */
export interface RawResponse {
  /** The URL that was asked for. */
  requestedUrl: string;
  /** The URL after redirects. */
  url: string;
  status: number;
  /** Lower-cased response headers (only the last hop's). */
  headers: Record<string, string>;
  kind: ContentKind;
  /** The media type without parameters, e.g. `text/html`. */
  mediaType: string;
  /** Text kinds: the body decoded with its charset (header, BOM or `<meta>`). Empty for PDF. */
  text: string;
  /** PDF (and any binary kind): the raw body, base64. Empty for text kinds. */
  bodyBase64: string;
  /** The charset the text was decoded with (text kinds). */
  charset?: string;
  etag?: string;
  lastModified?: string;
  /** ISO time the response arrived. */
  fetchedAt: string;
  /** True when a conditional request got 304: body fields are empty, keep the cached copy. */
  notModified: boolean;
  /** True when the HTML came from a headless browser rather than the static response. */
  rendered?: boolean;
  /** Milliseconds from the first connect to the end of the body. */
  elapsedMs: number;
}

export interface Fetcher {
  /** Whether a browser is configured, i.e. whether `render: true` can succeed. */
  readonly canRender: boolean;
  /** Fetches one URL; throws `FetchError` with a crawl tag. */
  fetch(request: FetchRequest): Promise<RawResponse>;
  /** Whether robots.txt lets Trawl fetch this URL (cached per host). */
  allowedByRobots(url: string, signal?: AbortSignal): Promise<boolean>;
  close(): Promise<void>;
}

/** A page as a headless browser left it. */
export interface RenderedPage {
  /** The serialised DOM after scripts ran. */
  html: string;
  /** The URL after redirects (relative links resolve against it). */
  url: string;
  /** The main document's HTTP status. */
  status: number;
}

/** Renders a JavaScript page in a headless browser; absent when no browser is configured. */
export interface BrowserRenderer {
  /** Returns the rendered HTML of the page; throws `FetchError` (`CRAWL_NEEDS_BROWSER` when rendering fails). */
  render(url: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<string>;
  /** Like `render`, with the final URL and status; the fetcher prefers it when present. */
  renderPage?(url: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<RenderedPage>;
  close(): Promise<void>;
}
