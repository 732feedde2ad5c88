/**
 * The console's session cookie (docs/console.md#signing-in): an opaque value, `HttpOnly` (the page's
 * script never reads it), `SameSite=Strict` (no other site's page sends it), `Path=/` (the console calls
 * the REST routes themselves), `Secure` when the server is reached over https. A request it authenticates
 * must also echo the session's CSRF token in `x-trawl-csrf`, and a browser's Origin and Fetch-Metadata
 * headers, when sent, must say the request comes from this server's own pages.
 */
import { HttpError } from '../http-error.js';

export const SESSION_COOKIE = 'trawl_session';
export const CSRF_HEADER = 'x-trawl-csrf';

/** The value of cookie `name` in a Cookie header, if any. */
export function cookieOf(headers: Headers, name: string): string | undefined {
  const header = headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A Set-Cookie value for cookie `name`: `value` for `maxAgeS` seconds (0: cleared). */
export function setCookie(
  name: string,
  value: string,
  options: { maxAgeS: number; secure: boolean; sameSite?: 'Strict' | 'Lax'; path?: string },
): string {
  return [
    `${name}=${value}`,
    `Path=${options.path ?? '/'}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeS))}`,
    'HttpOnly',
    `SameSite=${options.sameSite ?? 'Strict'}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

const crossSite = (message: string) => new HttpError('FORBIDDEN_ORIGIN', message);

/**
 * Refuses (403 FORBIDDEN_ORIGIN) a cookie-authenticated request a browser sent from another site: its
 * Origin, when present, must name the host the request was sent to (or the public URL's), and its
 * `Sec-Fetch-Site`, when present, must be `same-origin` (or `none`: typed by the person).
 */
export function requireSameOrigin(headers: Headers, publicUrl: string | undefined): void {
  const site = headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') {
    throw crossSite(`A console session is only honoured for the console's own pages (Sec-Fetch-Site: ${site}).`);
  }
  const origin = headers.get('origin');
  if (!origin) return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw crossSite("A console session is only honoured for the console's own pages (the Origin is not a URL).");
  }
  const hosts = [headers.get('host'), publicUrl ? new URL(publicUrl).host : undefined];
  if (!hosts.includes(host)) {
    throw crossSite(`A console session is only honoured for the console's own pages (Origin ${origin}).`);
  }
}
