/**
 * DNS-rebinding guard for /mcp: the Host header must name this server (loopback names when it listens
 * on loopback, or the operator's list), and a browser Origin must be loopback or allowed.
 */
import { ServiceError } from '../errors.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const isLoopbackHost = (host: string) =>
  host === 'localhost' || host.startsWith('127.') || host === '::1' || host === '[::1]';

/** Hostname of a Host header value, without port. */
function hostname(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  return h.split(':')[0] ?? '';
}

export interface OriginGuardOptions {
  listenHost: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

/** Returns a checker that throws FORBIDDEN_ORIGIN (403) for a request that may come through DNS rebinding. */
export function createOriginGuard(options: OriginGuardOptions): (headers: Headers) => void {
  const hosts = new Set(options.allowedHosts.map((h) => hostname(h)));
  if (hosts.size === 0 && isLoopbackHost(options.listenHost)) LOOPBACK_NAMES.forEach((h) => hosts.add(h));
  const origins = new Set(options.allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, '')));
  return (headers) => {
    const host = headers.get('host');
    if (hosts.size > 0 && (!host || !hosts.has(hostname(host)))) {
      throw new ServiceError(
        'FORBIDDEN_ORIGIN',
        `Host "${host ?? ''}" is not allowed for /mcp; set TRAWL_ALLOWED_HOSTS to serve other names.`,
      );
    }
    const origin = headers.get('origin');
    if (!origin || origin === 'null') return;
    let originHost: string;
    try {
      originHost = new URL(origin).hostname;
    } catch {
      throw new ServiceError('FORBIDDEN_ORIGIN', `Origin "${origin}" is not a valid origin.`);
    }
    if (isLoopbackHost(originHost) || originHost === '[::1]') return;
    if (!origins.has(origin.toLowerCase())) {
      throw new ServiceError(
        'FORBIDDEN_ORIGIN',
        `Origin "${origin}" is not allowed for /mcp; add it to TRAWL_ALLOWED_ORIGINS to permit it.`,
      );
    }
  };
}
