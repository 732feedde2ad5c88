/**
 * URL normalisation: the key under which a page is cached and stored. Two spellings of one address
 * share a cache entry; addresses that may serve different pages never do.
 */

/** Query parameters that only track the visitor; dropped so they do not split the cache. */
const TRACKING = /^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmkt|yclid|igshid)$/i;

/**
 * The normalised form of an http(s) URL, or undefined when `input` is not one.
 * Rules: scheme and host lower-cased (WHATWG parsing also decodes odd IPv4 spellings and IDNs to
 * punycode), default port dropped, fragment dropped, tracking parameters dropped, remaining query
 * parameters sorted by name (stable), an empty query removed, an empty path written `/`.
 * Path case and trailing slashes are kept: servers may treat them as different pages.
 */
export function normalizeUrl(input: string): string | undefined {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  url.hash = '';
  const params = [...url.searchParams].filter(([name]) => !TRACKING.test(name));
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  url.search = params.length ? new URLSearchParams(params).toString() : '';
  return url.href;
}

/** Whether a URL names an imported record (never fetched; served from the document store). */
export function isImportUrl(input: string): boolean {
  return input.startsWith('import://');
}

/** The host with a leading `www.` removed: pages of one site for subpages and crawls. */
export function siteOf(url: string): string {
  return new URL(url).hostname.replace(/^www\./, '');
}
