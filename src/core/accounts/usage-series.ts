/**
 * Usage as a series: what each key spent per UTC day and operation (the `spend` rows `/admin/usage` and
 * `trawl usage` sum, so the totals agree for the same days), with the p50 and p95 of those requests'
 * durations read from their latency buckets (./latency.ts). The console's usage charts and its CSV are
 * drawn from it.
 */
import { ServiceError } from '../../errors.js';
import type { AccountsRepo, LatencyRow, SpendRow, TeamRow } from '../../store/contracts/accounts.js';
import type { ApiKeysRepo } from '../../store/contracts/api-keys.js';
import { reachOf, teamFilter } from '../access/access.js';
import type { Caller } from '../context.js';
import { quantileMs } from './latency.js';
import { periodStart } from './meter.js';
import { toDollars } from './money.js';

/** The longest series one request may ask for, in days. */
export const MAX_SERIES_DAYS = 366;
/** The days a series covers when none are named: the last 30, today included. */
export const DEFAULT_SERIES_DAYS = 30;

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `text` is a real calendar date written YYYY-MM-DD (2026-02-30 is not). */
export function isCalendarDate(text: string): boolean {
  return DATE.test(text) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);
}

/** The days from `from` to `to`, both included. */
const daysBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS) + 1;

/** What is wrong with a range of days, naming the field to change; undefined when it is a range. */
export function rangeProblem(from: string, to: string): { field: 'from' | 'to'; message: string } | undefined {
  if (from > to) return { field: 'from', message: `must not be after to (${to})` };
  const days = daysBetween(from, to);
  if (days > MAX_SERIES_DAYS) return { field: 'to', message: `the range is ${days} days; at most ${MAX_SERIES_DAYS}` };
  return undefined;
}

/** One point of the series: a key's requests of one operation on one day. */
export interface UsagePoint {
  day: string;
  teamId: string;
  team: string;
  keyId: string;
  keyName: string;
  operation: string;
  requests: number;
  /** Dollars. */
  spent: number;
  /** Upper bounds of the latency buckets holding the median and the 95th percentile; null without latency. */
  p50Ms: number | null;
  p95Ms: number | null;
}

/** What a series asks for: days (YYYY-MM-DD, both included; default the last 30) and a team to narrow to. */
export interface SeriesQuery {
  from?: string;
  to?: string;
  /** A team's id or name; default: every team the caller reaches. */
  team?: string;
}

export interface UsageSeries {
  from: string;
  to: string;
  data: UsagePoint[];
}

/** What a series reads: spend and latency, teams, key names; the team a name or id stands for. */
export interface SeriesDeps {
  accounts: AccountsRepo;
  keys: ApiKeysRepo;
  now: () => number;
  /** The team's id for a name or id the actor reaches; NOT_FOUND otherwise (teams.service.ts). */
  teamIdOf(ref: string, actor: Caller | null): Promise<string>;
  /** How usage recorded without a key is named. */
  unkeyedNames: Readonly<Record<string, string>>;
}

/** The range a query names, defaults applied; INVALID_REQUEST_QUERY naming the field when it is not one. */
function rangeOf(query: SeriesQuery, nowMs: number): { from: string; to: string } {
  for (const field of ['from', 'to'] as const) {
    const value = query[field];
    if (value !== undefined && !isCalendarDate(value)) {
      throw badQuery(field, `must be a date written YYYY-MM-DD (got "${value.slice(0, 40)}")`);
    }
  }
  const to = query.to ?? periodStart('day', nowMs);
  const from = query.from ?? periodStart('day', Date.parse(to) - (DEFAULT_SERIES_DAYS - 1) * DAY_MS);
  const problem = rangeProblem(from, to);
  if (problem) throw badQuery(problem.field, problem.message);
  return { from, to };
}

const badQuery = (field: string, message: string) =>
  new ServiceError('INVALID_REQUEST_QUERY', `${field}: ${message}`, { field });

const pointKey = (r: Pick<SpendRow, 'day' | 'key_id' | 'operation'>) => `${r.day}\u0000${r.key_id}\u0000${r.operation}`;

/** The latency buckets of each day, key and operation. */
function bucketsOf(rows: LatencyRow[]): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  for (const row of rows) {
    const key = pointKey(row);
    const counts = out.get(key) ?? new Map<number, number>();
    counts.set(row.bucket, (counts.get(row.bucket) ?? 0) + row.requests);
    out.set(key, counts);
  }
  return out;
}

/** The series of `query` as `actor` reaches it (the usage rule of core/access, as `/admin/usage`). */
export async function usageSeries(deps: SeriesDeps, query: SeriesQuery, actor: Caller | null): Promise<UsageSeries> {
  const { from, to } = rangeOf(query, deps.now());
  const reached = teamFilter(reachOf(actor, 'usage'));
  const teamId = query.team === undefined ? reached : await deps.teamIdOf(query.team, actor);
  const teams = new Map<string, TeamRow>(
    (await deps.accounts.teams()).filter((t) => teamId === undefined || t.id === teamId).map((t) => [t.id, t]),
  );
  const keyName = new Map<string, string>();
  for (const team of teams.values()) for (const k of await deps.keys.listOfTeam(team.id)) keyName.set(k.id, k.name);
  const spend = (await deps.accounts.spendBetween(from, to, teamId)).filter((r) => teams.has(r.team_id));
  const latency = bucketsOf(await deps.accounts.latencyBetween(from, to, teamId));
  const data = spend.map((row): UsagePoint => {
    const counts = latency.get(pointKey(row)) ?? new Map<number, number>();
    return {
      day: row.day,
      teamId: row.team_id,
      team: teams.get(row.team_id)!.name,
      keyId: row.key_id,
      keyName: deps.unkeyedNames[row.key_id] ?? keyName.get(row.key_id) ?? '(deleted)',
      operation: row.operation,
      requests: row.requests,
      spent: toDollars(row.micros),
      p50Ms: quantileMs(counts, 0.5),
      p95Ms: quantileMs(counts, 0.95),
    };
  });
  return { from, to, data };
}
