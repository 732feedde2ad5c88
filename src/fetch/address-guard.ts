/**
 * The SSRF guard: refuses loopback, private, link-local, CGNAT, multicast, reserved and cloud metadata
 * addresses where the connection is made (DNS answers are checked inside `lookup`, so rebinding between
 * a check and the connect cannot slip through), plus literal-IP hosts and metadata host names up front.
 */
import dns from 'node:dns';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { buildConnector } from 'undici';
import { createIpSet, isMetadataIp, nonPublicIpReason } from '../lib/ip.js';
import { FetchError } from './types.js';

export interface AddressGuardOptions {
  /** Lifts the guard entirely (operator setting `TRAWL_ALLOW_PRIVATE_NETWORK`). */
  allowPrivateNetwork: boolean;
  /** IPs and CIDR ranges reachable even with the guard on (`TRAWL_PRIVATE_ALLOWLIST`). A metadata address must be listed as itself. */
  privateAllowlist: readonly string[];
  /** What lifts the policy (the settings to name), added to every refusal's message. */
  liftedBy?: string;
  /** How host names are resolved (default: the system resolver, `dns.lookup`); tests inject their own. */
  lookup?: HostLookup;
}

/** Resolves a host name to all of its addresses (the shape of `dns.lookup` with `all: true`). */
export type HostLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** The system resolver: `dns.lookup` looked up at each call, so a test's spy on it is honoured. */
export const systemLookup: HostLookup = (hostname) =>
  new Promise((resolve, reject) => {
    dns.lookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });

/** How an operator lets page fetches reach non-public addresses: named in the fetcher's refusals. */
export const PAGE_GUARD_LIFTED_BY =
  'set TRAWL_ALLOW_PRIVATE_NETWORK=true (flag --allow-private-network) to lift it, or list the address in TRAWL_PRIVATE_ALLOWLIST';

export interface AddressGuard {
  readonly enabled: boolean;
  /** Why the guard refuses to connect to `ip`, or undefined when it may. */
  refusal(ip: string): string | undefined;
  /** Throws `CRAWL_PRIVATE_ADDRESS` for a refused literal-IP host or a metadata host name; other names are checked when resolved. */
  checkHost(hostname: string): void;
  /** A `lookup` for net/tls connect (over the `lookup` option): drops refused addresses; fails with `CRAWL_PRIVATE_ADDRESS` when none is left. */
  readonly lookup: LookupFunction;
  /** Resolves `hostname` and throws `CRAWL_PRIVATE_ADDRESS` if ANY address is refused (for clients that connect themselves). */
  resolve(hostname: string): Promise<string[]>;
  /** An undici connector enforcing the guard: guarded lookup, and the connected peer re-checked. */
  connector(options: { timeoutMs: number }): buildConnector.connector;
}

/** Host names of metadata services, refused by name before any lookup. */
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

const bare = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

/** The address family a connect asked for (4 or 6), or undefined for either. */
const familyOf = (family: number | string | undefined) =>
  family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : undefined;

/** What the system resolver answers for a name without addresses. */
const notFound = (hostname: string) =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });

/** Builds the guard; throws (naming the entry) when an allowlist entry is not an IP or CIDR range. */
export function createAddressGuard(options: AddressGuardOptions): AddressGuard {
  const allow = createIpSet(options.privateAllowlist);
  const enabled = !options.allowPrivateNetwork;
  const lookupAll = options.lookup ?? systemLookup;
  const lift = options.liftedBy ? ` (${options.liftedBy})` : '';
  /** The refusal of `ip` (which `host` resolved to, when named). */
  const refused = (ip: string, why: string, host?: string) =>
    new FetchError(
      'CRAWL_PRIVATE_ADDRESS',
      `${host ? `${host} resolves to ${ip}, ` : `${ip} is `}${why}: refused by the private-network policy, Trawl does not fetch non-public addresses${lift}`,
    );

  const refusal = (ip: string): string | undefined => {
    if (!enabled) return undefined;
    const why = nonPublicIpReason(ip);
    if (!why) return undefined;
    // A broad range such as 169.254.0.0/16 must not open the metadata endpoint by accident.
    if (isMetadataIp(ip) ? allow.hasExact(ip) : allow.has(ip)) return undefined;
    return why;
  };

  const checkHost = (hostname: string): void => {
    if (!enabled) return;
    const host = bare(hostname);
    if (isIP(host)) {
      const why = refusal(host);
      if (why) throw refused(host, why);
    } else if (METADATA_NAMES.has(host)) {
      throw new FetchError('CRAWL_PRIVATE_ADDRESS', `${host} is a cloud metadata service; Trawl does not fetch it`);
    }
  };

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const family = familyOf(lookupOptions.family);
    const answered = (err: NodeJS.ErrnoException | null, found: { address: string; family: number }[] = []) => {
      if (err) return callback(err, '', 0);
      const addresses = family ? found.filter((a) => a.family === family) : found;
      if (addresses.length === 0) return callback(notFound(hostname), '', 0);
      const usable = addresses.filter((a) => !refusal(a.address));
      const first = usable[0];
      if (!first) {
        const ip = addresses[0]?.address ?? '';
        return callback(refused(ip, refusal(ip) ?? 'refused', hostname), '', 0);
      }
      if (lookupOptions.all) callback(null, usable);
      else callback(null, first.address, first.family);
    };
    lookupAll(hostname).then(
      (found) => answered(null, found),
      (err: NodeJS.ErrnoException) => answered(err),
    );
  };

  const resolve = async (hostname: string): Promise<string[]> => {
    const host = bare(hostname);
    checkHost(host);
    if (isIP(host)) return [host];
    const addresses = await lookupAll(host);
    for (const { address } of addresses) {
      const why = refusal(address);
      if (why) throw refused(address, why, host);
    }
    return addresses.map((a) => a.address);
  };

  const connector = ({ timeoutMs }: { timeoutMs: number }): buildConnector.connector => {
    const base = buildConnector({ timeout: timeoutMs, lookup });
    if (!enabled) return base;
    return (connectOptions, callback) =>
      base(connectOptions, (...args) => {
        const [err, socket] = args;
        if (err) return callback(err, null);
        // Literal IPs skip lookup; checking the peer catches any path that bypassed the checks above.
        const peer = (socket as Socket).remoteAddress ?? '';
        const why = refusal(peer);
        if (!why) return callback(null, socket);
        socket.destroy();
        callback(refused(peer, why), null);
      });
  };

  return { enabled, refusal, checkHost, lookup, resolve, connector };
}
