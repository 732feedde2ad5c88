/**
 * The usage page's numbers, all from the rows of `GET /console/api/usage/series`: totals per day, per
 * key and per operation, and the CSV of the rows. Charts, table and download read these same values.
 */
import { toCsv } from './csv.js';

/** One row: a key's requests of one operation on one UTC day. */
export interface UsageRow {
  day: string;
  teamId: string;
  team: string;
  keyId: string | null;
  keyName: string | null;
  operation: string;
  requests: number;
  spent: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface UsageSeries {
  from: string;
  to: string;
  data: UsageRow[];
}

export interface DayTotal {
  day: string;
  requests: number;
  spent: number;
  /** Latency percentiles of the day's rows, weighted by their requests; null: none recorded. */
  p50Ms: number | null;
  p95Ms: number | null;
}

/** Dollars added up without float dust (to the micro-dollar, as the server counts). */
const addDollars = (a: number, b: number) => Math.round((a + b) * 1e6) / 1e6;

/** Every UTC day from `from` to `to`, both included (at most 366). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end && days.length < 366; t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/** Requests, spend and latency per day, a zero day for a day without rows. */
export function perDay(rows: readonly UsageRow[], days: readonly string[]): DayTotal[] {
  const acc = new Map(days.map((day) => [day, { requests: 0, spent: 0, w: 0, p50: 0, p95: 0 }]));
  for (const row of rows) {
    const a = acc.get(row.day);
    if (!a) continue;
    a.requests += row.requests;
    a.spent = addDollars(a.spent, row.spent);
    if (row.p50Ms !== null && row.p95Ms !== null && row.requests > 0) {
      a.w += row.requests;
      a.p50 += row.p50Ms * row.requests;
      a.p95 += row.p95Ms * row.requests;
    }
  }
  return days.map((day) => {
    const a = acc.get(day)!;
    const latency = (sum: number) => (a.w > 0 ? Math.round(sum / a.w) : null);
    return { day, requests: a.requests, spent: a.spent, p50Ms: latency(a.p50), p95Ms: latency(a.p95) };
  });
}

export interface GroupTotal {
  label: string;
  requests: number;
  spent: number;
}

/** Totals grouped by `keyOf`, the largest request counts first. */
function groupBy(rows: readonly UsageRow[], keyOf: (row: UsageRow) => string): GroupTotal[] {
  const acc = new Map<string, GroupTotal>();
  for (const row of rows) {
    const label = keyOf(row);
    const a = acc.get(label) ?? { label, requests: 0, spent: 0 };
    a.requests += row.requests;
    a.spent = addDollars(a.spent, row.spent);
    acc.set(label, a);
  }
  return [...acc.values()].sort((a, b) => b.requests - a.requests || b.spent - a.spent);
}

/** A key's name for people: its name (and team, when several teams show), or its id. */
export function keyLabel(row: UsageRow, withTeam: boolean): string {
  const name = row.keyName ?? row.keyId ?? 'the whole team';
  return withTeam ? `${row.team} / ${name}` : name;
}

export function byKey(rows: readonly UsageRow[]): GroupTotal[] {
  const teams = new Set(rows.map((r) => r.teamId)).size;
  return groupBy(rows, (row) => keyLabel(row, teams > 1));
}

export function byOperation(rows: readonly UsageRow[]): GroupTotal[] {
  return groupBy(rows, (row) => row.operation);
}

/** Requests and dollars of the whole period. */
export function totals(rows: readonly UsageRow[]): { requests: number; spent: number } {
  let requests = 0;
  let spent = 0;
  for (const row of rows) {
    requests += row.requests;
    spent = addDollars(spent, row.spent);
  }
  return { requests, spent };
}

export const CSV_HEADER = ['day', 'team', 'teamId', 'key', 'keyId', 'operation', 'requests', 'spent', 'p50Ms', 'p95Ms'];

/** The table's rows as CSV, in the table's order. */
export function usageCsv(rows: readonly UsageRow[]): string {
  return toCsv(
    CSV_HEADER,
    rows.map((r) => [r.day, r.team, r.teamId, r.keyName, r.keyId, r.operation, r.requests, r.spent, r.p50Ms, r.p95Ms]),
  );
}
