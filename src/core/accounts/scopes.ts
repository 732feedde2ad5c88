/**
 * Key scopes: what a key may call. One scope per capability, plus `admin` for the account routes
 * (teams, keys, credits, usage). A key with no scopes listed has every scope (keys made before scopes
 * existed, and `trawl keys create --name N`).
 */
import { ServiceError } from '../../errors.js';

/** Every scope a key may have. */
export const SCOPES = ['search', 'contents', 'context', 'monitors', 'agent', 'admin'] as const;
/** One scope. */
export type Scope = (typeof SCOPES)[number];

/** `"search,contents"` as scopes; INVALID_REQUEST naming the unknown ones. */
export function parseScopes(list: string | readonly string[], field = 'scopes'): Scope[] {
  const names = (typeof list === 'string' ? list.split(',') : [...list]).map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(SCOPES as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) {
    throw new ServiceError(
      'INVALID_REQUEST',
      `${field}: ${unknown.length ? `unknown scope ${unknown.join(', ')}` : 'name at least one scope'}; scopes are ${SCOPES.join(', ')}`,
      { field },
    );
  }
  return [...new Set(names)] as Scope[];
}

/** Throws INSUFFICIENT_SCOPE (403) unless `scopes` (null: all) includes `needed`. */
export function requireScope(scopes: readonly string[] | null, needed: Scope, keyId: string): void {
  if (scopes === null || scopes.includes(needed)) return;
  throw new ServiceError(
    'INSUFFICIENT_SCOPE',
    `API key ${keyId} lacks the "${needed}" scope (it has: ${scopes.join(', ') || 'none'}); create a key with --scopes ${needed}`,
  );
}
