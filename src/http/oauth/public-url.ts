/**
 * The public base URL the authorization server names itself by (its issuer is `<base>/oauth`): the
 * operator's `TRAWL_PUBLIC_URL` when set; on a loopback listener without it, the origin the request
 * came to (its Host already checked to be a loopback name); otherwise none, and /oauth answers 404
 * saying what to set.
 */
import type { Config } from '../../config/config.js';
import { isLoopbackHostname } from '../../lib/loopback.js';
import { hostOf } from '../origin-guard.js';

/** `TRAWL_PUBLIC_URL`, without a trailing slash (read by name until the setting is on main). */
export function configuredPublicUrl(config: Config): string | undefined {
  const value = (config as Config & { publicUrl?: string }).publicUrl;
  return value ? value.replace(/\/+$/, '') : undefined;
}

/** The base URL of a request to the door, or undefined when it cannot be known. */
export function publicBaseOf(config: Config, host: string | undefined): string | undefined {
  const configured = configuredPublicUrl(config);
  if (configured) return configured;
  if (!isLoopbackHostname(config.host) || !host) return undefined;
  const name = hostOf(host);
  return name && isLoopbackHostname(name) ? `http://${host.trim().toLowerCase()}` : undefined;
}
