/**
 * The public base URL the authorization server names itself by (its issuer is `<base>/oauth`): the
 * one the resource server names its resources by (`app.auth.publicUrl()`: TRAWL_PUBLIC_URL, else the
 * listener's URL), so the issuer the protected-resource metadata lists is this one. Without
 * TRAWL_PUBLIC_URL only a loopback listener has a usable URL; otherwise none, and /oauth answers 404
 * saying what to set.
 */
import type { Config } from '../../config/config.js';
import type { DoorAuth } from '../../compose/door.js';
import { isLoopbackHostname } from '../../lib/loopback.js';

/** The base URL of the authorization server, or undefined when it cannot be known. */
export function publicBaseOf(config: Config, auth: DoorAuth): string | undefined {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  return isLoopbackHostname(config.host) ? auth.publicUrl().replace(/\/+$/, '') : undefined;
}
