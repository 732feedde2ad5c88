/**
 * Pages: the one way the core gets a page. Live fetches go through the fetcher (SSRF guard, robots,
 * timeouts), are extracted, cached with their raw response and stored as documents; cached pages are
 * read back (and re-extracted from the raw response when the extractor has changed since).
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../../lib/logger.js';
import { createLru } from '../../lib/lru.js';
import { observe, since, timed } from '../../lib/observe.js';
import { quotedUrl } from '../../lib/safe-text.js';
import type { PageStore } from '../documents/documents.types.js';
import { FetchError, type Fetcher, type FetchRequest, type RawResponse } from '../../fetch/types.js';
import type { Clock } from '../context.js';
import { PAGE_MODEL_VERSION, type Page } from './page.js';
import { pageDocumentFields } from './page-document.js';
import type { PdfReader } from './formats/pdf-reader.js';
import { parseRaw } from './parse.js';
import { mainText } from './render.js';
import { normalizeUrl } from './url.js';
import type { CacheStore } from '../../store/contracts/cache.js';

/** A page as the core hands it on: where it came from and when it was fetched. */
export interface LoadedPage {
  page: Page;
  /** ISO time of the fetch the page came from. */
  fetchedAt: string;
  source: 'cached' | 'crawled';
  /** Why this page is poorer than asked (a cached copy served because the live fetch failed). */
  note?: string;
}

interface PageEntry {
  page: Page;
  fetchedAt: string;
}

export interface LiveOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  politeness?: FetchRequest['politeness'];
  /** Whose turn the fetch takes in the host's queue, and who hears of a wait there (FetchRequest). */
  tenant?: string;
  onQueued?: FetchRequest['onQueued'];
  /** The logger of the request the page is fetched for (default: the service's). */
  logger?: Logger;
}

export interface PagesService {
  /** The cached page for a URL, or undefined. Never touches the network. */
  cached(url: string): Promise<LoadedPage | undefined>;
  /** Fetches live (conditional when a copy is cached), extracts, caches and stores; throws FetchError. */
  fetchLive(url: string, options: LiveOptions): Promise<LoadedPage>;
}

export interface PagesDeps {
  fetcher: Fetcher;
  cache: CacheStore;
  /** Where pages are stored: searchable, with their code examples in the code index. */
  documents: PageStore;
  clock: Clock;
  logger: Logger;
  robots: boolean;
  /** Where PDFs are read, under the app's limits (default: a process-wide reader with the default limits). */
  pdf?: PdfReader;
}

/** Cache namespaces: the extracted page (hot path) and the raw response it was extracted from. */
const RAW_VERSION = 1;
/** Pages kept in memory in front of the SQLite cache; the TTL lets other processes' writes show. */
const HOT_PAGES = 512;
const HOT_TTL_MS = 60_000;

