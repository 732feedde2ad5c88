/**
 * One page by a freshness mode: an imported or stored document from the store, a cached copy (the page
 * cache, else the store), or a live fetch through the admission queue, as the mode decides.
 */
import { FetchError } from '../../fetch/types.js';
import type { Logger } from '../../lib/logger.js';
import type { DocumentsRepo } from '../../store/contracts/documents.js';
import type { Clock } from '../context.js';
import { quotedUrl } from '../../lib/safe-text.js';
import { noteWait, type AdmissionQueue, type QueueWait } from './admission.js';
import type { Freshness } from './freshness.js';
import type { LoadedPage, PagesService } from './pages.service.js';
import { parseBody } from './parse.js';
import { isImportUrl, normalizeUrl } from './url.js';

/** How a live fetch of one request runs. */
export interface LiveLoad {
  /** The fetch's deadline (`livecrawlTimeout`), counted from when it asks for admission: queue waits included. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Whose turn the fetch takes in the admission queue and the host's queue (`tenantOf(ctx)`). */
  tenant: string;
  /** Collects the waits behind other work (admission and host queues) over all live fetches of one request. */
  queue: QueueWait;
  /** The request's logger, which the fetch logs with (a zero-retention team's names no URL). */
  logger?: Logger;
}

/** What loading a page reads from. */
export interface LoadDeps {
  pages: PagesService;
  documents: DocumentsRepo;
  admission: AdmissionQueue;
  clock: Clock;
}

/** A page of `target` by `freshness`; throws a `FetchError` (a per-URL failure) when there is none. */
export type LoadPage = (target: string, freshness: Freshness, live: LiveLoad) => Promise<LoadedPage>;

/** The page loader over the page cache, the documents store and live fetches. */
export function createLoader(deps: LoadDeps): LoadPage {
  const live = async (url: string, opts: LiveLoad): Promise<LoadedPage> => {
    // the deadline runs from the ask: a fetch admitted late gets only what is left of it
    const deadline = AbortSignal.timeout(opts.timeoutMs);
    const whileQueued = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
    let admitted = false;
    const fetchLive = (waitedMs: number) => {
      admitted = true;
      return deps.pages.fetchLive(url, {
        timeoutMs: Math.max(1, opts.timeoutMs - waitedMs),
        signal: opts.signal,
        logger: opts.logger,
        tenant: opts.tenant,
        onQueued: (host, ms) => noteWait(opts.queue, ms, host),
      });
    };
    try {
      const run = await deps.admission.run(opts.tenant, fetchLive, whileQueued);
      if (run.queued) noteWait(opts.queue, run.waitedMs);
      return run.value;
    } catch (err) {
      if (admitted || !deadline.aborted || opts.signal?.aborted) throw err;
      noteWait(opts.queue, opts.timeoutMs);
      throw new FetchError(
        'CRAWL_LIVECRAWL_TIMEOUT',
        `${quotedUrl(url)}: time-out: the fetch waited its whole ${opts.timeoutMs} ms limit in the queue of live fetches behind other work (TRAWL_FETCH_CONCURRENCY)`,
      );
    }
  };

  const fromStore = async (key: string): Promise<LoadedPage | undefined> => {
    const doc = await deps.documents.get(key);
    if (!doc) return undefined;
    const page = await parseBody({ url: doc.url, kind: 'markdown', text: doc.text });
    return {
      page: { ...page, title: doc.title || page.title, author: doc.author, publishedDate: doc.publishedDate },
      fetchedAt: doc.fetchedAt,
      source: 'cached',
    };
  };

  return async (target: string, freshness: Freshness, opts: LiveLoad): Promise<LoadedPage> => {
    if (isImportUrl(target)) {
      const stored = await fromStore(target);
      if (stored) return stored;
      throw new FetchError(
        'CRAWL_NOT_FOUND',
        `${target} is not in the document store (import:// URLs are never fetched)`,
      );
    }
    const key = normalizeUrl(target);
    if (!key) {
      // An id that is not a URL can only name a stored document.
      const stored = await deps.documents.get(target);
      if (stored) return (await fromStore(stored.url)) ?? notFound(target);
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        throw new FetchError('UNSUPPORTED_URL', `${target} is not an http(s) URL Trawl can fetch`);
      }
      notFound(target);
    }
    const cachedCopy = async () => (await deps.pages.cached(key)) ?? (await fromStore(key));
    switch (freshness.mode) {
      case 'cache-only': {
        const copy = await cachedCopy();
        if (copy) return copy;
        throw new FetchError('SOURCE_NOT_AVAILABLE', `${target} is not cached and this request allows the cache only`);
      }
      case 'live':
        return live(key, opts);
      case 'live-preferred':
        try {
          return await live(key, opts);
        } catch (err) {
          const copy = await cachedCopy();
          if (!copy) throw err;
          const why = err instanceof FetchError ? `${err.tag}: ${err.message}` : 'it failed';
          return { ...copy, note: `The live fetch failed (${why}); this is the cached copy of ${copy.fetchedAt}.` };
        }
      case 'max-age': {
        const copy = await cachedCopy();
        if (copy && deps.clock.now().getTime() - Date.parse(copy.fetchedAt) < freshness.maxAgeMs) return copy;
        return live(key, opts);
      }
      case 'fallback':
        return (await cachedCopy()) ?? live(key, opts);
    }
  };
}

function notFound(target: string): never {
  throw new FetchError('CRAWL_NOT_FOUND', `${target} is not in the document store`);
}
