/**
 * The authorization server's pages: sign-in (paste an API key of your team), consent (the client, its
 * redirect host and the scopes), and errors. Server-rendered HTML without script, every value escaped,
 * under a strict Content-Security-Policy (no script, no frames, only this inline style by its hash).
 */
import { createHash } from 'node:crypto';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}input[type=password]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{font:inherit;padding:.5rem 1rem;margin:.75rem .5rem 0 0}.error{color:#a00}code{background:#eee;padding:0 .2rem}
ul{padding-left:1.2rem}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** The headers every page of the authorization server carries. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  // no form-action: the consent's redirect to the client (any loopback port) must not be blocked
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'`,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** `text` as HTML text or attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)} · Trawl</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** The sign-in form of interaction `uid`. */
export function signInPage(p: {
  uid: string;
  csrf: string;
  clientName: string;
  error?: string;
  federated?: boolean;
}): string {
  const error = p.error ? `<p class="error" role="alert">${escapeHtml(p.error)}</p>` : '';
  const federated = p.federated
    ? `<p><a id="federated" href="/oauth/interaction/${encodeURIComponent(p.uid)}/federated">Sign in with your organisation</a></p><p>Or:</p>`
    : '';
  return page(
    'Sign in',
    `<h1>Sign in to Trawl</h1>
<p><strong>${escapeHtml(p.clientName)}</strong> asks to use Trawl on your behalf.</p>
<p>Paste an API key of your team (<code>trawl_…</code>). It is checked here and is never given to the application.</p>
${federated}${error}<form method="post" action="/oauth/interaction/${encodeURIComponent(p.uid)}/login">
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
<label for="key">API key</label>
<input id="key" name="key" type="password" autocomplete="off" required>
<button type="submit">Sign in</button></form>`,
  );
}

/** The consent form of interaction `uid`. */
export function consentPage(p: {
  uid: string;
  csrf: string;
  clientName: string;
  redirectHost: string;
  keyName: string;
  scopes: readonly string[];
}): string {
  const scopes = p.scopes.length
    ? `<ul>${p.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>`
    : '<p>No scope: the key holds none of the scopes asked for.</p>';
  return page(
    'Allow access',
    `<h1>Allow access?</h1>
<p><strong>${escapeHtml(p.clientName)}</strong> (returning to <code>${escapeHtml(p.redirectHost)}</code>) asks to use Trawl
as the key <strong>${escapeHtml(p.keyName)}</strong>, with these scopes:</p>${scopes}
<form method="post" action="/oauth/interaction/${encodeURIComponent(p.uid)}/consent">
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></form>`,
  );
}

/** An error page: what went wrong and what to do, never internals. */
export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
