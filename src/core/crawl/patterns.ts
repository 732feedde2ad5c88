/**
 * URL patterns of `trawl crawl --include/--exclude`: shell-style globs over URLs, compiled to anchored
 * regular expressions once per crawl.
 */

/**
 * Compiles one glob: `*` matches any run of characters (slashes included), `?` one character, anything
 * else itself. A pattern starting with `/` matches the URL's path and query (`/docs/*`); any other
 * pattern matches the whole normalised URL (`https://example.com/docs/*`, `*.pdf`, `*?page=*`).
 */
export function compileGlob(pattern: string): (url: URL) => boolean {
  let source = '';
  for (const ch of pattern) {
    if (ch === '*') source += source.endsWith('.*') ? '' : '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[.+^${}()|[\]\\/]/g, '\\$&');
  }
  const re = new RegExp(`^${source}$`, 's');
  if (pattern.startsWith('/')) return (url) => re.test(url.pathname + url.search);
  return (url) => re.test(url.href);
}

/** A URL passes when it matches at least one include (if any are given) and no exclude. */
export function createUrlFilter(include: readonly string[], exclude: readonly string[]): (url: string) => boolean {
  const inc = include.map(compileGlob);
  const exc = exclude.map(compileGlob);
  return (href) => {
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return false;
    }
    if (inc.length > 0 && !inc.some((m) => m(url))) return false;
    return !exc.some((m) => m(url));
  };
}
