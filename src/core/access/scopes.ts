/**
 * Key scopes: what a key may call. One scope per capability, and two for administration: `admin:team`
 * manages the key's own team (its keys, usage and audit records), `admin` the whole installation (every
 * team, credits, flags, `GET /status`) and holds `admin:team` too. A key made without scopes gets
 * DEFAULT_SCOPES, every scope but the two admin ones; `admin` is asked for by name. Keys stored with no
 * scopes listed (made before least privilege, docs/accounts.md#upgrading) hold every scope.
 */
import { ServiceError } from '../../errors.js';

/** Every scope a key may have. */
export const SCOPES = ['search', 'contents', 'context', 'monitors', 'agent', 'admin:team', 'admin'] as const;
/** One scope. */
export type Scope = (typeof SCOPES)[number];

/** The scopes of a key made without `--scopes`: every scope but `admin:team` and `admin`. */
export const DEFAULT_SCOPES: readonly Scope[] = ['search', 'contents', 'context', 'monitors', 'agent'];

/** What a scope grants beyond itself: `admin` manages every team, so it manages its own. */
const IMPLIED: Partial<Record<Scope, readonly Scope[]>> = { admin: ['admin:team'] };

/** `"search,contents"` as scopes; INVALID_REQUEST naming the unknown ones. */
export function parseScopes(list: string | readonly string[], field = 'scopes'): Scope[] {
  const names = (typeof list === 'string' ? list.split(',') : [...list]).map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(SCOPES as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) {
    throw new ServiceError(
      'INVALID_REQUEST',
      `${field}: ${unknown.length ? `unknown scope ${unknown.slice(0, 5).join(', ')}` : 'name at least one scope'}; scopes are ${SCOPES.join(', ')}`,
      { field },
    );
  }
  return [...new Set(names)] as Scope[];
}

/** Whether `scopes` (null: a key stored before scopes were listed, which holds every one) grant `needed`. */
export function hasScope(scopes: readonly string[] | null, needed: Scope): boolean {
  if (scopes === null) return true;
  return scopes.some((s) => s === needed || (IMPLIED[s as Scope]?.includes(needed) ?? false));
}

/** The scopes a key holds in effect: its list, or every scope for a key stored without one. */
export function effectiveScopes(scopes: readonly string[] | null): readonly string[] {
  return scopes ?? SCOPES;
}

/** Throws INSUFFICIENT_SCOPE (403) unless `scopes` grant `needed`. */
export function requireScope(scopes: readonly string[] | null, needed: Scope, keyId: string): void {
  if (hasScope(scopes, needed)) return;
  const remedy =
    needed === 'admin'
      ? 'only an operator key (scope "admin") may do this'
      : `create a key with --scopes ${needed}${needed === 'admin:team' ? ' (or admin)' : ''}`;
  throw new ServiceError(
    'INSUFFICIENT_SCOPE',
    `API key ${keyId} lacks the "${needed}" scope (it has: ${scopes?.join(', ') || 'none'}); ${remedy}`,
  );
}
