/**
 * API keys: creation, listing, rescoping, revocation and verification. A key is `trawl_<id>_<secret>`; only the
 * SHA-256 of the whole key is stored (keys are 256-bit random, so a fast hash is enough), the id finds
 * the row and the hashes are compared in constant time. Reads go to SQLite every time, so a key made or
 * revoked by another process on the same data directory counts at once.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { ApiKeyRow, ApiKeysRepo, KeyWithTeam } from '../../store/contracts/api-keys.js';
import type { AccountsRepo } from '../../store/contracts/accounts.js';
import { DEFAULT_TEAM_ID, owned, ownerOf, reachOf, reaches, teamFilter } from '../access/access.js';
import type { Caller, Clock } from '../context.js';
import { auditEntry } from './audit.js';
import type { BudgetPeriod } from './meter.js';
import { DEFAULT_SCOPES, hasScope, SCOPES, type Scope } from '../access/scopes.js';
import {
  DEFAULT_IDENTITY_RULE,
  identityKeyName,
  identityKeyOf,
  personOf,
  teamRefOf,
  type Identity,
  type IdentityRule,
} from './identity.js';

const KEY_PATTERN = /^trawl_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;
/** How often `last_used_at` is written for one key, at most. */
const TOUCH_INTERVAL_MS = 60_000;

