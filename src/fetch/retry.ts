/**
 * When to try a failed request again: exponential backoff with jitter for transient failures, a 429's
 * Retry-After honoured up to a cap, and never a wait that would outlast the fetch's deadline.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`; rejects with `signal.reason` if it aborts. Injectable so tests need not wait. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The real sleep. */
export const realSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, signal ? { signal } : undefined);
};

/** The clock of a retrying client, injectable so tests need not wait: its sleep, time and jitter. */
export interface RetryClock {
  sleep?: Sleep;
  now?: () => number;
  /** In [0, 1). */
  random?: () => number;
}

export interface RetryPolicy {
  /** Further attempts after the first. */
  retries: number;
  /** First backoff; doubles per attempt. */
  baseDelayMs: number;
  /** Largest backoff between attempts. */
  maxDelayMs: number;
  /** Largest Retry-After honoured; a longer one is not waited for. */
  maxRetryAfterMs: number;
  /** In [0, 1); injectable for deterministic tests. */
  random: () => number;
}

/** Parses Retry-After (delta seconds or an HTTP date) into ms from `nowMs`; undefined when absent or invalid. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * The wait before attempt `attempt + 1` (attempt counts from 0), or undefined when no retry should be
 * made: retries used up, Retry-After over the cap, or the wait would not end before `remainingMs`.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  remainingMs: number,
  retryAfterMs: number | undefined,
): number | undefined {
  if (attempt >= policy.retries) return undefined;
  let wait: number;
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > policy.maxRetryAfterMs) return undefined;
    wait = retryAfterMs;
  } else {
    const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
    // "Equal jitter": half fixed, half random, so attempts of many clients spread out but never collapse to 0.
    wait = ceiling / 2 + policy.random() * (ceiling / 2);
  }
  // Leave room for the attempt itself, not just the wait.
  return wait < remainingMs * 0.8 ? Math.round(wait) : undefined;
}
