/**
 * Teams: made, listed, blocked and unblocked, given credits and budgets, marked enterprise or zero
 * retention by the operator (`trawl teams …`, `trawl credits add`, the admin routes), and what they and
 * their keys spent (`trawl usage`, `GET /admin/usage`). Keys belong to teams; the team `default` holds
 * keys made without one.
 */
import { randomBytes } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { AccountsRepo, SpendRow, TeamRow } from '../../store/contracts/accounts.js';
import type { ApiKeysRepo } from '../../store/contracts/api-keys.js';

import { reachOf, reaches, teamFilter } from '../access/access.js';
import type { Caller, Clock } from '../context.js';
import { auditEntry } from './audit.js';
import { requireScope } from '../access/scopes.js';
import { BUDGET_PERIODS, type BudgetPeriod, LOCAL, periodStart } from './meter.js';
import { toDollars } from './money.js';
import { usageSeries, type SeriesQuery, type UsageSeries } from './usage-series.js';

/** A team as the admin routes and the CLI show it; money in dollars. */
export interface TeamInfo {
  id: string;
  name: string;
  blocked: boolean;
  enterprise: boolean;
  zeroRetention: boolean;
  /** Credits left; null: no credit limit. */
  credits: number | null;
  budget: { amount: number; period: BudgetPeriod } | null;
  createdAt: string;
}

/** What a team may be made or updated with. */
export interface TeamOptions {
  enterprise?: boolean;
  zeroRetention?: boolean;
  /** Micro-dollars. */
  credits?: number | null;
  budget?: { micros: number; period: BudgetPeriod } | null;
}

/** One row of a usage report: what a key (or, with `keyId` null, a whole team) spent in the period. */
export interface UsageLine {
  teamId: string;
  team: string;
  keyId: string | null;
  keyName: string | null;
  requests: number;
  /** Dollars. */
  spent: number;
  byOperation: Record<string, number>;
}

/** How usage recorded without a key is named in reports. */
const UNKEYED: Record<string, string> = { [LOCAL.keyId]: '(no key: local)', x402: '(x402 payments)' };

const toInfo = (row: TeamRow): TeamInfo => ({
  id: row.id,
  name: row.name,
  blocked: row.blocked_at !== null,
  enterprise: row.enterprise === 1,
  zeroRetention: row.zero_retention === 1,
  credits: row.credits_micros === null ? null : toDollars(row.credits_micros),
  budget:
    row.budget_micros === null || !row.budget_period
      ? null
      : { amount: toDollars(row.budget_micros), period: row.budget_period as BudgetPeriod },
  createdAt: row.created_at,
});

/** A budget period named in `field`; INVALID_REQUEST otherwise. */
export function checkPeriod(period: string, field: string): BudgetPeriod {
  if ((BUDGET_PERIODS as readonly string[]).includes(period)) return period as BudgetPeriod;
  throw new ServiceError('INVALID_REQUEST', `${field}: must be one of ${BUDGET_PERIODS.join(', ')} (got "${period}")`, {
    field,
  });
}

/**
 * Teams: the operator's accounts, their money and what they spent. `actor` is who asks (null: the local
 * process, the operator). Making teams and changing their flags, credits and budgets is the operator's
 * (`admin`); a key with `admin:team` sees its own team and its usage; a team another key cannot reach is
 * NOT_FOUND (core/access). Every change is audited in its transaction (./audit.ts).
 */
