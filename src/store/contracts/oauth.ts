/**
 * The contract of the OAuth store (sqlite/oauth.ts, pg/oauth.ts): the state of Trawl's own
 * authorization server (oidc-provider's models: clients, grants, sessions, interactions, authorization
 * codes, refresh tokens…, each a JSON payload under its kind and id, with an expiry), and the sealed
 * secrets every replica shares (signing keys, cookie keys), written once and read by all.
 */

/** One stored model instance. Times are epoch milliseconds. */
export interface OAuthStateRow {
  kind: string;
  id: string;
  /** The model's payload, as JSON. */
  payload: string;
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  /** The API key id the person signed in with, when the model carries one. */
  accountId: string | null;
  /** null: no expiry. */
  expiresAtMs: number | null;
  consumedAtMs: number | null;
}

/** A sealed secret (the operator key's `SecretBox` seals it). */
export interface SealedSecret {
  name: string;
  sealed: string;
  createdAt: string;
}

export interface OAuthRepo {
  /** Inserts or replaces the instance `kind`/`id` (a re-save clears nothing but what it replaces). */
  upsert(row: OAuthStateRow): Promise<void>;
  /** The instance, unless it expired at `nowMs`. */
  find(kind: string, id: string, nowMs: number): Promise<OAuthStateRow | undefined>;
  /** The instance of `kind` with that uid (sessions, interactions), unless expired. */
  findByUid(kind: string, uid: string, nowMs: number): Promise<OAuthStateRow | undefined>;
  /** The instance of `kind` with that user code (device flow), unless expired. */
  findByUserCode(kind: string, userCode: string, nowMs: number): Promise<OAuthStateRow | undefined>;
  /** Marks the instance consumed at `atMs` (an authorization code used, a refresh token rotated). */
  consume(kind: string, id: string, atMs: number): Promise<void>;
  destroy(kind: string, id: string): Promise<void>;
  /** Deletes every instance of the grant (its codes, tokens and the grant); returns how many. */
  revokeByGrantId(grantId: string): Promise<number>;
  /** Deletes every instance a key signed in for (grants, sessions, codes, tokens); returns how many. */
  revokeByAccount(accountId: string): Promise<number>;
  /** As `revokeByAccount` for every key of the team. */
  revokeByTeam(teamId: string): Promise<number>;
  /** Deletes the instances expired at `nowMs`; returns how many. */
  pruneExpired(nowMs: number): Promise<number>;
  /** The sealed secret `name`, if stored. */
  getSecret(name: string): Promise<SealedSecret | undefined>;
  /** Stores `secret` unless one of that name exists; the stored one either way (the first writer wins). */
  putSecretIfAbsent(secret: SealedSecret): Promise<SealedSecret>;
  /** Every sealed secret (`trawl secrets reseal`). */
  listSecrets(): Promise<SealedSecret[]>;
  /** Replaces a secret's sealed text when it still is `previous` (a reseal racing another); false otherwise. */
  replaceSecret(name: string, previous: string, sealed: string): Promise<boolean>;
}
