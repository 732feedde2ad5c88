/**
 * Requests in flight per API key, in this process: the default guard against one key flooding a
 * server. A client that sends one request after another never meets it; a burst of concurrent ones
 * beyond the limit is refused until one ends. (Per process: each `trawl serve` worker counts its own.)
 */

/** A slot taken: give it back when the request ends (more than once is harmless). */
export type Release = () => void;

/** Counts of requests in flight, per key, in this process. */
export interface InFlightLimiter {
  /** A slot for `keyId` under `limit` (≤ 0: no limit), or null when `limit` are already in flight. */
  enter(keyId: string, limit: number): Release | null;
  /** Requests of `keyId` in flight now. */
  count(keyId: string): number;
}

/** Counts requests in flight per key, in this process. */
export function createInFlightLimiter(): InFlightLimiter {
  const inFlight = new Map<string, number>();
  return {
    enter(keyId, limit) {
      const now = inFlight.get(keyId) ?? 0;
      if (limit > 0 && now >= limit) return null;
      inFlight.set(keyId, now + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (inFlight.get(keyId) ?? 1) - 1;
        if (left > 0) inFlight.set(keyId, left);
        else inFlight.delete(keyId);
      };
    },
    count: (keyId) => inFlight.get(keyId) ?? 0,
  };
}
