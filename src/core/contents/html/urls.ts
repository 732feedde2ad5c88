/**
 * Resolves the page's relative links and image sources against its base URL, caching per raw value
 * (pages repeat the same hrefs many times and `new URL` is the extractor's most expensive call).
 */

const HTTP = /^https?:$/;

/** Resolves hrefs/srcs against one base; only absolute http(s) URLs come out. */
export class UrlResolver {
  private readonly cache = new Map<string, string | null>();
  private readonly base: URL | null;
  private readonly pageNoHash: string;

  constructor(base: string, pageUrl: string = base) {
    this.base = safeUrl(base) ?? safeUrl(pageUrl);
    this.pageNoHash = pageUrl.split('#')[0] ?? pageUrl;
  }

  /** The absolute http(s) URL for `raw`, or null (javascript:, mailto:, data:, malformed, empty). */
  resolve(raw: string | undefined): string | null {
    if (!raw) return null;
    const href = raw.trim();
    if (!href) return null;
    let hit = this.cache.get(href);
    if (hit !== undefined) return hit;
    hit = null;
    const colon = href.indexOf(':');
    const scheme = colon > 0 && colon < 12 ? href.slice(0, colon).toLowerCase() : '';
    if (!scheme || scheme === 'http' || scheme === 'https') {
      try {
        const url = this.base ? new URL(href, this.base) : new URL(href);
        if (HTTP.test(url.protocol)) hit = url.href;
      } catch {
        hit = null;
      }
    }
    this.cache.set(href, hit);
    return hit;
  }

  /** The absolute URL of a link to another page: null for same-page anchors (`#top`) and non-http links. */
  linkTarget(raw: string | undefined): string | null {
    if (!raw || raw.trimStart().startsWith('#')) return null;
    const url = this.resolve(raw);
    if (!url) return null;
    const hash = url.indexOf('#');
    return hash >= 0 && url.slice(0, hash) === this.pageNoHash ? null : url;
  }
}

function safeUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}
