/**
 * robots.txt per RFC 9309, parsed by robots-parser: loaded once per origin (concurrent callers share
 * the load) and kept in a bounded in-memory LRU. 4xx = allow all; 5xx = disallow all; a site that
 * cannot be reached fails the check with the network error's tag (the page is not fetched either way).
 */
import robotsParserModule from 'robots-parser';
import type { Logger } from '../lib/logger.js';
import { quotedUrl } from '../lib/safe-text.js';
import { FetchError } from './types.js';

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
}

// The package is CommonJS whose module.exports is the parser; its typings declare an ES default
// export, which under NodeNext reads as the module object. At run time the default import is the function.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Robot;

/** What loading `/robots.txt` gave: the final status (after up to 5 redirects) and up to 500 KiB of body. */
export interface RobotsLoad {
  status: number;
  body: string;
}

export interface RobotsOptions {
  /** The product token matched against `User-agent` lines, e.g. `Trawl`. */
  productToken: string;
  /** Fetches a robots.txt URL through the guarded agent; throws `FetchError`. */
  load(robotsUrl: URL): Promise<RobotsLoad>;
  /** How long an answer is kept. Default 24 h (RFC 9309 §2.4). */
  ttlMs?: number;
  /** How long a 5xx or unreachable answer is kept before trying again. Default 10 min. */
  errorTtlMs?: number;
  /** Origins kept at most. Default 1000. */
  maxOrigins?: number;
  /** Cap on a honoured Crawl-delay. Default 10 s. */
  maxCrawlDelayMs?: number;
  now?: () => number;
  logger?: Logger;
}

type Verdict =
  { kind: 'rules'; robot: Robot } | { kind: 'allow' } | { kind: 'disallow' } | { kind: 'failed'; error: FetchError };

interface Entry {
  verdict: Verdict;
  expiresAt: number;
}

export interface RobotsPolicy {
  /** Whether the URL may be fetched; throws the `FetchError` that kept robots.txt from loading when the site is unreachable. */
  check(url: URL, signal?: AbortSignal, logger?: Logger): Promise<boolean>;
  /** The origin's Crawl-delay in ms (capped), when its robots.txt is loaded and names one. */
  crawlDelayMs(url: URL): number | undefined;
  /** How many times robots.txt was loaded over the network (for tests and stats). */
  readonly loads: number;
}

/** Errors that belong to one request (its deadline, its caller) rather than to the site: never cached. */
const REQUEST_SCOPED = new Set(['CRAWL_LIVECRAWL_TIMEOUT']);

/** Resolves with `promise` unless `signal` aborts first. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Creates the per-origin robots.txt policy. */
export function createRobotsPolicy(options: RobotsOptions): RobotsPolicy {
  const ttlMs = options.ttlMs ?? 24 * 3600_000;
  const errorTtlMs = options.errorTtlMs ?? 10 * 60_000;
  const maxOrigins = options.maxOrigins ?? 1000;
  const maxCrawlDelayMs = options.maxCrawlDelayMs ?? 10_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, Entry>();
  const inflight = new Map<string, Promise<Verdict>>();
  let loads = 0;

  const remember = (origin: string, verdict: Verdict) => {
    const failed = verdict.kind === 'failed' || verdict.kind === 'disallow';
    if (verdict.kind === 'failed' && REQUEST_SCOPED.has(verdict.error.tag)) return;
    cache.delete(origin);
    cache.set(origin, { verdict, expiresAt: now() + (failed ? errorTtlMs : ttlMs) });
    for (const oldest of cache.keys()) {
      if (cache.size <= maxOrigins) break;
      cache.delete(oldest);
    }
  };

  const fromCache = (origin: string): Verdict | undefined => {
    const entry = cache.get(origin);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      cache.delete(origin);
      return undefined;
    }
    cache.delete(origin);
    cache.set(origin, entry);
    return entry.verdict;
  };

  /** Loads the origin's robots.txt; `logger` (the first asker's, else the policy's) logs a failure. */
  const loadVerdict = async (origin: string, logger = options.logger): Promise<Verdict> => {
    loads++;
    try {
      const { status, body } = await options.load(new URL('/robots.txt', origin));
      if (status >= 200 && status < 300) return { kind: 'rules', robot: robotsParser(`${origin}/robots.txt`, body) };
      if (status >= 400 && status < 500) return { kind: 'allow' };
      return { kind: 'disallow' };
    } catch (err) {
      const error = err instanceof FetchError ? err : new FetchError('CRAWL_UNKNOWN_ERROR', String(err));
      // RFC 9309 §2.3.1.2: a robots.txt behind too many (or unusable) redirects counts as unavailable.
      if (error.tag === 'CRAWL_TOO_MANY_REDIRECTS' || error.tag === 'UNSUPPORTED_URL') return { kind: 'allow' };
      logger?.debug({ origin, tag: error.tag }, 'robots.txt unreachable');
      return {
        kind: 'failed',
        error: new FetchError(
          error.tag,
          `${error.message}, while reading ${quotedUrl(`${origin}/robots.txt`)}`,
          error.httpStatusCode,
        ),
      };
    }
  };

  const verdictFor = (origin: string, logger: Logger | undefined): Promise<Verdict> => {
    const cached = fromCache(origin);
    if (cached) return Promise.resolve(cached);
    let pending = inflight.get(origin);
    if (!pending) {
      pending = loadVerdict(origin, logger).then((verdict) => {
        remember(origin, verdict);
        return verdict;
      });
      pending.finally(() => inflight.delete(origin)).catch(() => undefined);
      inflight.set(origin, pending);
    }
    return pending;
  };

  return {
    async check(url, signal, logger) {
      const verdict = await raceSignal(verdictFor(url.origin, logger), signal);
      if (verdict.kind === 'failed') throw verdict.error;
      if (verdict.kind !== 'rules') return verdict.kind === 'allow';
      return verdict.robot.isAllowed(url.href, options.productToken) ?? true;
    },
    crawlDelayMs(url) {
      const entry = cache.get(url.origin);
      if (entry?.verdict.kind !== 'rules') return undefined;
      const seconds = entry.verdict.robot.getCrawlDelay(options.productToken);
      return seconds === undefined || !(seconds > 0) ? undefined : Math.min(seconds * 1000, maxCrawlDelayMs);
    },
    get loads() {
      return loads;
    },
  };
}

/** The message of a `CRAWL_ROBOTS_DISALLOWED` refusal of `url`. */
export function robotsRefusal(url: URL): string {
  return `disallowed by robots.txt: ${quotedUrl(`${url.origin}/robots.txt`)} does not let Trawl's user agent fetch ${quotedUrl(url)}`;
}
