/**
 * The filters of /search and /findSimilar as one predicate over index documents (and over provider
 * hits, which carry only a URL and maybe a date): domains, dates, category, moderation, exact text.
 */
import { categoryBit, hostOf } from './index-entry.js';
import type { DocFacts } from './doc-table.js';
import type { DocumentCategory } from './classify/index.js';

/** One `includeDomains` / `excludeDomains` entry, parsed. */
export interface DomainRule {
  host: string;
  /** `*.example.com`: subdomains only. */
  subdomainsOnly: boolean;
  /** `example.com/docs`: a path prefix on that host. */
  path: string | null;
}

/**
 * Parses a domain entry: `example.com` (the host and its subdomains), `*.example.com` (subdomains
 * only), `example.com/docs` (that host, paths under /docs). A scheme, `www.` and a trailing slash are ignored.
 */
export function parseDomain(entry: string): DomainRule {
  let s = entry
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '');
  const subdomainsOnly = s.startsWith('*.');
  if (subdomainsOnly) s = s.slice(2);
  const slash = s.indexOf('/');
  const host = (slash < 0 ? s : s.slice(0, slash)).replace(/^www\./, '').replace(/:\d+$/, '');
  const rawPath = slash < 0 ? '' : s.slice(slash).replace(/\/+$/, '');
  return { host, subdomainsOnly, path: rawPath && rawPath !== '/' ? rawPath : null };
}

/** True when `url` (whose host is `host`, without `www.`) falls under the rule. */
export function domainMatches(rule: DomainRule, host: string, url: () => string): boolean {
  const sub = host.endsWith(`.${rule.host}`);
  if (rule.subdomainsOnly ? !sub : host !== rule.host && !sub) return false;
  if (!rule.path) return true;
  if (host !== rule.host) return false;
  const path = URL.canParse(url()) ? new URL(url()).pathname.toLowerCase() : '';
  return path === rule.path || path.startsWith(`${rule.path}/`) || path.startsWith(`${rule.path}?`);
}

/** The filters a request sets, in a form both the index and provider hits can be checked against. */
export interface SearchFilters {
  includeDomains?: string[];
  excludeDomains?: string[];
  startPublishedDate?: string;
  endPublishedDate?: string;
  startCrawlDate?: string;
  endCrawlDate?: string;
  category?: DocumentCategory;
  moderation?: boolean;
  /** Documents holding the `includeText` phrase / the `excludeText` phrase in their first 1000 words. */
  includeIds?: IdMatcher;
  excludeIds?: IdMatcher;
}

/** A set of documents, asked one id at a time (a `Set<number>`, or a phrase checked on demand). */
export interface IdMatcher {
  has(id: number): boolean;
}

const time = (iso?: string) => (iso ? Date.parse(iso) : undefined);

/** One request's filters as checks over index documents and provider hits. */
export interface SearchFilter {
  /** Whether a filter needs the page itself (category, safety, exact text, crawl dates): provider hits must be read first. */
  readonly needsPage: boolean;
  /** Whether any filter is set that needs per-document facts. */
  readonly active: boolean;
  /** An index document. `url` is read only when a path-prefix rule needs it. */
  doc(id: number, facts: DocFacts, url: () => string): boolean;
  /** A provider hit before its page is read: what it carries (URL, maybe a date) is checked. */
  hit(url: string, publishedDate: string | null | undefined): boolean;
}