export interface TeamsService {
  create(name: string, options: TeamOptions, actor: Caller | null): Promise<TeamInfo>;
  list(actor: Caller | null): Promise<TeamInfo[]>;
  get(ref: string, actor: Caller | null): Promise<TeamInfo>;
  /** The team's id for a name or id the actor reaches; NOT_FOUND otherwise. */
  idOf(ref: string, actor: Caller | null): Promise<string>;
  update(ref: string, options: TeamOptions, actor: Caller | null): Promise<TeamInfo>;
  block(ref: string, actor: Caller | null): Promise<TeamInfo>;
  unblock(ref: string, actor: Caller | null): Promise<TeamInfo>;
  /** Adds credits (micro-dollars); a team without a credit limit starts from zero and gets one. */
  addCredits(ref: string, micros: number, actor: Caller | null): Promise<TeamInfo>;
  /** Spend per key and per team (a line with `keyId` null) since `fromMs`, UTC days, of the teams the actor sees. */
  usage(fromMs: number, actor: Caller | null): Promise<UsageLine[]>;
  /**
   * What each key spent per day and operation, with latency percentiles (./usage-series.ts), of the teams
   * the actor sees; INVALID_REQUEST_QUERY for a range that is not one, NOT_FOUND for a team out of reach.
   */
  series(query: SeriesQuery, actor: Caller | null): Promise<UsageSeries>;
}

const noTeam = (ref: string) => new ServiceError('NOT_FOUND', `no team named or with id "${ref}"`);

/** `row` with what `options` sets (undefined: unchanged). */
const withOptions = (row: TeamRow, options: TeamOptions): TeamRow => ({
  ...row,
  enterprise: options.enterprise === undefined ? row.enterprise : options.enterprise ? 1 : 0,
  zero_retention: options.zeroRetention === undefined ? row.zero_retention : options.zeroRetention ? 1 : 0,
  credits_micros: options.credits === undefined ? row.credits_micros : options.credits,
  budget_micros: options.budget === undefined ? row.budget_micros : (options.budget?.micros ?? null),
  budget_period: options.budget === undefined ? row.budget_period : (options.budget?.period ?? null),
});

/** The usage report of `spend` rows: one line per key and one per team, names resolved. */
function usageLines(spend: SpendRow[], teams: Map<string, TeamRow>, keyName: Map<string, string>): UsageLine[] {
  const lines = new Map<string, UsageLine>();
  const line = (teamId: string, keyId: string | null) => {
    const id = `${teamId}/${keyId ?? '*'}`;
    let l = lines.get(id);
    if (!l) {
      const name = keyId === null ? null : (UNKEYED[keyId] ?? keyName.get(keyId) ?? '(deleted)');
      const team = teams.get(teamId)?.name ?? teamId;
      l = { teamId, team, keyId, keyName: name, requests: 0, spent: 0, byOperation: {} };
      lines.set(id, l);
    }
    return l;
  };
  for (const row of spend) {
    for (const l of [line(row.team_id, row.key_id), line(row.team_id, null)]) {
      l.requests += row.requests;
      l.spent += toDollars(row.micros);
      l.byOperation[row.operation] = (l.byOperation[row.operation] ?? 0) + toDollars(row.micros);
    }
  }
  return [...lines.values()].map((l) => ({ ...l, spent: Math.round(l.spent * 1e6) / 1e6 }));
}

/** The row of a new team; INVALID_REQUEST for a name that is not 1-64 letters, digits, ".", "_" or "-". */
function newTeamRow(name: string, options: TeamOptions, createdAt: string): Omit<TeamRow, 'blocked_at'> {
  const trimmed = name.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(trimmed)) {
    throw new ServiceError(
      'INVALID_REQUEST',
      'name: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
      { field: 'name' },
    );
  }
  return {
    id: `team_${randomBytes(6).toString('hex')}`,
    name: trimmed,
    enterprise: options.enterprise ? 1 : 0,
    zero_retention: options.zeroRetention ? 1 : 0,
    credits_micros: options.credits ?? null,
    budget_micros: options.budget?.micros ?? null,
    budget_period: options.budget?.period ?? null,
    created_at: createdAt,
  };
}

/** What a team change records: the fields it changed, before and after. */
function changed(before: TeamRow, after: TeamRow): Record<string, unknown> {
  const fields = ['blocked_at', 'enterprise', 'zero_retention', 'credits_micros', 'budget_micros', 'budget_period'] as const; // prettier-ignore
  const diff: Record<string, unknown> = {};
  for (const f of fields) if (before[f] !== after[f]) diff[f] = { from: before[f], to: after[f] };
  return diff;
}

