/**
 * Which addresses are public. Used to refuse webhook URLs that point at this machine or a private
 * network (by literal address and by name here; the fetcher checks resolved addresses too).
 */
import { BlockList, isIP } from 'node:net';

const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  nonPublic.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
] as const) {
  nonPublic.addSubnet(net, prefix, 'ipv6');
}

/** True when `ip` (v4 or v6 literal) is a globally routable unicast address. */
export function isPublicIp(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped?.[1]) return isPublicIp(mapped[1]);
    return !nonPublic.check(bare, 'ipv6');
  }
  return !nonPublic.check(bare, 'ipv4');
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
