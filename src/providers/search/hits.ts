/**
 * What every web-search provider shares: turning raw results into normalised hits, dates, `site:` query
 * operators, paging within one deadline, and errors that name the provider and never its key.
 */
import { ServiceError } from '../../errors.js';
import { safeExcerpt } from '../../lib/redact.js';
import type { WebSearchHit } from './types.js';

/** A provider's result before normalisation; every field is whatever the provider sent. */
export interface RawHit {
  url: unknown;
  title: unknown;
  snippet?: unknown;
  publishedDate?: unknown;
  author?: unknown;
  score?: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '');

/** The URL when it is an absolute http(s) URL, else undefined. */
function httpUrl(value: unknown): URL | undefined {
  const raw = typeof value === 'string' ? value.trim() : '';
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url : undefined;
}

/** Two URLs naming one page within one list: scheme, `www.`, trailing slash and fragment aside. */
function duplicateKey(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.hostname.replace(/^www\./, '')}${url.port ? `:${url.port}` : ''}${path}${url.search}`;
}

/**
 * Normalised hits of one provider, in its order: absolute http(s) URLs only, whitespace-collapsed titles
 * (the URL when empty), first of duplicates kept, at most `limit`, ranked from 1.
 */
export function toHits(provider: string, raws: readonly RawHit[], limit: number): WebSearchHit[] {
  const hits: WebSearchHit[] = [];
  const seen = new Set<string>();
  for (const raw of raws) {
    if (hits.length >= limit) break;
    const url = httpUrl(raw.url);
    if (!url || seen.has(duplicateKey(url))) continue;
    seen.add(duplicateKey(url));
    const snippet = text(raw.snippet);
    const author = text(raw.author);
    const hit: WebSearchHit = {
      url: url.href,
      title: text(raw.title) || url.href,
      publishedDate: toIsoDate(raw.publishedDate),
      provider,
      rank: hits.length + 1,
    };
    if (snippet) hit.snippet = snippet;
    if (raw.author !== undefined) hit.author = author || null;
    if (typeof raw.score === 'number' && Number.isFinite(raw.score)) hit.score = raw.score;
    hits.push(hit);
  }
  return hits;
}

/**
 * An ISO 8601 date-time for a provider's date, or null. Zone-less values are UTC (providers send
 * `2024-05-01T10:00:00` meaning UTC); other forms (`May 1, 2024`) are read as UTC too.
 */
export function toIsoDate(value: unknown): string | null {
  if (typeof value !== 'string' || !value.trim()) return null;
  const v = value.trim();
  const isoNoZone = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v);
  const iso = /^\d{4}-\d{2}-\d{2}/.test(v);
  // Free-form dates need a four-digit year: the lenient parser reads `Version 2` as a date otherwise.
  if (!iso && !/\b(19|20)\d{2}\b/.test(v)) return null;
  const ms = isoNoZone ? Date.parse(`${v.replace(' ', 'T')}Z`) : iso ? Date.parse(v) : Date.parse(`${v} UTC`);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** `YYYY-MM-DD` of an ISO date or date-time, or undefined when it does not parse. */
export function dayOf(value: string | undefined): string | undefined {
  const iso = value === undefined ? null : toIsoDate(value);
  return iso?.slice(0, 10);
}

/** HTML fragments (Brave marks query terms with `<strong>`) as plain text. */
export function htmlToText(value: unknown): string {
  if (typeof value !== 'string') return '';
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return value.replace(/<[^>]*>/g, '').replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== '#') return entities[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** `example.com`, `*.example.com`, `https://example.com/docs/` → `example.com`, `example.com/docs`. */
function siteTerm(domain: string): string {
  return domain
    .trim()
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/^\*\./, '')
    .replace(/\/+$/, '');
}

/**
 * `site:` operators for the query string: `(site:a OR site:b)` for up to `max` include domains and
 * `-site:x` for up to `max` exclusions. More than `max` of a kind are not pushed down (the query would
 * grow past what engines accept); the search service filters every hit afterwards anyway.
 */
export function siteOperators(include: string[] = [], exclude: string[] = [], max = 5): string {
  const parts: string[] = [];
  const inc = include.map(siteTerm).filter(Boolean);
  if (inc.length === 1) parts.push(`site:${inc[0]}`);
  else if (inc.length > 1 && inc.length <= max) parts.push(`(${inc.map((d) => `site:${d}`).join(' OR ')})`);
  const exc = exclude.map(siteTerm).filter(Boolean);
  if (exc.length > 0 && exc.length <= max) parts.push(...exc.map((d) => `-site:${d}`));
  return parts.join(' ');
}

/** Longest excerpt of a provider's failure (its status line and error body) kept in the message. */
const REASON_CHARS = 300;

/**
 * The error a provider throws: `SERVICE_UNAVAILABLE` naming the provider, with every secret scrubbed
 * from the message (an API may echo a key in its error body), anything key-like too, the excerpt of the
 * error body bounded, and an optional hint for the operator.
 * A caller's cancellation passes through unchanged.
 */
export function providerError(
  provider: string,
  err: unknown,
  options: { secrets?: (string | undefined)[]; signal?: AbortSignal; hint?: string } = {},
): unknown {
  if (options.signal?.aborted) return err;
  const raw = err instanceof Error ? err.message : String(err);
  // the status and a short excerpt of the body, without the keys or anything key-like (it reaches logs)
  const message = safeExcerpt(raw, options.secrets ?? [], REASON_CHARS);
  // A cause whose message held a secret would carry it into logs; leave it off then.
  const cause = message === raw ? err : undefined;
  return new ServiceError(
    'SERVICE_UNAVAILABLE',
    `web search provider ${provider} failed: ${message}${options.hint ?? ''}`,
    {
      cause,
    },
  );
}

/** A page of raw results, and whether the provider says more exist. */
export interface Page {
  items: RawHit[];
  more: boolean;
}

/**
 * Fetches pages one after another until `want` usable hits (after `toHits`), `maxPages`, a page without
 * more, or the deadline of `timeoutMs` (each page gets the time left). The first page's failure throws;
 * a later page's failure ends the list with what came before, unless the caller cancelled.
 */
export async function collectPages(
  options: { want: number; maxPages: number; timeoutMs: number; signal?: AbortSignal; now: () => number },
  fetchPage: (index: number, timeoutMs: number) => Promise<Page>,
): Promise<RawHit[]> {
  const deadline = options.now() + options.timeoutMs;
  const items: RawHit[] = [];
  const enough = () => toHits('', items, options.want).length >= options.want;
  for (let index = 0; index < options.maxPages && !enough(); index++) {
    const left = deadline - options.now();
    if (index > 0 && left < 50) break;
    try {
      const page = await fetchPage(index, Math.max(1, left));
      items.push(...page.items);
      if (!page.more || page.items.length === 0) break;
    } catch (err) {
      if (index === 0 || options.signal?.aborted) throw err;
      break;
    }
  }
  return items;
}
