/**
 * Metering: every priced request records what it cost, per key, UTC day and operation, in the
 * transaction that ends it, with how long it took (its latency bucket, ./latency.ts) beside it. When the key's team has credits, or the key or team a budget, a request
 * first holds the most it can cost (in the same IMMEDIATE transaction that checks what is left), and
 * is charged what it really cost (never more than it held) when it ends; so concurrent requests can
 * never spend the same credit twice. Without credits or budgets (the self-hosted default) nothing is
 * held or refused: usage is only recorded.
 */
import { randomBytes } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import { observe } from '../../lib/observe.js';
import type { AccountsRepo, Standing } from '../../store/contracts/accounts.js';
import type { ApiKeysRepo, KeyWithTeam } from '../../store/contracts/api-keys.js';

import { latencyBucket } from './latency.js';
import { formatDollars, toMicros } from './money.js';

/** Budget periods: UTC calendar days and months. */
export const BUDGET_PERIODS = ['day', 'month'] as const;
/** A budget period: a UTC calendar day or month. */
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** A hold outlives its request this long at most (a process that died while holding). */
const HOLD_MS = 10 * 60_000;
/** The team and key of calls made without a key (the local stdio MCP process, the CLI; x402 payments use `x402`). */
export const LOCAL = { keyId: '', teamId: 'team_default' } as const;

/** The first day (YYYY-MM-DD, UTC) of the budget period containing `nowMs`. */
export function periodStart(period: string, nowMs: number): string {
  const day = new Date(nowMs).toISOString().slice(0, 10);
  return period === 'month' ? `${day.slice(0, 8)}01` : day;
}

/** The first day of each budget period containing `nowMs`, by period. */
const periodStarts = (nowMs: number) => Object.fromEntries(BUDGET_PERIODS.map((p) => [p, periodStart(p, nowMs)]));

/** TEAM_BLOCKED for the team named. */
export const teamBlocked = (team: string) =>
  new ServiceError('TEAM_BLOCKED', `Team "${team}" is blocked; ask the operator to unblock it.`);

/** A request's money: settle it with what the request cost when it ends. */
export interface Charge {
  /** Records what the request cost (dollars) and releases its hold; later calls do nothing. */
  settle(costDollars: number): Promise<void>;
}

/** Holds and charges the money of requests. */
export interface Meter {
  /**
   * Admits a request of `operation` that may cost up to `maxDollars`: TEAM_BLOCKED for a blocked team,
   * NO_MORE_CREDITS, API_KEY_BUDGET_EXCEEDED or TEAM_BUDGET_EXCEEDED (402) when it cannot be paid for.
   */
  reserve(
    keyId: string | null,
    operation: string,
    maxDollars: number,
    unkeyedAs?: string,
    /** The key's row with its team, when the request already read it (verifying its key). */
    known?: KeyWithTeam,
  ): Promise<Charge>;
}

/** Refuses the request when what is left (credits, budgets), less what is held, is below `hold`. */
function check(key: KeyWithTeam, { team, teamHolds, keyHolds, teamSpend, keySpend }: Standing, hold: number): void {
  if (team.credits_micros !== null) {
    const left = team.credits_micros - teamHolds;
    if (left < hold || left <= 0) {
      throw new ServiceError(
        'NO_MORE_CREDITS',
        `Team "${team.name}" is out of credits: ${formatDollars(Math.max(0, left))} left, and this request may cost up to ${formatDollars(hold)}. Add credits with: trawl credits add --team ${team.name} AMOUNT`,
      );
    }
  }
  if (key.budget_micros !== null && key.budget_period) {
    const spent = keySpend + keyHolds;
    if (spent + hold > key.budget_micros) {
      throw new ServiceError(
        'API_KEY_BUDGET_EXCEEDED',
        `API key ${key.id} has spent ${formatDollars(spent)} of its ${formatDollars(key.budget_micros)} budget this ${key.budget_period}; this request may cost up to ${formatDollars(hold)}`,
      );
    }
  }
  if (team.budget_micros !== null && team.budget_period) {
    const spent = teamSpend + teamHolds;
    if (spent + hold > team.budget_micros) {
      throw new ServiceError(
        'TEAM_BUDGET_EXCEEDED',
        `Team "${team.name}" has spent ${formatDollars(spent)} of its ${formatDollars(team.budget_micros)} budget this ${team.budget_period}; this request may cost up to ${formatDollars(hold)}`,
      );
    }
  }
}

/** What the meter works with. */
interface MeterDeps {
  accounts: AccountsRepo;
  keys: ApiKeysRepo;
  now: () => number;
  logger: Logger;
}

/**
 * The charge of a request: when it ends, its cost (if any) is recorded and taken from the team's
 * credits, in one transaction that also releases its hold (if it holds money; never charging more than
 * held).
 */
function createCharge(
  deps: MeterDeps,
  who: { keyId: string; teamId: string; operation: string },
  held?: { id: string; micros: number },
): Charge {
  // how long the request took, from its admission to its end, is counted with its spend (latency.ts)
  const started = deps.now();
  let done = false;
  return {
    async settle(cost) {
      if (done) return;
      done = true;
      let micros = toMicros(cost);
      if (held && micros > held.micros) {
        const { operation, keyId } = who;
        deps.logger.warn(
          { operation, keyId, cost, held: held.micros / 1e6 },
          'a request cost more than its bound; charged the bound',
        );
        micros = held.micros;
      }
      if (micros === 0 && !held) return; // a free call, or one that failed: nothing to record
      const ended = deps.now();
      const day = periodStart('day', ended);
      await deps.accounts.settle({
        holdId: held?.id,
        spend: { key_id: who.keyId, team_id: who.teamId, day, operation: who.operation, micros },
        latencyBucket: latencyBucket(ended - started),
      });
      observe.spent(who.operation, micros / 1e6); // once recorded: what credits and budgets were charged
    },
  };
}

/** The meter over the accounts and keys repositories. */
export function createMeter(deps: MeterDeps): Meter {
  const { accounts } = deps;
  let lastSweep = 0;
  const charge = (keyId: string, teamId: string, operation: string, held?: { id: string; micros: number }) =>
    createCharge(deps, { keyId, teamId, operation }, held);

  return {
    async reserve(keyId, operation, maxDollars, unkeyedAs = LOCAL.keyId, known) {
      if (!keyId) return charge(unkeyedAs, LOCAL.teamId, operation);
      const key = known?.id === keyId ? known : await deps.keys.getWithTeam(keyId);
      if (!key) throw new ServiceError('INVALID_API_KEY', `API key ${keyId} is unknown or has been revoked.`);
      if (key.team_blocked_at) throw teamBlocked(key.team_name);
      const hold = toMicros(maxDollars);
      const now = deps.now();
      const limited = key.budget_micros !== null || key.team_credits_micros !== null || key.team_budget_micros !== null;
      if (hold === 0 || !limited) return charge(key.id, key.team_id, operation);
      if (now - lastSweep > 60_000) {
        lastSweep = now;
        await accounts.dropExpiredHolds(now);
      }
      const held = { id: randomBytes(12).toString('hex'), micros: hold };
      // checked again inside the transaction that holds: what another request spent or held meanwhile counts
      await accounts.holdIfAllowed(
        {
          hold: { id: held.id, key_id: key.id, team_id: key.team_id, amount_micros: hold, expires_ms: now + HOLD_MS },
          nowMs: now,
          keyPeriod: key.budget_period,
          periodStarts: periodStarts(now),
        },
        (standing) => check(key, standing, hold),
      );
      return charge(key.id, key.team_id, operation, held);
    },
  };
}
