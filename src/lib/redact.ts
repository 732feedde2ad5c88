/**
 * What a log line (or a status report) may show of a URL or of a text that came from outside: URLs
 * without user name and password, secret-looking query parameters blanked, and key-like tokens removed.
 */

/** Query parameter names that carry credentials in practice (`api_key`, `token`, `sig`, `X-Amz-Signature`, ...). */
export const SECRET_PARAM = /key|token|secret|pass|auth|sig|credential|session|cookie|code/i;

const CENSOR = '[redacted]';

/**
 * `raw` without user name, password and fragment, the values of secret-looking query parameters
 * replaced by `[redacted]` (names kept, so a log still says which parameter was sent). A value that is
 * not a URL comes back unchanged. Never throws.
 */
export function redactUrl(raw: string): string {
  if (!URL.canParse(raw)) return raw;
  const url = new URL(raw);
  if (!url.username && !url.password && !url.hash && !url.search) return raw;
  url.username = '';
  url.password = '';
  url.hash = '';
  for (const name of new Set(url.searchParams.keys())) {
    if (SECRET_PARAM.test(name)) url.searchParams.set(name, CENSOR);
  }
  return url.href.replaceAll(encodeURIComponent(CENSOR), CENSOR);
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
const AUTH_SCHEME = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/g;
const SECRET_FIELD =
  /(["']?[\w-]*(?:key|token|secret|passw(?:or)?d|pwd|sig(?:nature)?|auth(?:orization)?|credential|session)[\w-]*["']?\s*[:=]\s*)(?!\[redacted\])(?:"[^"]*"|'[^']*'|[^\s,;&"'}\]]+)/gi;
const VENDOR_KEY =
  /\b(?:sk|pk|rk)[-_](?:[a-z]+[-_])?[A-Za-z0-9_-]{12,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bAKIA[0-9A-Z]{16}\b/g;
const LONG_TOKEN = /\b[A-Za-z0-9_-]{32,}\b/g;

/** A long run that mixes upper case, lower case and digits looks like a key; hex ids and words do not. */
const keyLike = (token: string) => /[A-Z]/.test(token) && /[a-z]/.test(token) && /\d/.test(token);

/**
 * `text` with every URL passed through `redactUrl`, and `Bearer …` values, `key=…`/`"token": "…"`
 * values, vendor-prefixed keys (`sk-…`, `ghp_…`) and long mixed-case tokens replaced by `[redacted]`.
 */
export function redactText(text: string): string {
  return text
    .replace(URL_IN_TEXT, (url) => redactUrl(url))
    .replace(AUTH_SCHEME, (_m, scheme: string) => `${scheme} ${CENSOR}`)
    .replace(SECRET_FIELD, (_m, name: string) => `${name}${CENSOR}`)
    .replace(VENDOR_KEY, CENSOR)
    .replace(LONG_TOKEN, (token) => (keyLike(token) ? CENSOR : token));
}

/** `text` with each of `secrets` (ignoring blanks and very short ones) replaced by `[redacted]`. */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join(CENSOR);
  }
  return out;
}

/**
 * A short reason to log from a provider's error text: whitespace folded, known `secrets` and anything
 * key-like removed, at most `max` characters.
 */
export function safeExcerpt(text: string, secrets: readonly (string | undefined)[] = [], max = 200): string {
  // a configured key is blanked whatever its length (scrubSecrets skips short strings)
  const scrubbed = secrets.reduce<string>((t, secret) => (secret ? t.split(secret).join(CENSOR) : t), text);
  const folded = redactText(scrubbed.replace(/\s+/g, ' ').trim());
  return folded.length > max ? `${folded.slice(0, max - 1)}…` : folded;
}