/** A checker for one request's filters. Documents without a published date fail a published-date filter. */
export function createFilter(filters: SearchFilters): SearchFilter {
  const include = filters.includeDomains?.map(parseDomain);
  const exclude = filters.excludeDomains?.map(parseDomain);
  const [pubFrom, pubTo] = [time(filters.startPublishedDate), time(filters.endPublishedDate)];
  const [crawlFrom, crawlTo] = [time(filters.startCrawlDate), time(filters.endCrawlDate)];
  const bit = filters.category ? categoryBit(filters.category) : 0;

  const domainsOk = (host: string, url: () => string) =>
    (!include || include.some((r) => domainMatches(r, host, url))) &&
    !(exclude && exclude.some((r) => domainMatches(r, host, url)));
  const publishedOk = (at: number | null) =>
    (pubFrom === undefined && pubTo === undefined) ||
    (at !== null && (pubFrom === undefined || at >= pubFrom) && (pubTo === undefined || at <= pubTo));
  const crawledOk = (at: number) =>
    (crawlFrom === undefined || at >= crawlFrom) && (crawlTo === undefined || at <= crawlTo);

  return {
    /** Whether a filter needs the page itself (category, safety, exact text, crawl dates): provider hits must be read first. */
    needsPage:
      Boolean(bit || filters.moderation || filters.includeIds || filters.excludeIds) ||
      crawlFrom !== undefined ||
      crawlTo !== undefined,
    /** Whether any filter is set that needs per-document facts. */
    active:
      Boolean(include || exclude || bit || filters.moderation || filters.includeIds || filters.excludeIds) ||
      [pubFrom, pubTo, crawlFrom, crawlTo].some((t) => t !== undefined),
    /** An index document. `url` is read only when a path-prefix rule needs it. */
    doc(id: number, facts: DocFacts, url: () => string): boolean {
      if (filters.includeIds && !filters.includeIds.has(id)) return false;
      if (filters.excludeIds?.has(id)) return false;
      if (bit && (facts.categories & bit) === 0) return false;
      if (filters.moderation && facts.unsafe) return false;
      return publishedOk(facts.publishedAt) && crawledOk(facts.crawledAt) && domainsOk(facts.host, url);
    },
    /** A provider hit before its page is read: what it carries (URL, maybe a date) is checked. */
    hit(url: string, publishedDate: string | null | undefined): boolean {
      const at = publishedDate ? Date.parse(publishedDate) : Number.NaN;
      return domainsOk(hostOf(url), () => url) && publishedOk(Number.isFinite(at) ? at : null);
    },
  };
}

/** The filter fields of a /search or /findSimilar request, with its text filters as phrases. */
export interface RequestFilters extends Omit<SearchFilters, 'includeIds' | 'excludeIds'> {
  includeText?: string[];
  excludeText?: string[];
}

/** The filter fields, listed once: the request filter, the plans and the providers' push-down read them. */
export const FILTER_FIELDS = [
  'includeDomains',
  'excludeDomains',
  'startPublishedDate',
  'endPublishedDate',
  'startCrawlDate',
  'endCrawlDate',
  'category',
  'moderation',
  'includeText',
  'excludeText',
] as const satisfies readonly (keyof RequestFilters)[];

/** The filters a web-search provider is asked to push down (it is filtered again afterwards). */
export const PROVIDER_FILTER_FIELDS = [
  'includeDomains',
  'excludeDomains',
  'startPublishedDate',
  'endPublishedDate',
  'category',
] as const satisfies readonly (typeof FILTER_FIELDS)[number][];

/** The filter fields of `request` (the fields it leaves undefined stay absent). */
export function filtersOf(request: Partial<Record<(typeof FILTER_FIELDS)[number], unknown>>): RequestFilters {
  const out: Record<string, unknown> = {};
  for (const field of FILTER_FIELDS) if (request[field] !== undefined) out[field] = request[field];
  return out as RequestFilters;
}

/**
 * The filter of a request: its text filters resolved to the documents holding the phrase (anywhere for
 * `includeText`, in the title or first 1000 words for `excludeText`) by `phraseMatches`.
 */
export function createRequestFilter(
  index: { phraseMatches(phrase: string, scope: 'all' | 'head'): IdMatcher },
  req: RequestFilters,
): SearchFilter {
  const { includeText, excludeText, ...rest } = req;
  return createFilter({
    ...rest,
    includeIds: includeText?.[0] ? index.phraseMatches(includeText[0], 'all') : undefined,
    excludeIds: excludeText?.[0] ? index.phraseMatches(excludeText[0], 'head') : undefined,
  });
}