export function createPagesService(deps: PagesDeps): PagesService {
  const pages = deps.cache.namespace<PageEntry>('page', PAGE_MODEL_VERSION);
  const raws = deps.cache.namespace<RawResponse>('raw', RAW_VERSION);
  const hot = createLru<PageEntry>(HOT_PAGES, HOT_TTL_MS);

  const keyOf = (url: string): string => {
    const key = normalizeUrl(url);
    if (!key) throw new FetchError('UNSUPPORTED_URL', `${url} is not an http(s) URL Trawl can fetch`);
    return key;
  };

  /**
   * Stores the page as a document, then caches it. In that order: a cached page is answered (and
   * reported stored) without another write, so a page whose document write failed (the store
   * unreachable for a moment) must not be cached, or the request tried again would answer success from
   * the cache for a page the store never got (bench/soak.mjs found 2 of 50 across a PostgreSQL restart).
   */
  const remember = async (keys: string[], raw: RawResponse, page: Page): Promise<void> => {
    const text = mainText(page);
    await deps.documents.upsert(
      {
        url: page.url,
        title: page.title,
        ...pageDocumentFields(page, text, {
          image: page.image,
          favicon: page.favicon,
          language: page.language,
          description: page.description,
          requestedUrl: raw.requestedUrl,
          rendered: raw.rendered ?? false,
        }),
        origin: 'fetch',
        collection: null,
        contentHash: createHash('sha256').update(text).digest('hex'),
        fetchedAt: raw.fetchedAt,
      },
      deps.clock.now().toISOString(),
    );
    const entry: PageEntry = { page, fetchedAt: raw.fetchedAt };
    for (const key of keys) hot.set(key, entry);
    await Promise.all(keys.flatMap((key) => [pages.set(key, entry), raws.set(key, raw)]));
  };

  /** JavaScript shells: render with the browser when there is one, else say what is missing. */
  const renderIfNeeded = async (raw: RawResponse, page: Page, options: LiveOptions, started: number) => {
    if (!page.needsBrowser || raw.kind !== 'html') return { raw, page };
    if (!deps.fetcher.canRender) {
      throw new FetchError(
        'CRAWL_NEEDS_BROWSER',
        `${quotedUrl(raw.url)} builds its content with JavaScript and no browser is configured (set TRAWL_BROWSER to a Chromium executable)`,
      );
    }
    const rendering = performance.now();
    const rendered = await deps.fetcher.fetch({
      url: raw.url,
      timeoutMs: Math.max(1, options.timeoutMs - (Date.now() - started)),
      signal: options.signal,
      robots: deps.robots,
      politeness: options.politeness,
      render: true,
      tenant: options.tenant,
      onQueued: options.onQueued,
      logger: options.logger,
    });
    observe.fetchStage('render', since(rendering));
    return { raw: rendered, page: { ...(await parseRaw(rendered, deps.pdf)), needsBrowser: false } };
  };

  return {
    async cached(url) {
      const key = normalizeUrl(url);
      if (!key) return undefined;
      const entry = hot.get(key) ?? (await pages.get(key));
      if (entry) {
        hot.set(key, entry);
        observe.pageCache(true);
        return { page: entry.page, fetchedAt: entry.fetchedAt, source: 'cached' };
      }
      // The page model changed since this URL was cached: re-extract from the kept raw response.
      const raw = await raws.get(key);
      observe.pageCache(raw !== undefined);
      if (!raw) return undefined;
      const page = await parseRaw(raw, deps.pdf);
      hot.set(key, { page, fetchedAt: raw.fetchedAt });
      await pages.set(key, { page, fetchedAt: raw.fetchedAt });
      return { page, fetchedAt: raw.fetchedAt, source: 'cached' };
    },

    async fetchLive(url, options) {
      const key = keyOf(url);
      const started = Date.now();
      const previous = await raws.get(key);
      const conditional =
        previous && !previous.rendered && (previous.etag || previous.lastModified)
          ? { etag: previous.etag, lastModified: previous.lastModified }
          : undefined;
      const fetching = performance.now();
      const response = await deps.fetcher.fetch({
        url,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        robots: deps.robots,
        conditional,
        politeness: options.politeness,
        tenant: options.tenant,
        onQueued: options.onQueued,
        logger: options.logger,
      });
      // Ages are measured with the app's clock (injected), so the fetch is stamped with it too.
      observe.fetchStage('fetch', since(fetching));
      const fetchedAt = deps.clock.now().toISOString();
      const fresh: RawResponse =
        response.notModified && previous ? { ...previous, fetchedAt } : { ...response, fetchedAt };
      const parsed = await timed('fetchStageSeconds', ['extract'], () => parseRaw(fresh, deps.pdf));
      const done = await renderIfNeeded(fresh, parsed, options, started);
      const raw: RawResponse = { ...done.raw, fetchedAt };
      const page = done.page;
      const finalKey = normalizeUrl(raw.url);
      await timed('fetchStageSeconds', ['store'], () =>
        remember(finalKey && finalKey !== key ? [key, finalKey] : [key], raw, page),
      );
      (options.logger ?? deps.logger).debug(
        { url: page.url, kind: page.kind, ms: Date.now() - started },
        'page fetched',
      );
      return { page, fetchedAt: raw.fetchedAt, source: 'crawled' };
    },
  };
}
