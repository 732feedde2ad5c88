/**
 * API keys: creation, listing, revocation and verification. A key is `trawl_<id>_<secret>`; only the
 * SHA-256 of the whole key is stored (keys are 256-bit random, so a fast hash is enough), the id finds
 * the row and the hashes are compared in constant time. Reads go to SQLite every time, so a key made or
 * revoked by another process on the same data directory counts at once.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { ApiKeysRepo, ApiKeyRow, KeyWithTeam, NewKey } from '../../store/api-keys.repo.js';
import type { Caller, Clock } from '../context.js';
import type { BudgetPeriod } from './meter.js';
import type { Scope } from './scopes.js';

const KEY_PATTERN = /^trawl_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;
/** How often `last_used_at` is written for one key, at most. */
const TOUCH_INTERVAL_MS = 60_000;

/** A key as the admin routes and the CLI show it (never the key itself). */
export interface ApiKeyInfo {
  id: string;
  name: string;
  teamId: string;
  /** null: every scope. */
  scopes: string[] | null;
  /** Dollars per period; null: none. */
  budget: { amount: number; period: string } | null;
  qps: number | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** What a key may be made with besides its name (docs/accounts.md). */
export interface KeyOptions {
  teamId?: string;
  scopes?: readonly Scope[];
  /** Micro-dollars per period. */
  budget?: { micros: number; period: BudgetPeriod };
  qps?: number;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();
const DUMMY_HASH = sha256('trawl:no-such-key');

const toInfo = (row: ApiKeyRow): ApiKeyInfo => ({
  id: row.id,
  name: row.name,
  teamId: row.team_id,
  scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as string[]),
  budget:
    row.budget_micros === null || !row.budget_period
      ? null
      : { amount: row.budget_micros / 1e6, period: row.budget_period },
  qps: row.qps,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

function toCaller(row: KeyWithTeam): Caller {
  return {
    keyId: row.id,
    keyName: row.name,
    teamId: row.team_id,
    scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as string[]),
    qps: row.qps,
    enterprise: row.team_enterprise === 1,
    zeroRetention: row.team_zero_retention === 1,
  };
}

/** A key just made: its info and, shown once and never stored, the key itself. */
export type NewApiKey = ApiKeyInfo & { key: string };

/** API keys: made, listed, revoked, and verified on every request. */
export interface KeysService {
  /** Creates a key; the returned `key` is shown once and never stored. */
  create(name: string, options?: KeyOptions): Promise<NewApiKey>;
  /** Creates a key only if none was ever made (first start); null otherwise. */
  createFirst(name: string): Promise<NewApiKey | null>;
  list(): Promise<ApiKeyInfo[]>;
  countActive(): Promise<number>;
  /** Revokes by id (or by the full key); throws NOT_FOUND when there is no such active key. */
  revoke(idOrKey: string): Promise<ApiKeyInfo>;
  /** The caller a key id stands for, or null when it is unknown or revoked (a monitor runs as its key). */
  callerOf(id: string): Promise<Caller | null>;
  /** The caller for a presented key, or null when it is malformed, unknown or revoked. */
  verify(presented: string): Promise<Caller | null>;
}

/** A new key's row and what its maker is shown; INVALID_REQUEST for a bad name. */
function mint(name: string, createdAt: string, options: KeyOptions = {}): { row: NewKey; info: NewApiKey } {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 100) {
    throw new ServiceError('INVALID_REQUEST', 'name must be 1-100 characters', { field: 'name' });
  }
  const id = randomBytes(6).toString('hex');
  const key = `trawl_${id}_${randomBytes(32).toString('base64url')}`;
  const row = {
    id,
    name: trimmed,
    hash: sha256(key).toString('hex'),
    created_at: createdAt,
    team_id: options.teamId ?? 'team_default',
    scopes: options.scopes ? JSON.stringify(options.scopes) : null,
    budget_micros: options.budget?.micros ?? null,
    budget_period: options.budget?.period ?? null,
    qps: options.qps ?? null,
  };
  return { row, info: { ...toInfo({ ...row, last_used_at: null, revoked_at: null }), key } };
}

/** Records a use of a key, at most once a minute per key; a busy database must not fail the request. */
function createTouch(repo: ApiKeysRepo, clock: Clock): (id: string) => Promise<void> {
  const lastTouched = new Map<string, number>();
  return async (id) => {
    const now = clock.now();
    if (now.getTime() - (lastTouched.get(id) ?? 0) <= TOUCH_INTERVAL_MS) return;
    lastTouched.set(id, now.getTime());
    try {
      await repo.touch(id, now.toISOString());
    } catch {
      // the timestamp is advisory
    }
  };
}

/** The keys service over `repo`; `last_used_at` is written at most once a minute per key. */
/** The key row each verified caller was made from, read when its request began. */
const verified = new WeakMap<Caller, KeyWithTeam>();

/**
 * The key and team a caller's request was verified with (undefined for a caller made otherwise): the
 * meter admits the request on it instead of reading it again, a round trip less with PostgreSQL.
 */
export function verifiedKey(caller: Caller): KeyWithTeam | undefined {
  return verified.get(caller);
}

export function createKeysService(repo: ApiKeysRepo, clock: Clock): KeysService {
  const touch = createTouch(repo, clock);

  return {
    async create(name, options = {}) {
      const made = mint(name, clock.now().toISOString(), options);
      await repo.insert(made.row);
      return made.info;
    },
    async createFirst(name) {
      const made = mint(name, clock.now().toISOString());
      return (await repo.insertIfEmpty(made.row)) ? made.info : null;
    },
    list: async () => (await repo.list()).map(toInfo),
    countActive: () => repo.countActive(),
    async revoke(idOrKey) {
      const id = KEY_PATTERN.exec(idOrKey)?.[1] ?? idOrKey;
      const row = await repo.get(id);
      if (!row) throw new ServiceError('NOT_FOUND', `no API key with id ${id}`);
      if (row.revoked_at) throw new ServiceError('NOT_FOUND', `API key ${id} is already revoked`);
      await repo.revoke(id, clock.now().toISOString());
      return toInfo((await repo.get(id))!);
    },
    async callerOf(id) {
      const row = await repo.getWithTeam(id);
      return row && row.revoked_at === null ? toCaller(row) : null;
    },
    async verify(presented) {
      const match = KEY_PATTERN.exec(presented);
      const row = match ? await repo.getWithTeam(match[1]!) : undefined;
      const expected = row ? Buffer.from(row.hash, 'hex') : DUMMY_HASH;
      const ok = timingSafeEqual(sha256(presented), expected) && row !== undefined && row.revoked_at === null;
      if (!ok || !row) return null;
      await touch(row.id);
      const caller = toCaller(row);
      verified.set(caller, row);
      return caller;
    },
  };
}
