/**
 * oidc-provider's storage adapter over Trawl's OAuth store: each model instance (Grant, Session,
 * Interaction, AuthorizationCode, RefreshToken, AccessToken, Client…) is a row under its kind and id
 * with its expiry, so every process on the same store (every replica on PostgreSQL) serves the flow.
 * The grant, uid, user code and account (the API key id) are lifted out of the payload into columns,
 * for `revokeByGrantId`, `findByUid` and the revocation of everything a key signed in for.
 */
import type { OAuthRepo, OAuthStateRow } from '../../store/contracts/oauth.js';

/** A model instance's payload as oidc-provider stores it. */
export type OAuthPayload = Record<string, unknown>;

/** The adapter interface oidc-provider calls (its `Adapter`), one instance per model name. */
export interface OAuthAdapter {
  upsert(id: string, payload: OAuthPayload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<OAuthPayload | undefined>;
  findByUserCode(userCode: string): Promise<OAuthPayload | undefined>;
  findByUid(uid: string): Promise<OAuthPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** How often, at most, expired rows are pruned (on a write, in the background). */
const PRUNE_EVERY_MS = 10 * 60_000;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** The account (API key id) a payload stands for: its own, or its session's (an interaction). */
function accountOf(payload: OAuthPayload): string | null {
  const session = payload.session as { accountId?: unknown } | undefined;
  return text(payload.accountId) ?? text(session?.accountId);
}

function toPayload(row: OAuthStateRow | undefined): OAuthPayload | undefined {
  if (!row) return undefined;
  const payload = JSON.parse(row.payload) as OAuthPayload;
  // oidc-provider reads `consumed` (epoch seconds) to refuse a code or refresh token used twice
  return row.consumedAtMs === null ? payload : { ...payload, consumed: Math.floor(row.consumedAtMs / 1000) };
}

/** The adapter factory oidc-provider takes (`adapter: (name) => …`), over `repo` and the clock `now`. */
export function createOAuthAdapters(
  repo: OAuthRepo,
  now: () => number,
  onError: (err: unknown) => void,
): (kind: string) => OAuthAdapter {
  let prunedAt = 0;
  const prune = () => {
    const at = now();
    if (at - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = at;
    repo.pruneExpired(at).catch(onError);
  };
  return (kind) => ({
    async upsert(id, payload, expiresIn) {
      await repo.upsert({
        kind,
        id,
        payload: JSON.stringify(payload),
        grantId: text(payload.grantId),
        uid: text(payload.uid),
        userCode: text(payload.userCode),
        accountId: accountOf(payload),
        expiresAtMs: typeof expiresIn === 'number' ? now() + expiresIn * 1000 : null,
        consumedAtMs: null,
      });
      prune();
    },
    find: async (id) => toPayload(await repo.find(kind, id, now())),
    findByUserCode: async (userCode) => toPayload(await repo.findByUserCode(kind, userCode, now())),
    findByUid: async (uid) => toPayload(await repo.findByUid(kind, uid, now())),
    consume: (id) => repo.consume(kind, id, now()),
    destroy: (id) => repo.destroy(kind, id),
    revokeByGrantId: async (grantId) => void (await repo.revokeByGrantId(grantId)),
  });
}
