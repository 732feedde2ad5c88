/**
 * The contract of the accounts store: teams, what was spent, and the money held by requests in flight
 * (integer micro-dollars). Checking and holding a request's money, and charging it, are each one
 * method, atomic on every backend (SQLite: sqlite/accounts.ts; PostgreSQL: pg/accounts.ts).
 */
import type { NewAuditRecord } from './audit.js';

/** A row of `teams`. */
export interface TeamRow {
  id: string;
  name: string;
  blocked_at: string | null;
  enterprise: number;
  zero_retention: number;
  /** null: no credit limit. */
  credits_micros: number | null;
  budget_micros: number | null;
  /** `day` or `month` (UTC calendar periods). */
  budget_period: string | null;
  created_at: string;
}

/** A row of `spend`: what a key spent on one operation on one UTC day. */
export interface SpendRow {
  key_id: string;
  team_id: string;
  day: string;
  operation: string;
  requests: number;
  micros: number;
}

/**
 * A row of `request_latency`: how many of a key's requests of one operation on one UTC day took a
 * duration in log bucket `bucket` (core/accounts/latency.ts: durations in (1.2^(b-1), 1.2^b] ms).
 */
export interface LatencyRow {
  key_id: string;
  team_id: string;
  day: string;
  operation: string;
  bucket: number;
  requests: number;
}

/** A hold: money a live request may still spend, until it settles or `expires_ms` passes. */
export interface HoldRow {
  id: string;
  key_id: string;
  team_id: string;
  amount_micros: number;
  expires_ms: number;
}

/** What a team and one of its keys have left, read inside the transaction that may hold more. */
export interface Standing {
  /** The team as it is now. */
  team: TeamRow;
  /** Held by live requests of the team, and of the key. */
  teamHolds: number;
  keyHolds: number;
  /** Spent since the start of the team's budget period, and of the key's (0 without a budget). */
  teamSpend: number;
  keySpend: number;
}

/** Who holds money, and from which days (YYYY-MM-DD) each budget period counts (by period name). */
export interface HoldRequest {
  hold: HoldRow;
  nowMs: number;
  /** The key's budget period (`day`, `month`), if it has a budget. */
  keyPeriod: string | null;
  /** The first day of each budget period containing now: `{day, month}`. */
  periodStarts: Record<string, string>;
}

/**
 * The end of a request: its hold released, what it cost recorded and taken from its team's credits, and
 * (when its spend is recorded) its duration counted in its latency bucket, beside it.
 */
export interface ChargeRecord {
  holdId?: string;
  spend: Omit<SpendRow, 'requests'>;
  /** The request's latency bucket (counted once, with the spend, when the spend is recorded). */
  latencyBucket?: number;
}

/**
 * What usage reads: the daily spend rows, and the months retention folded (`usage_months`, each as a
 * row on its month's first day), so sums over whole months are the same before and after a fold
 * (store/contracts/retention.ts). Both backends read `FROM <SPEND_READ> AS spend`.
 */
export const SPEND_READ = `(SELECT key_id, team_id, day, operation, requests, micros FROM spend
  UNION ALL SELECT key_id, team_id, month || '-01', operation, requests, micros FROM usage_months)`;

/** What latency reads: the daily buckets and the folded months, as `SPEND_READ`. */
export const LATENCY_READ = `(SELECT key_id, team_id, day, operation, bucket, requests FROM request_latency
  UNION ALL SELECT key_id, team_id, month || '-01', operation, bucket, requests FROM latency_months)`;

/** Teams, spend and holds. */
export interface AccountsRepo {
  /** Inserts a team, and the audit record of its making when given, at once. */
  insertTeam(row: Omit<TeamRow, 'blocked_at'>, audit?: NewAuditRecord): Promise<void>;
  team(id: string): Promise<TeamRow | undefined>;
  teamByName(name: string): Promise<TeamRow | undefined>;
  teams(): Promise<TeamRow[]>;
  /**
   * Applies `edit` to the team with id or name `ref` (it may throw to refuse) and saves the result with
   * the audit record `audit` makes of the change, in one transaction; the team as saved, or undefined
   * when there is none.
   */
  updateTeam(
    ref: string,
    edit: (row: TeamRow) => TeamRow,
    audit?: (before: TeamRow, after: TeamRow) => NewAuditRecord,
  ): Promise<TeamRow | undefined>;
  /** Adds credits to a team (one without a credit limit starts from zero) with its audit record; the team after. */
  addCredits(teamId: string, micros: number, audit?: NewAuditRecord): Promise<TeamRow | undefined>;
  /**
   * In one IMMEDIATE transaction: reads the standing of `hold`'s team and key, lets `allow` refuse
   * (it throws), and inserts the hold. Concurrent requests never hold the same money twice.
   */
  holdIfAllowed(request: HoldRequest, allow: (standing: Standing) => void): Promise<void>;
  /**
   * In one transaction (one statement on PostgreSQL): releases the hold (if any) and, when the charge
   * costs something, records the spend, takes it from the credits and counts the latency bucket.
   */
  settle(charge: ChargeRecord): Promise<void>;
  /** Spend rows on days `fromDay` (YYYY-MM-DD) and later (a folded month: one row on its first day). */
  spendSince(fromDay: string): Promise<SpendRow[]>;
  /** Spend rows on days `fromDay` to `toDay` (YYYY-MM-DD, both included), of one team when given. */
  spendBetween(fromDay: string, toDay: string, teamId?: string): Promise<SpendRow[]>;
  /** Latency rows on days `fromDay` to `toDay` (both included), of one team when given. */
  latencyBetween(fromDay: string, toDay: string, teamId?: string): Promise<LatencyRow[]>;
  /** Forgets holds of requests whose process died; how many. */
  dropExpiredHolds(nowMs: number): Promise<number>;
}
