/**
 * The Bearer challenges of the HTTP door (RFC 6750, RFC 9728 §5.1): with OAuth on, a 401 names the
 * resource's metadata and the scopes to ask for, and a 403 for a token's missing scope says which one;
 * with OAuth off, the plain `Bearer realm="trawl"` of API keys.
 */
import type { DoorAuth, OAuthResource } from '../../compose/door.js';
import { DEFAULT_SCOPES } from '../../core/access/scopes.js';

/** The path of a resource's protected-resource metadata (RFC 9728 §3.1: the resource's path after it). */
export const metadataPath = (kind: OAuthResource): string =>
  kind === 'mcp' ? '/.well-known/oauth-protected-resource/mcp' : '/.well-known/oauth-protected-resource';

/** The URL of a resource's protected-resource metadata. */
export const metadataUrl = (auth: DoorAuth, kind: OAuthResource): string => `${auth.publicUrl()}${metadataPath(kind)}`;

/** A quoted-string parameter value: no quotes or backslashes inside (they would end it). */
const quoted = (value: string) => `"${value.replace(/["\\]/g, '')}"`;

/**
 * The challenge of a 401: `error="invalid_token"` when a credential was sent; with OAuth on it names
 * `resource_metadata` and the least-privilege `scope` a client should ask for.
 */
export function unauthorizedChallenge(
  auth: DoorAuth | undefined,
  kind: OAuthResource,
  credentialSent: boolean,
): string {
  const error = credentialSent ? ', error="invalid_token"' : '';
  if (!auth?.enabled()) return `Bearer realm="trawl"${error}`;
  return `Bearer resource_metadata=${quoted(metadataUrl(auth, kind))}, scope=${quoted(DEFAULT_SCOPES.join(' '))}${error}`;
}

/** The challenge of a 403 for a token without the scope `needed` (RFC 6750 §3.1 `insufficient_scope`). */
export function insufficientScopeChallenge(auth: DoorAuth, kind: OAuthResource, needed: string): string {
  return `Bearer error="insufficient_scope", scope=${quoted(needed)}, resource_metadata=${quoted(metadataUrl(auth, kind))}`;
}
