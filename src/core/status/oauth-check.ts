/**
 * How people sign in, for the status report: Trawl's own authorization server (TRAWL_OAUTH), an external
 * one whose tokens are accepted (TRAWL_AUTH_ISSUER), and the organisation's identity provider people sign
 * in through on Trawl's page (TRAWL_OIDC_ISSUER). Each issuer is checked as the door uses it: its
 * metadata read (RFC 8414, then OpenID discovery), its `issuer` the configured one, a key set named.
 */
import { discoverJwksUri, metadataUrls } from '../accounts/oauth.js';
import { isLoopbackHostname } from '../../lib/loopback.js';
import { off, type ProbeDeps } from './probes.js';
import { publicUrl, scrub } from './redact.js';
import type { Check } from './report.js';

/** The settings the sign-in checks read. */
export interface OAuthSettings {
  host: string;
  port: number;
  oauth?: 'on' | 'off';
  oauthDcr?: boolean;
  publicUrl?: string;
  authIssuer?: string;
  oidcIssuer?: string;
}

/** An issuer's metadata and key set are found where the door looks for them. */
async function probeIssuer(name: string, issuer: string, setting: string, deps: ProbeDeps): Promise<Check> {
  const started = Date.now();
  const base = { name, configured: true, url: publicUrl(issuer) };
  try {
    const getJson = (url: string) =>
      deps.getJson<unknown>(url, {
        headers: { accept: 'application/json' },
        timeoutMs: deps.timeoutMs,
        signal: deps.signal,
      });
    const jwks = await discoverJwksUri({ issuer, audiences: [], getJson });
    return {
      ...base,
      state: 'ok',
      detail: `its metadata names it as ${setting} does, and its keys at ${publicUrl(jwks)}`,
      ms: Date.now() - started,
    };
  } catch (err) {
    const why = scrub(err instanceof Error ? err.message : String(err), deps.secrets);
    return {
      ...base,
      state: 'failed',
      detail: `no usable metadata at ${metadataUrls(issuer).map(publicUrl).join(' or ')}: ${why}`,
      ms: Date.now() - started,
    };
  }
}

/** Trawl's own authorization server: off, on (where its issuer is), or on but unreachable by name. */
function ownServerCheck(s: OAuthSettings): Check {
  const name = 'server';
  if (s.oauth !== 'on') {
    return off(
      name,
      'off: /mcp and the REST API take API keys (TRAWL_OAUTH=on makes Trawl its own authorization server)',
    );
  }
  if (!s.publicUrl && !isLoopbackHostname(s.host)) {
    return {
      name,
      configured: true,
      state: 'failed',
      detail: `on, but the listener is on ${s.host} and TRAWL_PUBLIC_URL is not set: /oauth answers 404, since its issuer cannot be named`,
    };
  }
  const base = s.publicUrl ?? `http://${s.host.includes(':') ? `[${s.host}]` : s.host}:${s.port}`;
  const clients = s.oauthDcr
    ? 'Client ID Metadata Documents and Dynamic Client Registration'
    : 'Client ID Metadata Documents (registration off)';
  return {
    name,
    configured: true,
    state: 'ok',
    url: publicUrl(`${base.replace(/\/+$/, '')}/oauth`),
    detail: `on: clients by ${clients}; sign-in with an API key${s.oidcIssuer ? ' or through the organisation’s issuer' : ''}`,
  };
}

/** Every sign-in check: the own server, the external issuer and the organisation's issuer, at once. */
export async function oauthChecks(s: OAuthSettings, deps: ProbeDeps): Promise<Check[]> {
  const [issuer, organisation] = await Promise.all([
    s.authIssuer
      ? probeIssuer('issuer', s.authIssuer, 'TRAWL_AUTH_ISSUER', deps)
      : off('issuer', 'no external authorization server (TRAWL_AUTH_ISSUER)'),
    s.oidcIssuer && s.oauth === 'on'
      ? probeIssuer('oidc', s.oidcIssuer, 'TRAWL_OIDC_ISSUER', deps)
      : off('oidc', 'no organisation sign-in (TRAWL_OIDC_ISSUER, with TRAWL_OAUTH=on)'),
  ]);
  return [ownServerCheck(s), issuer, organisation];
}
