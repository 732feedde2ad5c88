/**
 * Teams: made, listed, blocked and unblocked, given credits and budgets, marked enterprise or zero
 * retention by the operator (`trawl teams …`, `trawl credits add`, the admin routes), and what they and
 * their keys spent (`trawl usage`, `GET /admin/usage`). Keys belong to teams; the team `default` holds
 * keys made without one.
 */
import { randomBytes } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { AccountsRepo, SpendRow, TeamRow } from '../../store/accounts.repo.js';
import type { ApiKeysRepo } from '../../store/api-keys.repo.js';
import type { Clock } from '../context.js';
import { BUDGET_PERIODS, type BudgetPeriod, LOCAL, periodStart } from './meter.js';
import { toDollars } from './money.js';

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

/** Teams: the operator's accounts, their money and what they spent. */
export interface TeamsService {
  create(name: string, options?: TeamOptions): Promise<TeamInfo>;
  list(): Promise<TeamInfo[]>;
  get(ref: string): Promise<TeamInfo>;
  /** The team's id for a name or id; NOT_FOUND otherwise. */
  idOf(ref: string): Promise<string>;
  update(ref: string, options: TeamOptions): Promise<TeamInfo>;
  block(ref: string): Promise<TeamInfo>;
  unblock(ref: string): Promise<TeamInfo>;
  /** Adds credits (micro-dollars); a team without a credit limit starts from zero and gets one. */
  addCredits(ref: string, micros: number): Promise<TeamInfo>;
  /** Spend per key and per team (a line with `keyId` null) since `fromMs`, UTC days. */
  usage(fromMs: number): Promise<UsageLine[]>;
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

/** The teams service over the accounts and keys repositories. */
export function createTeamsService(deps: { accounts: AccountsRepo; keys: ApiKeysRepo; clock: Clock }): TeamsService {
  const { accounts } = deps;

  const byRef = async (ref: string): Promise<TeamRow> => {
    const row = (await accounts.team(ref)) ?? (await accounts.teamByName(ref));
    if (!row) throw noTeam(ref);
    return row;
  };

  const change = async (ref: string, edit: (row: TeamRow) => TeamRow): Promise<TeamInfo> => {
    const row = await accounts.updateTeam(ref, edit);
    if (!row) throw noTeam(ref);
    return toInfo(row);
  };

  return {
    async create(name, options = {}) {
      const row = newTeamRow(name, options, deps.clock.now().toISOString());
      if (await accounts.teamByName(row.name)) {
        throw new ServiceError('INVALID_REQUEST', `name: a team "${row.name}" exists already`, { field: 'name' });
      }
      await accounts.insertTeam(row);
      return toInfo((await accounts.team(row.id))!);
    },
    list: async () => (await accounts.teams()).map(toInfo),
    get: async (ref) => toInfo(await byRef(ref)),
    idOf: async (ref) => (await byRef(ref)).id,
    update: (ref, options) => change(ref, (row) => withOptions(row, options)),
    block: (ref) => change(ref, (row) => ({ ...row, blocked_at: row.blocked_at ?? deps.clock.now().toISOString() })),
    unblock: (ref) => change(ref, (row) => ({ ...row, blocked_at: null })),
    async addCredits(ref, micros) {
      const row = await byRef(ref);
      return toInfo((await accounts.addCredits(row.id, micros))!);
    },
    async usage(fromMs) {
      const teams = new Map((await accounts.teams()).map((t) => [t.id, t]));
      const keyName = new Map<string, string>();
      for (const team of teams.values()) {
        for (const k of await deps.keys.listOfTeam(team.id)) keyName.set(k.id, k.name);
      }
      return usageLines(await accounts.spendSince(periodStart('day', fromMs)), teams, keyName);
    },
  };
}
