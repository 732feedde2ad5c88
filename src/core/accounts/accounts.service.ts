/**
 * The accounts layer every operation passes through (ops/invoke.ts): the key's scope, its team's
 * compliance and retention modes, and the charge (./meter.ts). Request rates are limited by the doors
 * before a request is even parsed (./rate-limiter.ts). docs/accounts.md says what each refusal means.
 */
import { ServiceError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import type { ChatModel } from '../../providers/model/types.js';
import type { AccountsRepo } from '../../store/contracts/accounts.js';
import type { ApiKeysRepo } from '../../store/contracts/api-keys.js';
import type { RateBucketsRepo } from '../../store/contracts/rate-buckets.js';

import type { Caller, Clock } from '../context.js';
import type { ModelPrice } from '../synthesis/pricing.js';
import type { Prices } from '../pricing.js';
import { modelCallBound, type Pricing } from './bounds.js';
import { createMeter, teamBlocked, type Charge, type Meter } from './meter.js';
import { createRateLimiter, type RateDecision } from './rate-limiter.js';
import { createInFlightLimiter, type Release } from './in-flight.js';
import { verifiedKey } from './keys.service.js';
import { requireScope, type Scope } from '../access/scopes.js';
import { createTeamsService, type TeamsService } from './teams.service.js';

/** What `admit` needs to know of an operation and its input. */
export interface AdmitRequest {
  /** The scope the operation needs; undefined: any key (a list of the caller's own MCP tasks). */
  scope: Scope | undefined;
  /** Operation name, as usage reports show it (`search`, `contents`, `monitors.create`, …). */
  operation: string;
  /** The most the request can cost, in dollars (0: free). */
  maxDollars: number;
  /** The request's `compliance` field, if any. */
  compliance?: string | null;
  /** Whether the operation keeps the caller's request content (a monitor keeps its query). */
  retainsContent?: boolean;
  /** Whom usage without a key is recorded under (`x402`); the local process by default. */
  unkeyedAs?: string;
}

/** The accounts layer: admission of requests (scope, team modes, money) and of their rate. */
export interface Accounts {
  teams: TeamsService;
  meter: Meter;
  /** The price table, and what one model call can cost at most (the operator's model; 0 without one). */
  readonly pricing: Pricing;
  /** Scope, team mode and money checks; the returned charge records the cost when the request ends. */
  admit(request: AdmitRequest, caller: Caller | null): Promise<Charge>;
  /**
   * Admits one request of `caller`: one from its rate budget (`caller.qps`, else the operator's
   * default; none by default) and a slot among its requests in flight (the operator's limit). The
   * door calls `release` when the request ends; a refusal says why and when to retry.
   */
  enterRequest(caller: Caller): Promise<RequestEntry>;
}

/** A request let in (give back its slot with `release`), or refused with when to retry. */
export type RequestEntry =
  | { allowed: true; rate: RateDecision; release: Release }
  | { allowed: false; rate: RateDecision; retryAfterMs: number; message: string };

/** How long a client refused for too many requests in flight is told to wait. */
const IN_FLIGHT_RETRY_MS = 1000;

/** The charge of a request when metering is off. */
const FREE: Charge = { settle: () => Promise.resolve() };

/** INSUFFICIENT_SCOPE, or FEATURE_DISABLED for a mode the key's team lacks (hipaa) or forbids (keeping content). */
function requireAllowed(request: AdmitRequest, caller: Caller): void {
  if (request.scope) requireScope(caller.scopes, request.scope, caller.keyId);
  if (request.compliance === 'hipaa' && !caller.enterprise) {
    throw new ServiceError(
      'FEATURE_DISABLED',
      'compliance: "hipaa" is for enterprise teams, and this key\'s team is not one; the operator marks a team with: trawl teams update TEAM --enterprise true',
      { field: 'compliance' },
    );
  }
  if (request.retainsContent && caller.zeroRetention) {
    throw new ServiceError(
      'FEATURE_DISABLED',
      `${request.operation}: this key's team has zero data retention, and this operation would keep the request's content (docs/accounts.md)`,
    );
  }
}

/**
 * TEAM_BLOCKED when the key of `caller` belongs to a blocked team, as read with the key when it was
 * verified. The doors call it right after authentication, so a blocked team's key is refused on every
 * route and every MCP method (tasks and resources included), not only by operations that are metered.
 */
export function requireActiveTeam(caller: Caller): void {
  const key = verifiedKey(caller);
  if (key?.team_blocked_at) throw teamBlocked(key.team_name);
}

/** TEAM_BLOCKED unless the key's team may call (the meter checks this itself when metering is on). */
async function requireUnblocked(keys: ApiKeysRepo, caller: Caller): Promise<void> {
  const key = verifiedKey(caller) ?? (await keys.getWithTeam(caller.keyId));
  if (key?.team_blocked_at) throw teamBlocked(key.team_name);
}

/** What the accounts layer is built from. */
export interface AccountsDeps {
  accounts: AccountsRepo;
  keys: ApiKeysRepo;
  rateBuckets: RateBucketsRepo;
  clock: Clock;
  logger: Logger;
  model?: ChatModel;
  modelPrice?: Partial<ModelPrice>;
  prices: Prices;
  /** Requests per second per key unless a key says otherwise; 0: no limit. */
  defaultQps: number;
  /** Requests of one key in flight at once in this process; 0: no limit. */
  maxInFlight: number;
  /** Off: nothing recorded, credits and budgets not enforced (TRAWL_METERING=false). */
  metering: boolean;
}

/** The accounts layer over its repositories: teams, meter, rate limiter and in-flight counts. */
export function createAccounts(deps: AccountsDeps): Accounts {
  const { accounts } = deps;
  const now = () => deps.clock.now().getTime();
  const meter = createMeter({ accounts, keys: deps.keys, now, logger: deps.logger });
  const rates = createRateLimiter(deps.rateBuckets, { now });
  const inFlight = createInFlightLimiter();
  return {
    teams: createTeamsService({ accounts, keys: deps.keys, clock: deps.clock }),
    meter,
    pricing: { prices: deps.prices, modelCall: modelCallBound(deps.model, deps.modelPrice) },
    async admit(request, caller) {
      if (caller) requireAllowed(request, caller);
      if (!deps.metering) {
        if (caller) await requireUnblocked(deps.keys, caller);
        return FREE;
      }
      const known = caller ? verifiedKey(caller) : undefined;
      return meter.reserve(caller?.keyId ?? null, request.operation, request.maxDollars, request.unkeyedAs, known);
    },
    async enterRequest(caller) {
      const rate = await rates.take(caller.keyId, caller.qps ?? deps.defaultQps);
      if (!rate.allowed) {
        const message = `API key ${caller.keyId} is limited to ${rate.limit} requests per second`;
        return { allowed: false, rate, retryAfterMs: rate.retryAfterMs, message };
      }
      const release = inFlight.enter(caller.keyId, deps.maxInFlight);
      if (release) return { allowed: true, rate, release };
      const message = `API key ${caller.keyId} has ${deps.maxInFlight} requests in flight, the most it may (TRAWL_RATE_LIMIT_CONCURRENCY)`;
      return { allowed: false, rate, retryAfterMs: IN_FLIGHT_RETRY_MS, message };
    },
  };
}
