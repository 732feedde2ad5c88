/**
 * Every request a rendered page makes goes through here, over the guarded undici Agent, and the answer
 * is handed back to Chromium with `route.fulfill`. `route.continue()` would not be safe: Playwright's
 * route handlers never see redirect hops, and Chromium would resolve names itself (DNS rebinding).
 */
import type { BrowserContext, Request, Route } from 'playwright-core';
import type { Agent, Dispatcher } from 'undici';
import type { AddressGuard } from './address-guard.js';
import { decodeContentEncoding, readBody } from './body.js';
import { toFetchError } from './errors.js';
import { FetchError } from './types.js';
import { parseFetchUrl } from './url-policy.js';

export interface PageProxyOptions {
  agent: Agent;
  guard: AddressGuard;
  /** Cap on each resource. */
  maxResourceBytes: number;
  /** Aborts every request in flight when the render ends. */
  signal: AbortSignal;
  /** The main document answered a redirect: the renderer navigates there itself (so the page URL is right). */
  onDocumentRedirect(url: string): void;
  /** The main document could not be fetched (refused, unreachable): the render fails with this error. */
  onDocumentError(error: FetchError): void;
}

const SKIPPED_RESOURCES = new Set(['image', 'media', 'font']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;
/** Request headers the Agent sets itself, or that belong to one connection. */
const UNFORWARDED = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'te',
  'upgrade',
]);
/** Credentials that must not follow a redirect to another origin. */
const CREDENTIALS = ['cookie', 'authorization', 'proxy-authorization'];
/** Response headers that no longer hold once the body is decoded and handed over whole. */
const UNRETURNED = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

const single = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

const isMainDocument = (request: Request) => request.isNavigationRequest() && request.frame().parentFrame() === null;

async function requestHeaders(request: Request): Promise<Record<string, string>> {
  const headers: Record<string, string> = { 'accept-encoding': 'gzip, br, deflate' };
  for (const [name, value] of Object.entries(await request.allHeaders())) {
    if (!UNFORWARDED.has(name) && name !== 'accept-encoding' && !name.startsWith(':')) headers[name] = value;
  }
  return headers;
}

function responseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || UNRETURNED.has(name)) continue;
    // Playwright takes repeated headers (Set-Cookie) joined by newlines.
    out[name] = Array.isArray(value) ? value.join(name === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}

/** Fetches one routed request (following subresource redirects here, each hop guarded) and fulfills it. */
async function forward(route: Route, options: PageProxyOptions): Promise<void> {
  const request = route.request();
  const main = isMainDocument(request);
  let url = parseFetchUrl(request.url());
  let method = request.method();
  let body = request.postDataBuffer();
  const headers = await requestHeaders(request);
  for (let hops = 0; ; hops++) {
    options.guard.checkHost(url.hostname);
    const res = await options.agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: method as Dispatcher.HttpMethod,
      headers,
      signal: options.signal,
      ...(body ? { body } : {}),
    });
    const location = REDIRECTS.has(res.statusCode) ? single(res.headers.location) : undefined;
    const limits = { maxBytes: options.maxResourceBytes, overflow: 'error' as const };
    if (!location) {
      const raw = await readBody(res.body, single(res.headers['content-length']), limits, url.host);
      const decoded = await decodeContentEncoding(raw, single(res.headers['content-encoding']), limits, url.host);
      return route.fulfill({ status: res.statusCode, headers: responseHeaders(res.headers), body: decoded });
    }
    await res.body.dump().catch(() => undefined);
    const next = parseFetchUrl(location, url);
    if (main) {
      options.onDocumentRedirect(next.href);
      return route.fulfill({ status: 200, contentType: 'text/html', body: '' });
    }
    if (hops >= MAX_REDIRECTS) throw new FetchError('CRAWL_TOO_MANY_REDIRECTS', `more than ${MAX_REDIRECTS} redirects`);
    // The Fetch standard: 303, and 301/302 after POST, continue as a GET without a body.
    if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
      method = 'GET';
      body = null;
    }
    if (next.origin !== url.origin) for (const name of CREDENTIALS) delete headers[name];
    url = next;
  }
}

/** Routes all of `context`'s requests through the guarded Agent; WebSockets are refused outright. */
export async function proxyPageRequests(context: BrowserContext, options: PageProxyOptions): Promise<void> {
  await context.routeWebSocket(/.*/, (ws) => ws.close());
  await context.route('**/*', async (route: Route) => {
    const request = route.request();
    try {
      if (SKIPPED_RESOURCES.has(request.resourceType())) return await route.abort('blockedbyclient');
      await forward(route, options);
    } catch (err) {
      if (isMainDocument(request)) options.onDocumentError(toFetchError(err, new URL(request.url()).host));
      await route.abort('blockedbyclient').catch(() => undefined);
    }
  });
}
