/**
 * What "this machine" means for the HTTP door, exactly: the names the DNS-rebinding guard accepts on a
 * loopback listener, and the listen addresses keyless `/mcp` is allowed on. No prefix matching:
 * `127.evil.example` is a domain name, not loopback.
 */
import { isIP } from 'node:net';

/**
 * True for `localhost`, an IPv4 literal (dotted quad) in 127.0.0.0/8, and `::1` in any spelling,
 * bracketed or not; case-insensitive. Everything else, `localhost.` and `*.localhost` included, is false.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.trim().toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  const bare = h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
  if (isIP(bare) !== 6) return false;
  return new URL(`http://[${bare}]`).hostname === '[::1]'; // the URL parser writes ::1 one way
}
