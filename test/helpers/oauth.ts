/**
 * Test helpers for Trawl's own authorization server: PKCE pairs, a cookie jar, and a browser-less walk
 * through the authorization (sign-in with a key, consent) over plain fetch, reading the real pages'
 * forms. The headless-browser walk is in test/e2e/oauth-flow.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The cookies a browser would keep (paths ignored; deletions honoured), and the raw Set-Cookie lines seen. */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  readonly seen: string[] = [];
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      this.seen.push(line);
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** A GET or form POST with the jar's cookies, redirects not followed. */
export async function send(
  jar: CookieJar,
  url: string,
  form?: Record<string, string>,
  origin?: string,
): Promise<Response> {
  const headers: Record<string, string> = { cookie: jar.header() };
  if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
  if (form && origin) headers.origin = origin;
  const res = await fetch(url, {
    method: form ? 'POST' : 'GET',
    headers,
    body: form ? new URLSearchParams(form).toString() : undefined,
    redirect: 'manual',
  });
  jar.take(res);
  return res;
}

/** A hidden field's value in a page. */
export const fieldOf = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`)
    .exec(html)?.[1]
    ?.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

/** A form's action in a page. */
export const actionOf = (html: string, ending: string) => new RegExp(`action="([^"]*/${ending})"`).exec(html)?.[1];

export interface AuthorizeOptions {
  base: string;
  clientId: string;
  redirectUri: string;
  key: string;
  scope?: string;
  resource?: string;
  challenge: string;
  jar?: CookieJar;
}

/** Follows redirects on the server (not to the client's redirect URI): the last response and its URL. */
export async function follow(
  jar: CookieJar,
  base: string,
  url: string,
  stopAt: string,
): Promise<{ res: Response; url: string }> {
  let at = url;
  for (let hops = 0; hops < 10; hops++) {
    const res = await send(jar, at);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { res, url: at };
    at = new URL(location, at).href;
    if (at.startsWith(stopAt)) return { res, url: at };
  }
  throw new Error(`too many redirects from ${url}`);
}

/** The authorization URL of a request. */
export function authorizationUrl(o: AuthorizeOptions, state = 'st-1'): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: o.clientId,
    redirect_uri: o.redirectUri,
    code_challenge: o.challenge,
    code_challenge_method: 'S256',
    state,
    ...(o.scope === undefined ? {} : { scope: o.scope }),
    ...(o.resource === undefined ? {} : { resource: o.resource }),
  });
  return `${o.base}/oauth/auth?${params}`;
}

/** Walks sign-in and consent with `key`: the URL the browser is finally sent to (the client's redirect URI). */
export async function authorize(
  o: AuthorizeOptions,
): Promise<{ redirect: string; jar: CookieJar; consentScopes: string[] }> {
  const jar = o.jar ?? new CookieJar();
  return walkSignIn(jar, o.base, authorizationUrl(o), o.redirectUri, o.key);
}

/**
 * From `start` (an authorization URL, or a client's own route that redirects to one), through the
 * sign-in with `key` and the consent, to the first URL under `stopAt`.
 */
export async function walkSignIn(
  jar: CookieJar,
  base: string,
  start: string,
  stopAt: string,
  key: string,
): Promise<{ redirect: string; jar: CookieJar; consentScopes: string[] }> {
  const o = { base, redirectUri: stopAt, key };
  let step = await follow(jar, o.base, start, o.redirectUri);
  let consentScopes: string[] = [];
  for (let pages = 0; pages < 4 && !step.url.startsWith(o.redirectUri); pages++) {
    const html = await step.res.text();
    const csrf = fieldOf(html, 'csrf');
    if (!csrf) throw new Error(`no form at ${step.url} (${step.res.status}): ${html.slice(0, 300)}`);
    const login = actionOf(html, 'login');
    const consent = actionOf(html, 'consent');
    if (consent) consentScopes = [...html.matchAll(/<li><code>([^<]*)<\/code><\/li>/g)].map((m) => m[1]!);
    const action = new URL((login ?? consent)!, o.base).href;
    const res = await send(jar, action, login ? { csrf, key: o.key } : { csrf, decision: 'allow' }, o.base);
    const location = res.headers.get('location');
    if (!location) throw new Error(`the form answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    step = await follow(jar, o.base, new URL(location, o.base).href, o.redirectUri);
  }
  return { redirect: step.url, jar, consentScopes };
}

/** A token endpoint answer as tests read it. */
type TokenBody = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A token endpoint call with form parameters. */
export async function tokenCall(
  base: string,
  params: Record<string, string>,
): Promise<{ status: number; body: TokenBody }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
