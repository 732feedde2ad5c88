/**
 * One page by a freshness mode: an imported or stored document from the store, a cached copy (the page
 * cache, else the store), or a live fetch through the admission queue, as the mode decides.
 */
import { FetchError } from '../../fetch/types.js';
import type { Logger } from '../../lib/logger.js';
import type { DocumentsRepo } from '../../store/documents.repo.js';
import type { Clock } from '../context.js';
import type { AdmissionQueue, QueueWait } from './admission.js';
import type { Freshness } from './freshness.js';
import type { LoadedPage, PagesService } from './pages.service.js';
import { parseBody } from './parse.js';
import { isImportUrl, normalizeUrl } from './url.js';

/** How a live fetch of one request runs. */
export interface LiveLoad {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Collects the admission queue's wait over all live fetches of one request. */
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
    const admitted = await deps.admission.run(
      () => deps.pages.fetchLive(url, { timeoutMs: opts.timeoutMs, signal: opts.signal, logger: opts.logger }),
      opts.signal,
    );
    if (admitted.queued) opts.queue.queued = true;
    opts.queue.waitedMs += admitted.waitedMs;
    return admitted.value;
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
