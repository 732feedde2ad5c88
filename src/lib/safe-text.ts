/**
 * The safe forms in which Trawl's own lines may name what another server chose: a media type or a
 * content coding only when it is a well-formed token (quoted), a URL only as the WHATWG parser
 * normalised it (JSON-quoted, query hidden). Anything else is named by what it is, never repeated: a
 * message outside a fence must not carry a page's, a model's or a receiver's words (docs/mcp.md).
 */

/** RFC 9110 `token`: the characters a header's type, subtype or coding may use. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}$`);
const SINGLE_TOKEN = new RegExp(`^${TOKEN}$`);

/** Longest media type or coding repeated in a message; longer ones are named as unrecognised. */
export const MAX_TOKEN_CHARS = 100;
/** Longest URL repeated in a message (its origin and path). */
export const MAX_URL_CHARS = 300;

/** `text` as a JSON string with `<` and `>` escaped too, so it cannot read as markup or a fence. */
export function jsonQuote(text: string): string {
  return JSON.stringify(text).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}

/**
 * A media type (`type/subtype`, parameters already dropped) as a message may name it: quoted when it
 * is a token pair of at most 100 characters, else `an unrecognised content type`.
 */
export function safeContentType(mediaType: string): string {
  const type = mediaType.trim();
  return type.length <= MAX_TOKEN_CHARS && MEDIA_TYPE.test(type) ? jsonQuote(type) : 'an unrecognised content type';
}

/**
 * A single token another server sent (a content coding), quoted when well-formed and at most 100
 * characters, else `what` (e.g. `an unrecognised content coding`).
 */
export function safeToken(token: string, what: string): string {
  const value = token.trim();
  return value.length <= MAX_TOKEN_CHARS && SINGLE_TOKEN.test(value) ? jsonQuote(value) : what;
}

/**
 * A URL as a message may name it: parsed and normalised by the WHATWG URL parser (which
 * percent-encodes spaces, quotes and angle brackets), without credentials, fragment or query (a query
 * becomes `?…`: it may hold tokens), JSON-quoted and at most 300 characters; `an invalid URL` when it does not parse.
 */
export function quotedUrl(url: URL | string): string {
  const href = typeof url === 'string' ? url : url.href;
  if (!URL.canParse(href)) return 'an invalid URL';
  const copy = new URL(href);
  const query = copy.search ? '?…' : '';
  copy.username = '';
  copy.password = '';
  copy.search = '';
  copy.hash = '';
  // opaque paths (`javascript:…`, `data:…`) keep their spaces through the parser: encode them here too
  const shown = `${copy.href}${query}`.replace(/\s/g, (c) => encodeURIComponent(c));
  const cut = shown.length > MAX_URL_CHARS ? `${shown.slice(0, MAX_URL_CHARS - 1)}…` : shown;
  return jsonQuote(cut);
}

/** A host as the URL parser writes it: DNS labels or an IPv4 address, or a bracketed IPv6 one, and a port. */
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * A host (`URL.host`) as a message may name it: as it is when it has only the characters a parsed host
 * has (letters, digits, dots, hyphens, a bracketed IPv6 address, a port) and at most 260 of them, else
 * `a host`. The URL parser already lower-cases names and writes others in punycode.
 */
export function safeHost(host: string): string {
  return host.length <= 260 && HOST.test(host) ? host : 'a host';
}
