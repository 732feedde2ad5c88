/**
 * The Brave Search API as a web-search provider: `GET /res/v1/web/search` with the
 * `X-Subscription-Token` header, 20 results a page, paged by `offset` (in pages, 0–9).
 */
import { collectPages, dayOf, htmlToText, providerError, siteOperators, toHits, type Page } from './hits.js';
import type { GetJson, WebSearchProvider, WebSearchQuery } from './types.js';

export const BRAVE_SEARCH_URL = 'https://api.search.brave.com/res/v1/web/search';

export interface BraveProviderOptions {
  /** Subscription token; sent only in the `X-Subscription-Token` header. */
  apiKey: string;
  get: GetJson;
  /** Endpoint (default the public API); tests and proxies point it elsewhere. */
  url?: string;
  /** Clock of the open end of a `freshness` range and of the paging deadline (default `Date.now`). */
  now?: () => number;
}

interface BraveResult {
  url?: unknown;
  title?: unknown;
  description?: unknown;
  page_age?: unknown;
  age?: unknown;
}

interface BraveResponse {
  query?: { more_results_available?: unknown };
  web?: { results?: unknown };
}

/** Brave's documented `count` maximum, `offset` maximum, and `q` length limit. */
const PAGE_SIZE = 20;
const MAX_PAGES = 10;
const MAX_QUERY_CHARS = 400;

/** The `country` values Brave documents; others would be refused (422), so they are not sent. */
const COUNTRIES = new Set(
  'AR AU AT BE BR CA CL DK FI FR DE GR HK IN ID IT JP KR MY MX NL NZ NO CN PL PT PH RU SA ZA ES SE CH TW TR GB US'.split(
    ' ',
  ),
);

/** `YYYY-MM-DDtoYYYY-MM-DD` from the date filters; an open end is 1970-01-01 or today. */
function freshness(query: WebSearchQuery, now: number): string | undefined {
  const start = dayOf(query.startPublishedDate);
  const end = dayOf(query.endPublishedDate);
  if (!start && !end) return undefined;
  return `${start ?? '1970-01-01'}to${end ?? new Date(now).toISOString().slice(0, 10)}`;
}

/** Query parameters of one page; `site:` operators only when they fit Brave's 400-character `q`. */
function paramsFor(query: WebSearchQuery, index: number, now: number): URLSearchParams {
  const sites = siteOperators(query.includeDomains, query.excludeDomains);
  const withSites = sites ? `${query.query.trim()} ${sites}` : query.query.trim();
  const q = withSites.length <= MAX_QUERY_CHARS ? withSites : query.query.trim();
  const count = Math.min(PAGE_SIZE, query.numResults);
  const params = new URLSearchParams({ q, count: String(count), offset: String(index) });
  const country = query.userLocation?.toUpperCase();
  if (country && COUNTRIES.has(country)) params.set('country', country);
  const range = freshness(query, now);
  if (range) params.set('freshness', range);
  params.set('result_filter', 'web');
  params.set('text_decorations', 'false');
  return params;
}

function toPage(response: BraveResponse, count: number): Page {
  if (!response || typeof response !== 'object' || Array.isArray(response)) {
    throw new Error('the API answered something other than a search response');
  }
  const results = response.web?.results;
  if (results !== undefined && !Array.isArray(results)) throw new Error('the API answered web.results as a non-list');
  const items = ((results ?? []) as (BraveResult | null)[]).map((r) => ({
    url: r?.url,
    title: htmlToText(r?.title),
    snippet: htmlToText(r?.description),
    publishedDate: r?.page_age ?? r?.age,
  }));
  const more = response.query?.more_results_available;
  return { items, more: typeof more === 'boolean' ? more : items.length >= count };
}

/**
 * A Brave Search provider. Pushes down `includeDomains`/`excludeDomains` as `site:`/`-site:` operators (up
 * to 5 each, while `q` stays within 400 characters), the date filters as a `freshness` range, and
 * `userLocation` as `country` when Brave supports that country. Cannot push down `category` (Brave's
 * news and other verticals are separate endpoints) or countries outside its list.
 */
export function createBraveProvider(options: BraveProviderOptions): WebSearchProvider {
  const url = options.url ?? BRAVE_SEARCH_URL;
  const headers = { 'x-subscription-token': options.apiKey };
  const now = options.now ?? Date.now;
  return {
    name: 'brave',
    async search(query, signal) {
      const count = Math.min(PAGE_SIZE, query.numResults);
      const paging = { want: query.numResults, maxPages: MAX_PAGES, timeoutMs: query.timeoutMs, signal, now };
      try {
        const raws = await collectPages(paging, async (index, timeoutMs) => {
          const target = `${url}?${paramsFor(query, index, now()).toString()}`;
          return toPage(await options.get<BraveResponse>(target, { headers, timeoutMs, signal }), count);
        });
        return toHits('brave', raws, query.numResults);
      } catch (err) {
        throw providerError('brave', err, { secrets: [options.apiKey], signal });
      }
    },
  };
}