/** INSUFFICIENT_SCOPE unless `actor` is the operator (the local process, or a key with `admin`). */
function requireOperator(actor: Caller | null): void {
  if (actor) requireScope(actor.scopes, 'admin', actor.keyId);
}

/** The teams service over the accounts and keys repositories. */
export function createTeamsService(deps: { accounts: AccountsRepo; keys: ApiKeysRepo; clock: Clock }): TeamsService {
  const { accounts } = deps;
  const now = () => deps.clock.now();

  /** The team `ref` (id or name) when `actor` reaches it; NOT_FOUND as for a team that does not exist. */
  const byRef = async (ref: string, actor: Caller | null): Promise<TeamRow> => {
    const row = (await accounts.team(ref)) ?? (await accounts.teamByName(ref));
    if (!row || !reaches(reachOf(actor, 'team'), { teamId: row.id, keyId: null })) throw noTeam(ref);
    return row;
  };

  const change = async (ref: string, actor: Caller | null, edit: (row: TeamRow) => TeamRow): Promise<TeamInfo> => {
    requireOperator(actor);
    const audit = (before: TeamRow, after: TeamRow) =>
      auditEntry(actor, after.id, 'teams.update', after.id, changed(before, after), now());
    const row = await accounts.updateTeam(ref, edit, audit);
    if (!row) throw noTeam(ref);
    return toInfo(row);
  };

  return {
    async create(name, options, actor) {
      requireOperator(actor);
      const row = newTeamRow(name, options, now().toISOString());
      if (await accounts.teamByName(row.name)) {
        throw new ServiceError('INVALID_REQUEST', `name: a team "${row.name}" exists already`, { field: 'name' });
      }
      const made = toInfo({ ...row, blocked_at: null });
      const detail = { name: made.name, enterprise: made.enterprise, zeroRetention: made.zeroRetention, credits: made.credits, budget: made.budget }; // prettier-ignore
      await accounts.insertTeam(row, auditEntry(actor, row.id, 'teams.create', row.id, detail, now()));
      return toInfo((await accounts.team(row.id))!);
    },
    async list(actor) {
      const teamId = teamFilter(reachOf(actor, 'team'));
      return (await accounts.teams()).filter((t) => teamId === undefined || t.id === teamId).map(toInfo);
    },
    get: async (ref, actor) => toInfo(await byRef(ref, actor)),
    idOf: async (ref, actor) => (await byRef(ref, actor)).id,
    update: (ref, options, actor) => change(ref, actor, (row) => withOptions(row, options)),
    block: (ref, actor) => change(ref, actor, (row) => ({ ...row, blocked_at: row.blocked_at ?? now().toISOString() })),
    unblock: (ref, actor) => change(ref, actor, (row) => ({ ...row, blocked_at: null })),
    async addCredits(ref, micros, actor) {
      requireOperator(actor);
      const row = await byRef(ref, actor);
      const audit = auditEntry(actor, row.id, 'teams.credits', row.id, { added: toDollars(micros) }, now());
      return toInfo((await accounts.addCredits(row.id, micros, audit))!);
    },
    async usage(fromMs, actor) {
      const seen = teamFilter(reachOf(actor, 'usage'));
      const teams = new Map(
        (await accounts.teams()).filter((t) => seen === undefined || t.id === seen).map((t) => [t.id, t]),
      );
      const keyName = new Map<string, string>();
      for (const team of teams.values()) {
        for (const k of await deps.keys.listOfTeam(team.id)) keyName.set(k.id, k.name);
      }
      const spend = (await accounts.spendSince(periodStart('day', fromMs))).filter((r) => teams.has(r.team_id));
      return usageLines(spend, teams, keyName);
    },
    series: (query, actor) =>
      usageSeries(
        {
          accounts,
          keys: deps.keys,
          now: () => now().getTime(),
          teamIdOf: async (ref, who) => (await byRef(ref, who)).id,
          unkeyedNames: UNKEYED,
        },
        query,
        actor,
      ),
  };
}
