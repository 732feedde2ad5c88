/**
 * Which addresses are public. Used to refuse webhook URLs that point at this machine or a private
 * network (by literal address and by name here), and by the fetcher's SSRF guard on resolved addresses.
 */
import { BlockList, isIP } from 'node:net';

type Range = readonly [net: string, prefix: number];

/** Non-public ranges by the phrase that names them, checked in this order (metadata first). */
const RANGES: ReadonlyArray<readonly [label: string, v4: readonly Range[], v6: readonly Range[]]> = [
  [
    'a cloud metadata address',
    [
      ['169.254.169.254', 32],
      ['169.254.170.2', 32],
      ['100.100.100.200', 32],
      ['168.63.129.16', 32],
    ],
    [['fd00:ec2::254', 128]],
  ],
  ['an unspecified address', [['0.0.0.0', 8]], [['::', 128]]],
  ['a loopback address', [['127.0.0.0', 8]], [['::1', 128]]],
  [
    'a private address',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ],
    [
      ['fc00::', 7],
      ['64:ff9b:1::', 48],
    ],
  ],
  ['a link-local address', [['169.254.0.0', 16]], [['fe80::', 10]]],
  ['a shared (CGNAT) address', [['100.64.0.0', 10]], []],
  ['a multicast address', [['224.0.0.0', 4]], [['ff00::', 8]]],
  [
    'a reserved address',
    [
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['192.88.99.0', 24],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['240.0.0.0', 4],
    ],
    [
      ['::', 96],
      ['100::', 64],
      ['2001:2::', 48],
      ['2001:10::', 28],
      ['2001:20::', 28],
      ['2001:db8::', 32],
      ['3fff::', 20],
      ['fec0::', 10],
    ],
  ],
];

const LISTS = RANGES.map(([label, v4, v6]) => {
  const list = new BlockList();
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return [label, list] as const;
});

/** Strips URL brackets and an IPv6 zone id (`fe80::1%eth0`). */
function bareIp(ip: string): string {
  return ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
}

/** The eight 16-bit groups of a valid IPv6 literal (a trailing dotted quad is folded in). */
function ipv6Groups(ip: string): number[] {
  let text = ip;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((group) => parseInt(group, 16));
}

const v4Of = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 addresses an IPv6 address carries, and whether it is simply another spelling of them. */
function embedded(bare: string): { v4: string[]; sameHost: boolean } {
  const g = ipv6Groups(bare);
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g5 === 0xffff) return { v4: [v4Of(g6, g7)], sameHost: true };
  if (zeros(0, 4) && g4 === 0xffff && g5 === 0) return { v4: [v4Of(g6, g7)], sameHost: true };
  if (g0 === 0x64 && g1 === 0xff9b && zeros(2, 6)) return { v4: [v4Of(g6, g7)], sameHost: false };
  if (g0 === 0x2002) return { v4: [v4Of(g1, g2)], sameHost: false };
  if (g0 === 0x2001 && g1 === 0) return { v4: [v4Of(g2, g3), v4Of(g6 ^ 0xffff, g7 ^ 0xffff)], sameHost: false };
  return { v4: [], sameHost: false };
}

/**
 * The IPv4 addresses an IPv6 address carries and would reach: IPv4-mapped and -translated
 * (`::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`), and Teredo's
 * server and (obfuscated) client. Empty for other addresses.
 */
export function embeddedIpv4(ip: string): string[] {
  const bare = bareIp(ip);
  return isIP(bare) === 6 ? embedded(bare).v4 : [];
}

/**
 * Why `ip` is not a globally routable unicast address, as a phrase ("a loopback address", "a form of
 * 10.0.0.1, a private address"), or undefined when it is public. Not an IP literal: a phrase too.
 */
export function nonPublicIpReason(ip: string): string | undefined {
  const bare = bareIp(ip);
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const { v4, sameHost } = embedded(bare);
    for (const inner of v4) {
      const why = nonPublicIpReason(inner);
      if (why) return `a form of ${inner}, ${why}`;
    }
    // A mapped public v4 is that public address; the v6 table would misfile it under ::/96.
    if (sameHost) return undefined;
  }
  const type = family === 6 ? 'ipv6' : 'ipv4';
  for (const [label, list] of LISTS) if (list.check(bare, type)) return label;
  return undefined;
}

/** True when `ip` (v4 or v6 literal) is a globally routable unicast address. */
export function isPublicIp(ip: string): boolean {
  return nonPublicIpReason(ip) === undefined;
}

/** True for the cloud metadata endpoints (AWS, GCP, Azure, Alibaba), in any IPv6 form too. */
export function isMetadataIp(ip: string): boolean {
  return nonPublicIpReason(ip)?.endsWith('a cloud metadata address') ?? false;
}

/** A set of IP addresses and CIDR ranges; `exact` answers only for single addresses listed as such. */
export interface IpSet {
  has(ip: string): boolean;
  hasExact(ip: string): boolean;
}

/** Parses `entries` (`10.0.0.5`, `10.1.0.0/16`, `fd00::/8`, `[::1]`); throws naming the first invalid one. */
export function createIpSet(entries: readonly string[]): IpSet {
  const ranges = new BlockList();
  const exact = new BlockList();
  for (const raw of entries) {
    const match = /^\[?([^\]/]+)\]?(?:\/(\d{1,3}))?$/.exec(raw.trim());
    const addr = match?.[1] ?? '';
    const family = isIP(addr);
    const max = family === 6 ? 128 : 32;
    const prefix = match?.[2] === undefined ? max : Number(match[2]);
    if (family === 0 || prefix > max) throw new Error(`"${raw}" is not an IP address or CIDR range`);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === max) exact.addAddress(addr, type);
    ranges.addSubnet(addr, prefix, type);
  }
  const check = (list: BlockList, ip: string) => {
    const bare = bareIp(ip);
    const family = isIP(bare);
    return family !== 0 && list.check(bare, family === 6 ? 'ipv6' : 'ipv4');
  };
  return { has: (ip) => check(ranges, ip), hasExact: (ip) => check(exact, ip) };
}

/** Why a URL's host is not a public endpoint, or undefined when it may be one. */
export function nonPublicHostReason(hostname: string): string | undefined {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (isIP(host)) return isPublicIp(host) ? undefined : `${host} is not a public address`;
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is this machine`;
  if (!host.includes('.')) return `${host} is not a public domain name`;
  if (/\.(local|internal|lan|home\.arpa)$/.test(host)) return `${host} is a private-network name`;
  return undefined;
}
