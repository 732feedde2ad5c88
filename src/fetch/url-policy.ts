/**
 * Which URLs the fetcher will request at all (http/https, no credentials, no ports of other protocols),
 * and how a URL appears in logs (no query string: it may hold tokens).
 */
import { jsonQuote } from '../lib/safe-text.js';
import { FetchError } from './types.js';

/** The Fetch standard's "bad ports": services (SMTP, IRC, ...) a web fetch must never talk to. */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/**
 * Parses `raw` (resolved against `base` for redirects); throws `UNSUPPORTED_URL` for a URL Trawl never
 * fetches. A redirect target that does not parse is not repeated: another server wrote it.
 */
export function parseFetchUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    const named = base ? 'the redirect target' : jsonQuote(raw.slice(0, 200));
    throw new FetchError('UNSUPPORTED_URL', `${named} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError('UNSUPPORTED_URL', `${url.protocol} URLs are not fetched; only http and https`);
  }
  if (url.username || url.password) {
    throw new FetchError('UNSUPPORTED_URL', 'URLs with credentials in them are not fetched');
  }
  if (url.port && BAD_PORTS.has(Number(url.port))) {
    throw new FetchError('UNSUPPORTED_URL', `port ${url.port} belongs to another protocol and is not fetched`);
  }
  url.hash = '';
  return url;
}

/** The URL for logs: origin and path, with any query replaced by `?…`. */
export function logUrl(url: URL | string): string {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return '(invalid URL)';
  }
}
