/**
 * The HTTP exchange under the fetcher: one GET through the guarded undici Agent inside a host slot,
 * retried when transient, and a redirect chain where every hop is re-checked (scheme, guard, robots).
 */
import type { Agent } from 'undici';
import type { Logger } from '../lib/logger.js';
import type { AddressGuard } from './address-guard.js';
import { decodeContentEncoding, readBody, type BodyLimits } from './body.js';
import { isTransient } from './errors.js';
import type { HostLimiter, HostLimits } from './host-limiter.js';
import { parseRetryAfter, retryDelay, type RetryPolicy, type Sleep } from './retry.js';
import { robotsRefusal, type RobotsPolicy } from './robots.js';
import { FetchError } from './types.js';
import { quotedUrl } from '../lib/safe-text.js';
import { logUrl, parseFetchUrl } from './url-policy.js';

/** One response: lower-cased headers; the decoded body of 2xx answers, empty otherwise. */
export interface Hop {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Everything one fetch (or one robots.txt load) asks of the exchange. */
export interface Exchange {
  signal: AbortSignal;
  /** Epoch ms after which no retry is started. */
  deadline: number;
  headers: Record<string, string>;
  limits: BodyLimits;
  maxRedirects: number;
  /** Check robots.txt on every hop. */
  robots: boolean;
  /** Crawl politeness; otherwise the fetcher's default per-host concurrency and no delay. */
  politeness?: { perHostConcurrency: number; delayMs: number };
  /** The tenant whose turn the host slots are taken in (fair queueing), and who hears of a wait. */
  tenant?: string;
  onQueued?: (host: string, waitedMs: number) => void;
  /** The logger of the request (default: the transport's). */
  logger?: Logger;
}

export interface TransportDeps {
  agent: Agent;
  guard: AddressGuard;
  limiter: HostLimiter;
  robots: RobotsPolicy;
  retry: RetryPolicy;
  sleep: Sleep;
  now: () => number;
  defaultHostConcurrency: number;
  logger?: Logger;
}

export interface Transport {
  /** Follows `url` to a final answer; throws `FetchError` for refused, disallowed or looping chains. */
  follow(url: URL, exchange: Exchange): Promise<{ url: URL; hop: Hop }>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const EMPTY = Buffer.alloc(0);

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Creates the exchange over `deps.agent`. */
export function createTransport(deps: TransportDeps): Transport {
  const once = async (url: URL, ex: Exchange): Promise<Hop> => {
    const res = await deps.agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: ex.headers,
      signal: ex.signal,
    });
    const headers = flatten(res.headers);
    if (res.statusCode < 200 || res.statusCode >= 300) {
      // Only the status and headers matter; drain a little so the connection can be reused.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return { status: res.statusCode, headers, body: EMPTY };
    }
    const raw = await readBody(res.body, headers['content-length'], ex.limits, url.host);
    const body = await decodeContentEncoding(raw, headers['content-encoding'], ex.limits, url.host);
    return { status: res.statusCode, headers, body };
  };

  const hostLimits = (url: URL, ex: Exchange): HostLimits => {
    if (!ex.politeness) return { concurrency: deps.defaultHostConcurrency, delayMs: 0 };
    const crawlDelay = ex.robots ? (deps.robots.crawlDelayMs(url) ?? 0) : 0;
    return { concurrency: ex.politeness.perHostConcurrency, delayMs: Math.max(ex.politeness.delayMs, crawlDelay) };
  };

  const withRetries = async (url: URL, ex: Exchange): Promise<Hop> => {
    for (let attempt = 0; ; attempt++) {
      let hop: Hop | undefined;
      let error: unknown;
      try {
        hop = await deps.limiter.run(url.host, hostLimits(url, ex), () => once(url, ex), {
          signal: ex.signal,
          tenant: ex.tenant,
          onQueued: ex.onQueued && ((waitedMs) => ex.onQueued!(url.host, waitedMs)),
        });
      } catch (err) {
        if (ex.signal.aborted) throw err;
        error = err;
      }
      if (!(hop ? isTransient({ status: hop.status }) : isTransient({ error }))) {
        if (hop) return hop;
        throw error;
      }
      const retryAfter = hop ? parseRetryAfter(hop.headers['retry-after'], deps.now()) : undefined;
      const wait = retryDelay(deps.retry, attempt, ex.deadline - deps.now(), retryAfter);
      if (wait === undefined) {
        if (hop) return hop;
        throw error;
      }
      (ex.logger ?? deps.logger)?.debug(
        { url: logUrl(url), status: hop?.status, attempt: attempt + 1, waitMs: wait },
        'retrying',
      );
      await deps.sleep(wait, ex.signal);
    }
  };

  const nextHop = (location: string, from: URL): URL => {
    try {
      return parseFetchUrl(location, from);
    } catch (err) {
      const reason = err instanceof FetchError ? err.message : String(err);
      throw new FetchError('UNSUPPORTED_URL', `${quotedUrl(from)} redirects to a URL Trawl does not fetch: ${reason}`);
    }
  };

  return {
    async follow(start, ex) {
      const seen = new Set([start.href]);
      let url = start;
      for (let redirects = 0; ; redirects++) {
        deps.guard.checkHost(url.hostname);
        if (ex.robots && !(await deps.robots.check(url, ex.signal, ex.logger))) {
          throw new FetchError('CRAWL_ROBOTS_DISALLOWED', robotsRefusal(url));
        }
        const hop = await withRetries(url, ex);
        const location = REDIRECTS.has(hop.status) ? hop.headers.location : undefined;
        if (!location) return { url, hop };
        if (redirects >= ex.maxRedirects) {
          throw new FetchError(
            'CRAWL_TOO_MANY_REDIRECTS',
            `more than ${ex.maxRedirects} redirects from ${quotedUrl(start)}`,
          );
        }
        const next = nextHop(location, url);
        if (seen.has(next.href)) {
          throw new FetchError('CRAWL_TOO_MANY_REDIRECTS', `redirect loop at ${quotedUrl(next)}`);
        }
        seen.add(next.href);
        url = next;
      }
    },
  };
}
