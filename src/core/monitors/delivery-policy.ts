/**
 * The outbox's rules for one delivery: when a failed attempt is retried, how long a claim is held, how
 * many attempts run at once, and which receiver host a delivery counts against. Pure functions.
 */

const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 3_600_000;
/**
 * Attempts in flight at once in one process, over all receivers: well above the per-host cap (8 in
 * app.ts), so several slow receivers at once still leave slots for the others.
 */
export const DELIVERY_CONCURRENCY = 64;

/** The wait before retry number `attempt` (1 = after the first failure): exponential, capped, jittered. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(attempt - 1, 20));
  return Math.round(base * (0.5 + random()));
}

/**
 * How long a claimed delivery stays with its process: twice the attempt time-out (which bounds the whole
 * attempt, redirects included) plus a margin to record the outcome (30 s, or the work lease
 * `TRAWL_LEASE_MS` when shorter), so an attempt always ends and is recorded before another process may
 * take the delivery; only a process that died lets its lease lapse.
 */
export function deliveryLeaseMs(attemptTimeoutMs: number, workLeaseMs = 60_000): number {
  return 2 * attemptTimeoutMs + Math.min(30_000, workLeaseMs);
}

/** URL → host, so a scan of many due deliveries does not parse each URL again. */
const hosts = new Map<string, string>();

/** The receiver host a delivery's slots are counted by (`host:port`, lower case); the URL when unparsable. */
export function hostOf(url: string): string {
  let host = hosts.get(url);
  if (host === undefined) {
    try {
      host = new URL(url).host;
    } catch {
      host = url;
    }
    if (hosts.size >= 10_000) hosts.clear();
    hosts.set(url, host);
  }
  return host;
}
