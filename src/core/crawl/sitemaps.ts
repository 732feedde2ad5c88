/**
 * Sitemap discovery for crawls: the `Sitemap:` lines of each seed origin's robots.txt plus
 * `/sitemap.xml`, followed through sitemap indexes (XML, plain-text and gzipped sitemaps).
 */
import { gunzipSync } from 'node:zlib';
import type { Logger } from '../../lib/logger.js';
import { FetchError, type Fetcher, type FetchRequest, type RawResponse } from '../../fetch/types.js';

/** At most this many sitemap files per crawl (indexes included), and this many URLs taken from them. */
export const MAX_SITEMAP_FILES = 50;
export const MAX_SITEMAP_URLS = 100_000;

/** How sitemap discovery fetches: time-out, robots.txt, politeness, signal, logger. */
export interface SitemapOptions {
  timeoutMs: number;
  robots: boolean;
  politeness: NonNullable<FetchRequest['politeness']>;
  signal?: AbortSignal;
  logger: Logger;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const LOC = /<(?:[\w-]+:)?loc>\s*(?:<!\[CDATA\[)?\s*([^<]*?)\s*(?:\]\]>)?\s*<\/(?:[\w-]+:)?loc>/gi;
const INDEX = /<(?:[\w-]+:)?sitemapindex[\s>]/i;

/** The `Sitemap:` URLs of a robots.txt body. */
export function sitemapsInRobots(body: string): string[] {
  const out: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const m = /^\s*sitemap\s*:\s*(\S+)/i.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/** Parses a sitemap body: whether it is an index (its entries are sitemaps) and the URLs it lists. */
export function parseSitemap(body: string): { index: boolean; locs: string[] } {
  const trimmed = body.trimStart();
  if (!trimmed.startsWith('<')) {
    // sitemaps.org allows a plain-text sitemap: one URL per line.
    const locs = trimmed.split(/\r?\n/).map((l) => l.trim());
    return { index: false, locs: locs.filter((l) => /^https?:\/\//i.test(l)) };
  }
  const locs = [...body.matchAll(LOC)].map((m) => decodeEntities(m[1]!)).filter(Boolean);
  return { index: INDEX.test(body), locs };
}

/** The body of a sitemap response as text, gunzipping `.gz` sitemaps whichever way they were served. */
function bodyText(raw: RawResponse): string {
  if (raw.bodyBase64) {
    const bytes = Buffer.from(raw.bodyBase64, 'base64');
    const plain = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes, { maxOutputLength: 64 << 20 }) : bytes;
    return plain.toString('utf8');
  }
  return raw.text;
}

async function fetchText(fetcher: Fetcher, url: string, robots: boolean, o: SitemapOptions): Promise<string> {
  const raw = await fetcher.fetch({
    url,
    timeoutMs: o.timeoutMs,
    signal: o.signal,
    robots,
    politeness: o.politeness,
  });
  return bodyText(raw);
}

/**
 * The page URLs listed by the sitemaps of the seeds' origins, in sitemap order, deduplicated. A sitemap
 * that fails to load is skipped (logged at debug): sitemaps are a hint, links still drive the crawl.
 */
export async function discoverSitemapUrls(fetcher: Fetcher, seeds: readonly string[], o: SitemapOptions) {
  const origins = [...new Set(seeds.map((s) => new URL(s).origin))];
  const pending: string[] = [];
  for (const origin of origins) {
    try {
      pending.push(...sitemapsInRobots(await fetchText(fetcher, `${origin}/robots.txt`, false, o)));
    } catch (err) {
      if (o.signal?.aborted) throw err;
      o.logger.debug({ origin, err: describe(err) }, 'no robots.txt');
    }
    pending.push(`${origin}/sitemap.xml`);
  }
  const seen = new Set<string>();
  const urls = new Set<string>();
  let files = 0;
  while (pending.length > 0 && files < MAX_SITEMAP_FILES && urls.size < MAX_SITEMAP_URLS) {
    const sitemap = pending.shift()!;
    if (seen.has(sitemap)) continue;
    seen.add(sitemap);
    files++;
    try {
      const { index, locs } = parseSitemap(await fetchText(fetcher, sitemap, o.robots, o));
      for (const loc of locs) {
        if (index) pending.push(loc);
        else if (urls.size < MAX_SITEMAP_URLS) urls.add(loc);
      }
    } catch (err) {
      if (o.signal?.aborted) throw err;
      o.logger.debug({ sitemap, err: describe(err) }, 'sitemap skipped');
    }
  }
  return { urls: [...urls], sitemaps: files };
}

function describe(err: unknown): string {
  if (err instanceof FetchError) return `${err.tag}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
