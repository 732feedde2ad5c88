/**
 * Page URLs come from the web and are hostile: only an http(s) URL may become a link (a `javascript:`,
 * `data:` or `vbscript:` URL stays text). The one check, used by the one link component (ExternalLink).
 */

/** The URL, normalised by the URL parser, when its protocol is http: or https:; else null. */
export function safeHref(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length > 8192) return null;
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
