/**
 * What a status report may show of a configured endpoint and of a provider's answer: URLs without
 * credentials or secret-looking query parameters, and texts with every configured secret blanked out.
 * The names and the blanking are src/lib/redact.ts's, which the logs use too.
 */
import { SECRET_PARAM, scrubSecrets } from '../../lib/redact.js';

/**
 * `raw` without user name, password, fragment and secret-looking query parameters; a value that is
 * not a URL is not shown at all. Never throws.
 */
export function publicUrl(raw: string): string {
  if (!URL.canParse(raw)) return '(not a valid URL)';
  const url = new URL(raw);
  url.username = '';
  url.password = '';
  url.hash = '';
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) url.searchParams.delete(name);
  }
  return url.href;
}

/** The credentials embedded in a URL (its password and any secret-looking query values), to scrub with. */
export function urlSecrets(raw: string | undefined): string[] {
  if (!raw || !URL.canParse(raw)) return [];
  const url = new URL(raw);
  const params = [...url.searchParams.entries()].filter(([name]) => SECRET_PARAM.test(name)).map(([, v]) => v);
  return [url.password, decodeURIComponent(url.password), ...params].filter((s) => s.length >= 4);
}

/** `text` with each of `secrets` (ignoring blanks and very short ones) replaced by `[redacted]`. */
export function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  return scrubSecrets(text, secrets);
}
