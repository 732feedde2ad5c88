/**
 * DNS-rebinding guard for /mcp: the Host header must name this server (loopback names when it listens
 * on loopback, or the operator's list), and a browser Origin must be loopback or allowed. Hosts and
 * origins are compared after parsing, exactly (scheme, host and port), never by prefix.
 */
import { ServiceError } from '../errors.js';
import { isLoopbackHostname } from '../lib/loopback.js';

/** A Host header value: a name or IPv4 literal, or a bracketed IPv6 literal, and an optional port. */
const HOST_VALUE = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The hostname a Host header names (lowercase, IPv6 in brackets, no port), or undefined when it is not a host. */
export function hostOf(value: string): string | undefined {
  const v = value.trim();
  if (!HOST_VALUE.test(v)) return undefined;
  try {
    return new URL(`http://${v}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * The origin an Origin header (or a configured origin) names, as `scheme://host[:port]` (lowercase,
 * default port dropped, one trailing `/` tolerated); undefined when it is not an origin (userinfo, a
 * path, a query, a fragment, no host).
 */
export function originOf(value: string): string | undefined {
  const v = value.trim();
  if (/[@?#\s]/.test(v)) return undefined;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return undefined;
  }
  if (!url.host || (url.pathname !== '' && url.pathname !== '/')) return undefined;
  // not url.origin: it is "null" for every non-http(s) scheme, which would make them all equal
  return `${url.protocol}//${url.host}`;
}

/** An http(s) origin on a loopback name, any port. */
function isLoopbackOrigin(origin: string): boolean {
  const url = new URL(origin);
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHostname(url.hostname);
}

/** What the guard checks Host and Origin against. */
export interface OriginGuardOptions {
  listenHost: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /** /mcp answers without a key (TRAWL_MCP_KEYLESS): `Origin: null` is refused as well. */
  keyless?: boolean;
}

const forbidden = (message: string) => new ServiceError('FORBIDDEN_ORIGIN', message);

/** Returns a checker that throws FORBIDDEN_ORIGIN (403) for a request that may come through DNS rebinding. */
export function createOriginGuard(options: OriginGuardOptions): (headers: Headers) => void {
  const hosts = new Set(options.allowedHosts.map((h) => hostOf(h) ?? h.trim().toLowerCase()));
  const loopbackHostsOnly = hosts.size === 0 && isLoopbackHostname(options.listenHost);
  const origins = new Set(options.allowedOrigins.map((o) => originOf(o) ?? o.trim().toLowerCase()));

  const checkHost = (host: string | null) => {
    if (hosts.size === 0 && !loopbackHostsOnly) return; // a public bind without a list: the operator's proxy decides
    const name = host === null ? undefined : hostOf(host);
    const ok = name !== undefined && (loopbackHostsOnly ? isLoopbackHostname(name) : hosts.has(name));
    if (!ok) {
      throw forbidden(`Host "${host ?? ''}" is not allowed for /mcp; set TRAWL_ALLOWED_HOSTS to serve other names.`);
    }
  };

  const checkOrigin = (value: string | null) => {
    if (value === null) return; // not a browser
    if (value.trim() === 'null') {
      if (!options.keyless) return;
      throw forbidden(
        'Origin "null" (a sandboxed or file: page) is refused while /mcp answers without a key (TRAWL_MCP_KEYLESS).',
      );
    }
    const origin = originOf(value);
    if (origin === undefined) throw forbidden(`Origin "${value}" is not a valid origin.`);
    if (isLoopbackOrigin(origin) || origins.has(origin)) return;
    throw forbidden(`Origin "${value}" is not allowed for /mcp; add it to TRAWL_ALLOWED_ORIGINS to permit it.`);
  };

  return (headers) => {
    checkHost(headers.get('host'));
    checkOrigin(headers.get('origin'));
  };
}
