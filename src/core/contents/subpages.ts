/**
 * Subpages: which of a page's links to follow. Same site only (the host without `www.`), no assets,
 * no self-links; ranked by how many `subpageTarget` keywords the URL path and anchor text contain,
 * then by their order on the page (main content links come first).
 */
import type { Page } from './page.js';
import { normalizeUrl, siteOf } from './url.js';

const ASSET =
  /\.(png|jpe?g|gif|webp|svg|ico|css|js|mjs|zip|gz|tgz|tar|rar|7z|exe|dmg|mp[34]|mov|avi|webm|woff2?|ttf)$/i;

/** Up to `count` same-site links of `page`, best first. */
export function pickSubpages(page: Page, count: number, target?: string | string[] | null): string[] {
  if (count <= 0) return [];
  const site = siteOf(page.url);
  const self = dedupKey(page.url);
  const keywords = (Array.isArray(target) ? target : target ? [target] : [])
    .flatMap((t) => t.toLowerCase().split(/\s+/))
    .filter(Boolean);
  const seen = new Set<string>(self ? [self] : []);
  const candidates: { url: string; score: number; order: number }[] = [];
  for (const link of page.links) {
    const key = dedupKey(link.url);
    if (!key || seen.has(key)) continue;
    const parsed = new URL(key);
    if (siteOf(key) !== site || ASSET.test(parsed.pathname)) continue;
    seen.add(key);
    const haystack = `${decodeURIComponent(parsed.pathname)} ${link.text}`.toLowerCase();
    const score = keywords.reduce((n, k) => n + (haystack.includes(k) ? 1 : 0), 0);
    candidates.push({ url: link.url, score, order: candidates.length });
  }
  candidates.sort((a, b) => b.score - a.score || a.order - b.order);
  return candidates.slice(0, count).map((c) => c.url);
}

/** One key per page of a site: `www.` and non-`www.` spellings of a URL are the same subpage. */
function dedupKey(url: string): string | undefined {
  const key = normalizeUrl(url);
  return key?.replace(/^(https?:\/\/)www\./, '$1');
}
