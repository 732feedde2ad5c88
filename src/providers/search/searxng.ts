/**
 * SearXNG as a web-search provider: an instance's JSON API (`GET {base}/search?q=…&format=json`), which
 * its operator enables in settings.yml (`search.formats: [html, json]`; else the instance answers 403).
 */
import { collectPages, providerError, siteOperators, toHits, toIsoDate, type Page } from './hits.js';
import type { GetJson, WebSearchProvider, WebSearchQuery } from './types.js';

export interface SearxngProviderOptions {
  /** Instance root, e.g. `http://127.0.0.1:8888`; `user:pass@` in it becomes a Basic Authorization header. */
  baseUrl: string;
  get: GetJson;
  /** Clock of the `time_range` pushdown and the paging deadline (default `Date.now`). */
  now?: () => number;
  /** Result pages fetched at most to fill `numResults` (default 3; an instance gives 10–30 per page). */
  maxPages?: number;
}

interface SearxngResult {
  url?: unknown;
  title?: unknown;
  content?: unknown;
  publishedDate?: unknown;
  score?: unknown;
}

interface SearxngResponse {
  results?: unknown;
  unresponsive_engines?: unknown;
}

/** `/search` categories with a SearXNG counterpart; the rest search the instance's default (general). */
const CATEGORIES: Record<string, string> = { news: 'news', publication: 'science' };

const DAY_MS = 86_400_000;

/** The narrowest SearXNG `time_range` (relative to now) that still covers `start`, if any does. */
function timeRange(start: string | undefined, now: number): string | undefined {
  const iso = start === undefined ? null : toIsoDate(start);
  if (!iso) return undefined;
  const days = (now - Date.parse(iso)) / DAY_MS;
  if (days <= 1) return 'day';
  if (days <= 7) return 'week';
  if (days <= 31) return 'month';
  return days <= 366 ? 'year' : undefined;
}

/** The `/search` endpoint without credentials, and the Authorization header they become. */
function endpoint(baseUrl: string): { url: string; headers: Record<string, string>; secrets: string[] } {
  const base = new URL(baseUrl);
  const headers: Record<string, string> = {};
  const password = decodeURIComponent(base.password);
  const secrets: string[] = [];
  if (base.username || base.password) {
    const token = Buffer.from(`${decodeURIComponent(base.username)}:${password}`).toString('base64');
    headers.authorization = `Basic ${token}`;
    secrets.push(password, token);
    base.username = '';
    base.password = '';
  }
  base.search = '';
  base.hash = '';
  return { url: `${base.href.replace(/\/+$/, '')}/search`, headers, secrets };
}

/** `google (timeout), bing (CAPTCHA)` from SearXNG's `[[engine, reason], ...]`. */
function describeUnresponsive(value: unknown): string {
  if (!Array.isArray(value)) return '';
  return value
    .map((entry) => (Array.isArray(entry) ? `${String(entry[0])}${entry[1] ? ` (${String(entry[1])})` : ''}` : ''))
    .filter(Boolean)
    .join(', ');
}

function toPage(response: SearxngResponse, index: number): Page {
  if (!response || typeof response !== 'object' || !Array.isArray(response.results)) {
    throw new Error('the instance answered without a results list');
  }
  const results = response.results as (SearxngResult | null)[];
  const unresponsive = describeUnresponsive(response.unresponsive_engines);
  // Every engine failing (blocked, CAPTCHA, timeout) looks like "no results"; say so instead.
  if (index === 0 && results.length === 0 && unresponsive) throw new Error(`no engine answered: ${unresponsive}`);
  const items = results.map((r) => ({
    url: r?.url,
    title: r?.title,
    snippet: r?.content,
    publishedDate: r?.publishedDate,
    score: r?.score,
  }));
  return { items, more: items.length > 0 };
}

/**
 * A SearXNG provider. Pushes down `includeDomains`/`excludeDomains` as `site:`/`-site:` operators (up to 5
 * each), `startPublishedDate` as the narrowest covering `time_range` (day, week, month, year) and
 * `category` `news`/`publication` as the `news`/`science` categories. Cannot push down
 * `endPublishedDate`, older start dates, other categories, or `userLocation` (SearXNG's only regional
 * knob is the result language, which would drop results in the query's own language).
 */
export function createSearxngProvider(options: SearxngProviderOptions): WebSearchProvider {
  const { url, headers, secrets } = endpoint(options.baseUrl);
  const now = options.now ?? Date.now;
  const maxPages = Math.max(1, options.maxPages ?? 3);
  const paramsFor = (query: WebSearchQuery, page: number) => {
    const q = [query.query.trim(), siteOperators(query.includeDomains, query.excludeDomains)].filter(Boolean);
    const params = new URLSearchParams({ q: q.join(' '), format: 'json', pageno: String(page) });
    const category =
      query.category && Object.hasOwn(CATEGORIES, query.category) ? CATEGORIES[query.category] : undefined;
    if (category) params.set('categories', category);
    const range = timeRange(query.startPublishedDate, now());
    if (range) params.set('time_range', range);
    return params;
  };
  return {
    name: 'searxng',
    async search(query, signal) {
      try {
        const paging = { want: query.numResults, maxPages, timeoutMs: query.timeoutMs, signal, now };
        const raws = await collectPages(paging, async (index, timeoutMs) => {
          const target = `${url}?${paramsFor(query, index + 1).toString()}`;
          return toPage(await options.get<SearxngResponse>(target, { headers, timeoutMs, signal }), index);
        });
        return toHits('searxng', raws, query.numResults);
      } catch (err) {
        const forbidden = (err as { httpStatusCode?: unknown } | undefined)?.httpStatusCode === 403;
        const hint = forbidden ? " (is json in the instance's search.formats?)" : undefined;
        throw providerError('searxng', err, { secrets, signal, hint });
      }
    },
  };
}
