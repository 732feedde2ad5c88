/**
 * Per-key request-rate limits: a token bucket of one second of burst (max(1, qps) tokens) refilled
 * continuously at qps tokens a second, one token a request. The bucket lives in SQLite and each take is
 * ONE `INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING` statement with the refill in SQL, so
 * every process sharing the data directory draws from the same bucket. Chosen over an IMMEDIATE
 * transaction (BEGIN, SELECT, UPSERT, COMMIT): as atomic, since SQLite runs a write statement whole
 * under the write lock, but one statement instead of four and no JavaScript run while the lock is held
 * (about 15% more takes a second in one process). A request let through costs that one statement; a
 * refusal changes no row and adds one primary-key read to say when to retry.
 */
import type { BucketState, RateBucketsRepo } from '../../store/contracts/rate-buckets.js';

/** The answer to one take: let through or not, and where the key's bucket stands. */
export interface RateDecision {
  allowed: boolean;
  /** Requests per second allowed for the key; 0 when the key has no limit. */
  limit: number;
  /** Whole requests still available right now (after this one when allowed); Infinity without a limit. */
  remaining: number;
  /** Epoch ms when the bucket will be full again (now without a limit). */
  resetAtMs: number;
  /** When refused: ms until one request is available (≥ 1); 0 when allowed. */
  retryAfterMs: number;
}

/** Per-key request rates over shared token buckets. */
export interface RateLimiter {
  /**
   * Takes one request from `keyId`'s bucket at `qps` requests a second (the capacity follows `qps` if
   * it changed since the last call). `qps` ≤ 0 or not finite means no limit: always allowed, and
   * nothing is written. Never throws for a refusal; the caller turns `allowed: false` into its answer.
   */
  take(keyId: string, qps: number): Promise<RateDecision>;
}

/** Tolerance for floating-point refills when counting whole tokens (0.3 + 0.7 may be 0.9999…). */
const EPSILON = 1e-9;

/** The rate limiter over the shared buckets of `repo`. */
export function createRateLimiter(repo: RateBucketsRepo, options: { now: () => number }): RateLimiter {
  return {
    async take(keyId, qps) {
      const nowMs = options.now();
      if (!(qps > 0) || !Number.isFinite(qps)) {
        return { allowed: true, limit: 0, remaining: Infinity, resetAtMs: nowMs, retryAfterMs: 0 };
      }
      const capacity = Math.max(1, qps);
      const taken = await repo.take({ keyId, nowMs, ratePerSec: qps, capacity });
      if (taken) {
        return {
          allowed: true,
          limit: qps,
          remaining: Math.floor(taken.tokens + EPSILON),
          resetAtMs: reachesAt(taken, capacity, qps),
          retryAfterMs: 0,
        };
      }
      // Refused, so the stored bucket holds less than one token at nowMs and time alone refills it.
      // Another process may have taken from it since; the answer is then a little optimistic.
      const bucket = (await repo.get(keyId)) ?? { tokens: 0, updatedMs: nowMs };
      return {
        allowed: false,
        limit: qps,
        remaining: 0,
        resetAtMs: reachesAt(bucket, capacity, qps),
        retryAfterMs: Math.max(1, reachesAt(bucket, 1, qps) - nowMs),
      };
    },
  };
}

/** The epoch ms (rounded up) at which `bucket`, refilling at `qps`, holds `tokens` tokens. */
function reachesAt(bucket: BucketState, tokens: number, qps: number): number {
  const missing = Math.max(0, tokens - bucket.tokens);
  return bucket.updatedMs + Math.ceil((missing * 1000) / qps - EPSILON);
}
