/**
 * Trawl's own OAuth 2.1 authorization server, its transport-free side: the storage adapter over the
 * store, the sealed keys, who an account is (an API key id), signing in with a key, which scopes a
 * consent grants, and revoking what a key or a team signed in for. The HTTP door mounts oidc-provider
 * over it (src/http/oauth/).
 */
import type { JWK } from 'jose';
import type { OAuthRepo } from '../../store/contracts/oauth.js';
import type { RateBucketsRepo } from '../../store/contracts/rate-buckets.js';
import type { Logger } from '../../lib/logger.js';
import { verifiedKey, type KeysService } from '../accounts/keys.service.js';
import type { OwnIssuer } from '../accounts/oauth.js';
import { DEFAULT_SCOPES, hasScope, SCOPES, type Scope } from '../access/scopes.js';
import type { Caller, Clock } from '../context.js';
import type { SecretBox } from '../monitors/secret-box.js';
import { createOAuthAdapters, type OAuthAdapter } from './adapter.js';
import { loadOAuthSecrets, publicKeys, type OAuthSecrets } from './secrets.js';
import { createCsrf, createSignIn, type SignInOutcome } from './sign-in.js';

export type { OwnIssuer };

export interface OAuthService {
  /** oidc-provider's adapter for a model name. */
  adapter(kind: string): OAuthAdapter;
  /** The signing, cookie and CSRF keys (made on the first start, then read from the store). */
  secrets(): Promise<OAuthSecrets>;
  /** The issuer at `publicUrl` (no trailing slash): `<publicUrl>/oauth` with the public signing keys. */
  issuer(publicUrl: string): OwnIssuer;
  /** The same, its URL read when asked (the listener's port is known once it is bound). */
  issuerAt(publicUrl: () => string): OwnIssuer;
  /** The caller a signed-in account (an API key id) is, or null once the key is revoked or unknown or its team blocked. */
  account(keyId: string): Promise<Caller | null>;
  /** One sign-in attempt with a pasted key, from a client address (limited per address and key prefix). */
  signIn(presented: string, address: string): Promise<SignInOutcome>;
  /**
   * What a consent grants: the requested scopes the key holds (Trawl's scope names; others dropped);
   * when none were requested, the key's least-privilege defaults (never the admin scopes).
   */
  grantable(requested: readonly string[], caller: Caller): Scope[];
  /** The CSRF token of an interaction's forms, and its check. */
  csrfToken(uid: string): Promise<string>;
  checkCsrf(uid: string, token: unknown): Promise<boolean>;
  /** Deletes the grants, sessions, codes and refresh tokens a key signed in for; how many. */
  revokeKey(keyId: string): Promise<number>;
  /** The same for every key of a team. */
  revokeTeam(teamId: string): Promise<number>;
}

export interface OAuthServiceDeps {
  repo: OAuthRepo;
  buckets: RateBucketsRepo;
  box: SecretBox;
  keys: KeysService;
  clock: Clock;
  logger: Logger;
}

export function createOAuthService(deps: OAuthServiceDeps): OAuthService {
  const now = () => deps.clock.now().getTime();
  const adapter = createOAuthAdapters(deps.repo, now, (err) => deps.logger.warn({ err }, 'pruning OAuth state failed'));
  let loaded: Promise<OAuthSecrets> | undefined;
  const secrets = () => {
    loaded ??= loadOAuthSecrets(deps.repo, deps.box, () => deps.clock.now()).catch((err: unknown) => {
      loaded = undefined;
      throw err;
    });
    return loaded;
  };
  const signIn = createSignIn({ keys: deps.keys, buckets: deps.buckets, now });
  const csrf = async () => createCsrf((await secrets()).csrfKey);
  const issuerAt = (publicUrl: () => string): OwnIssuer => ({
    get issuer() {
      return `${publicUrl().replace(/\/+$/, '')}/oauth`;
    },
    // the public halves only (as JSON Web Keys of jose's shape)
    jwks: async () => ({ keys: publicKeys((await secrets()).signingKeys) as JWK[] }),
  });
  return {
    adapter,
    secrets,
    issuer: (publicUrl) => issuerAt(() => publicUrl),
    issuerAt,
    async account(keyId) {
      // a revoked key, or a key of a blocked team, is no account: its refresh tokens stop working
      const caller = await deps.keys.callerOf(keyId);
      return caller && !verifiedKey(caller)?.team_blocked_at ? caller : null;
    },
    signIn: (presented, address) => signIn.attempt(presented, address),
    grantable(requested, caller) {
      const known = requested.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
      const wanted = known.length > 0 ? known : DEFAULT_SCOPES;
      return [...new Set(wanted)].filter((scope) => hasScope(caller.scopes, scope));
    },
    csrfToken: async (uid) => (await csrf()).token(uid),
    checkCsrf: async (uid, token) => (await csrf()).check(uid, token),
    revokeKey: (keyId) => deps.repo.revokeByAccount(keyId),
    revokeTeam: (teamId) => deps.repo.revokeByTeam(teamId),
  };
}
