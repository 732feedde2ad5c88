/**
 * The contract of the API keys store: key rows (SHA-256 hashes of the key, never the key itself) and
 * the repository both backends keep (sqlite/api-keys.ts, pg/api-keys.ts).
 */
import type { NewAuditRecord } from './audit.js';

/** A row of `api_keys`. */
export interface ApiKeyRow {
  id: string;
  name: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  team_id: string;
  /** JSON array of scopes; null: every scope (a key stored before keys were made least-privilege). */
  scopes: string | null;
  budget_micros: number | null;
  budget_period: string | null;
  /** Requests per second; null: the operator's default. */
  qps: number | null;
  /** `<issuer> <sub>` of the person the key stands for (made on their first sign-in); null: a key made by name. */
  identity?: string | null;
}

/** A key with what a request needs of its team. */
export interface KeyWithTeam extends ApiKeyRow {
  team_name: string;
  team_blocked_at: string | null;
  team_enterprise: number;
  team_zero_retention: number;
  /** The team's credits and budget: whether its requests need a hold, without reading the team again. */
  team_credits_micros: number | null;
  team_budget_micros: number | null;
}

/** A key to insert: team, scopes, budget and rate default to the team `default`, every scope, none. */
export type NewKey = Pick<ApiKeyRow, 'id' | 'name' | 'hash' | 'created_at'> &
  Partial<Pick<ApiKeyRow, 'team_id' | 'scopes' | 'budget_micros' | 'budget_period' | 'qps' | 'identity'>>;

/** The API keys table. */
export interface ApiKeysRepo {
  /** Inserts a key, and the audit record of its making when given, at once. */
  insert(row: NewKey, audit?: NewAuditRecord): Promise<void>;
  /** The key and its team's flags, in one read (every authenticated request does this). */
  getWithTeam(id: string): Promise<KeyWithTeam | undefined>;
  listOfTeam(teamId: string): Promise<ApiKeyRow[]>;
  /** Inserts only into an empty table (atomic), so two first starts make one key. */
  insertIfEmpty(row: Pick<ApiKeyRow, 'id' | 'name' | 'hash' | 'created_at' | 'scopes'>): Promise<boolean>;
  get(id: string): Promise<ApiKeyRow | undefined>;
  list(): Promise<ApiKeyRow[]>;
  countActive(): Promise<number>;
  /** Marks a key revoked, with its audit record; false when it does not exist or was already revoked. */
  revoke(id: string, at: string, audit?: NewAuditRecord): Promise<boolean>;
  /** Replaces an active key's scopes (JSON array), with its audit record; false when there is no such key. */
  setScopes(id: string, scopes: string, audit?: NewAuditRecord): Promise<boolean>;
  /**
   * Inserts the key of a person (`row.identity`) in a team unless one exists, and returns the key of that
   * identity and team (the new one, or the one made before, revoked or not), with its team, in one write.
   */
  insertIdentity(row: NewKey & { identity: string; team_id: string }, audit?: NewAuditRecord): Promise<KeyWithTeam>;
  /** The key of `identity` in `teamId`, with its team, revoked or not. */
  getIdentity(identity: string, teamId: string): Promise<KeyWithTeam | undefined>;
  /** Records when the key was last used. */
  touch(id: string, at: string): Promise<void>;
}