/** A key as the admin routes and the CLI show it (never the key itself). */
export interface ApiKeyInfo {
  id: string;
  name: string;
  teamId: string;
  /** null: every scope (a key stored before keys were made least-privilege; it holds `admin`). */
  scopes: string[] | null;
  /** Whether the key holds `admin`: it administers every team (docs/accounts.md). */
  admin: boolean;
  /** Dollars per period; null: none. */
  budget: { amount: number; period: string } | null;
  qps: number | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** What a key may be made with besides its name (docs/accounts.md). */
export interface KeyOptions {
  /** The team; default: the maker's team (the team default for the local process). */
  teamId?: string;
  /** Default: DEFAULT_SCOPES, every scope but the admin ones. */
  scopes?: readonly Scope[];
  /** Micro-dollars per period. */
  budget?: { micros: number; period: BudgetPeriod };
  qps?: number;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();
const DUMMY_HASH = sha256('trawl:no-such-key');
const scopesOf = (row: Pick<ApiKeyRow, 'scopes'>) =>
  row.scopes === null ? null : (JSON.parse(row.scopes) as string[]);

const toInfo = (row: ApiKeyRow): ApiKeyInfo => ({
  id: row.id,
  name: row.name,
  teamId: row.team_id,
  scopes: scopesOf(row),
  admin: hasScope(scopesOf(row), 'admin'),
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
    scopes: scopesOf(row),
    qps: row.qps,
    enterprise: row.team_enterprise === 1,
    zeroRetention: row.team_zero_retention === 1,
  };
}

/** A key just made: its info and, shown once and never stored, the key itself. */
export type NewApiKey = ApiKeyInfo & { key: string };

/**
 * API keys: made, listed, rescoped, revoked, and verified on every request. `actor` is who asks (null:
 * the local process, the operator): a key with `admin:team` manages its own team's keys and may grant
 * only scopes it holds; a key with `admin` manages every team's; every change is audited (./audit.ts).
 */
export interface KeysService {
  /**
   * Creates a key; the returned `key` is shown once and never stored. NOT_FOUND for a team the actor
   * does not administer; INSUFFICIENT_SCOPE for a scope it may not grant.
   */
  create(name: string, options: KeyOptions, actor: Caller | null): Promise<NewApiKey>;
  /** Creates the operator's key, with every scope, only if none was ever made (first start); null otherwise. */
  createFirst(name: string): Promise<NewApiKey | null>;
  /** The keys of the teams `actor` administers. */
  list(actor: Caller | null): Promise<ApiKeyInfo[]>;
  countActive(): Promise<number>;
  /** Active keys that hold `admin` (doctor and /status list them). */
  admins(): Promise<ApiKeyInfo[]>;
  /** Revokes by id (or by the full key); NOT_FOUND when there is no such active key the actor reaches. */
  revoke(idOrKey: string, actor: Caller | null): Promise<ApiKeyInfo>;
  /** Replaces an active key's scopes (the same rules as `create`). */
  setScopes(id: string, scopes: readonly Scope[], actor: Caller | null): Promise<ApiKeyInfo>;
  /** The caller a key id stands for, or null when it is unknown or revoked (a monitor runs as its key). */
  callerOf(id: string): Promise<Caller | null>;
  /** The caller for a presented key, or null when it is malformed, unknown or revoked. */
  verify(presented: string): Promise<Caller | null>;
  /**
   * The caller a person signed in through an OAuth/OIDC issuer acts as: the key of their identity in the
   * team the identity rule gives them (./identity.ts), made with DEFAULT_SCOPES on first use and found
   * again later. IDENTITY_NOT_MAPPED (403) when the rule gives no team or names a team that does not
   * exist; INVALID_API_KEY (401) when that key was revoked (revoking it shuts the person out).
   */
  forIdentity(identity: Identity): Promise<Caller>;
}

/** What the keys service needs besides its repository: teams to map people to, and the rule. */
export interface KeysServiceOptions {
  teams?: Pick<AccountsRepo, 'team' | 'teamByName'>;
  identityRule?: IdentityRule;
}

/** A new key's row and what its maker is shown; INVALID_REQUEST for a bad name. */
function mint(name: string, createdAt: string, teamId: string, scopes: readonly Scope[], options: KeyOptions = {}) {
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
    team_id: teamId,
    scopes: JSON.stringify(scopes),
    budget_micros: options.budget?.micros ?? null,
    budget_period: options.budget?.period ?? null,
    qps: options.qps ?? null,
  };
  return { row, info: { ...toInfo({ ...row, last_used_at: null, revoked_at: null }), key } };
}

/**
 * INSUFFICIENT_SCOPE unless `actor` may grant `scopes`: the local process and `admin` keys grant any;
 * any other key only scopes it holds itself (so never `admin`).
 */
function checkGrant(actor: Caller | null, scopes: readonly Scope[]): void {
  if (!actor || hasScope(actor.scopes, 'admin')) return;
  const beyond = scopes.filter((scope) => !hasScope(actor.scopes, scope));
  if (beyond.length === 0) return;
  throw new ServiceError(
    'INSUFFICIENT_SCOPE',
    `scopes: API key ${actor.keyId} may grant only scopes it holds, and it lacks ${beyond.join(', ')}` +
      (beyond.includes('admin') ? '; only an operator key (scope "admin") makes admin keys' : ''),
    { field: 'scopes' },
  );
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

/** The caller of a key row read for a request, remembered with it (`verifiedKey`). */
function verifiedCaller(row: KeyWithTeam): Caller {
  const caller = toCaller(row);
  verified.set(caller, row);
  return caller;
}

/**
 * `caller` holding only `scopes` of its own (an access token's scopes within its key's), still known as
 * verified with the same key row; scopes it does not hold are dropped.
 */
export function narrowedCaller(caller: Caller, scopes: readonly string[]): Caller {
  const kept = scopes.filter(
    (scope) => (SCOPES as readonly string[]).includes(scope) && hasScope(caller.scopes, scope as Scope),
  );
  const narrowed: Caller = { ...caller, scopes: [...new Set(kept)] };
  const row = verified.get(caller);
  if (row) verified.set(narrowed, row);
  return narrowed;
}

export function createKeysService(repo: ApiKeysRepo, clock: Clock, options: KeysServiceOptions = {}): KeysService {
  const touch = createTouch(repo, clock);
  const now = () => clock.now();
  /** The key `id` when `actor` administers its team, revoked or not; NOT_FOUND otherwise. */
  const administered = async (id: string, actor: Caller | null): Promise<ApiKeyRow> =>
    owned(actor, 'apiKey', await repo.get(id), keyOwner, `API key ${id}`);
  /** As `administered`, and still active: a revoked key cannot be changed again. */
  const active = async (id: string, actor: Caller | null): Promise<ApiKeyRow> => {
    const row = await administered(id, actor);
    if (row.revoked_at) throw new ServiceError('NOT_FOUND', `API key ${id} is already revoked`);
    return row;
  };

  return {
    async create(name, options, actor) {
      const teamId = options.teamId ?? ownerOf(actor).teamId;
      if (!reaches(reachOf(actor, 'apiKey'), { teamId, keyId: null })) {
        throw new ServiceError('NOT_FOUND', `no team with id "${teamId}"`, { field: 'team' });
      }
      const scopes = options.scopes ?? DEFAULT_SCOPES;
      checkGrant(actor, scopes);
      const made = mint(name, now().toISOString(), teamId, scopes, options);
      const detail = { name: made.info.name, scopes, budget: made.info.budget, qps: made.info.qps };
      await repo.insert(made.row, auditEntry(actor, teamId, 'keys.create', made.info.id, detail, now()));
      return made.info;
    },
    async createFirst(name) {
      const made = mint(name, now().toISOString(), DEFAULT_TEAM_ID, SCOPES);
      return (await repo.insertIfEmpty(made.row)) ? made.info : null;
    },
    async list(actor) {
      const teamId = teamFilter(reachOf(actor, 'apiKey'));
      return (teamId === undefined ? await repo.list() : await repo.listOfTeam(teamId)).map(toInfo);
    },
    countActive: () => repo.countActive(),
    admins: async () => (await repo.list()).map(toInfo).filter((k) => k.admin && !k.revokedAt),
    async revoke(idOrKey, actor) {
      const id = KEY_PATTERN.exec(idOrKey)?.[1] ?? idOrKey;
      const row = await active(id, actor);
      const audit = auditEntry(actor, row.team_id, 'keys.revoke', id, { name: row.name }, now());
      if (!(await repo.revoke(id, now().toISOString(), audit)))
        throw new ServiceError('NOT_FOUND', `API key ${id} not found`);
      return toInfo((await repo.get(id))!);
    },
    async setScopes(id, scopes, actor) {
      const row = await active(id, actor);
      checkGrant(actor, scopes);
      const detail = { scopes, was: scopesOf(row) ?? 'every scope' };
      const audit = auditEntry(actor, row.team_id, 'keys.update', id, detail, now());
      if (!(await repo.setScopes(id, JSON.stringify(scopes), audit))) {
        throw new ServiceError('NOT_FOUND', `API key ${id} not found`);
      }
      return toInfo((await repo.get(id))!);
    },
    async callerOf(id) {
      const row = await repo.getWithTeam(id);
      return row && row.revoked_at === null ? verifiedCaller(row) : null;
    },
    async forIdentity(identity) {
      const row = await identityKey(repo, options, identity, now());
      if (row.revoked_at) {
        throw new ServiceError(
          'INVALID_API_KEY',
          `The Trawl key of ${personOf(identity)} (${row.id}) has been revoked; an administrator of team "${row.team_name}" revoked it.`,
        );
      }
      await touch(row.id);
      return verifiedCaller(row);
    },
    async verify(presented) {
      const match = KEY_PATTERN.exec(presented);
      const row = match ? await repo.getWithTeam(match[1]!) : undefined;
      const expected = row ? Buffer.from(row.hash, 'hex') : DUMMY_HASH;
      const ok = timingSafeEqual(sha256(presented), expected) && row !== undefined && row.revoked_at === null;
      if (!ok || !row) return null;
      await touch(row.id);
      return verifiedCaller(row);
    },
  };
}

/** A key's owner: its team (keys are the team admins', core/access). */
const keyOwner = (row: ApiKeyRow) => ({ teamId: row.team_id, keyId: null });

/** The key of `identity` in the team the rule gives it, made (and audited) on first use; revoked or not. */
async function identityKey(
  repo: ApiKeysRepo,
  options: KeysServiceOptions,
  identity: Identity,
  at: Date,
): Promise<KeyWithTeam> {
  const ref = teamRefOf(identity, options.identityRule ?? DEFAULT_IDENTITY_RULE);
  const team = (await options.teams?.team(ref)) ?? (await options.teams?.teamByName(ref));
  if (!team) {
    throw new ServiceError(
      'IDENTITY_NOT_MAPPED',
      `${personOf(identity)} is mapped to team "${ref.slice(0, 100)}", which does not exist; an operator creates it with: trawl teams create NAME`,
    );
  }
  const key = identityKeyOf(identity);
  const found = await repo.getIdentity(key, team.id);
  if (found) return found;
  const made = mint(identityKeyName(identity), at.toISOString(), team.id, DEFAULT_SCOPES);
  const detail = { name: made.info.name, scopes: DEFAULT_SCOPES, identity: key };
  return repo.insertIdentity(
    { ...made.row, team_id: team.id, identity: key },
    auditEntry(null, team.id, 'keys.create', made.info.id, detail, at),
  );
}
