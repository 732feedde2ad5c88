/**
 * Request latency as counts in logarithmic buckets: bucket b holds durations in (1.2^(b-1), 1.2^b] ms
 * (b = ceil(log(ms) / log(1.2)), a duration under 1 ms counted as 1 ms, bucket 0). Each metered request
 * adds one to its bucket (meter.ts, with its spend); a percentile read back from the counts is the upper
 * bound of the bucket it falls in, so it is never below the true value and at most 20 % above it.
 */

/** The ratio of one bucket's upper bound to the one below. */
const RATIO = 1.2;
const LOG_RATIO = Math.log(RATIO);

/** The bucket of a duration in milliseconds. */
export function latencyBucket(ms: number): number {
  const clamped = Number.isFinite(ms) ? Math.max(1, ms) : 1;
  // a value on a bound (1.2^b) may come out of the logarithm a hair above b: the ceil would then be b + 1
  return Math.max(0, Math.ceil(Math.log(clamped) / LOG_RATIO - 1e-9));
}

/** The upper bound of bucket `b`, in whole milliseconds (rounded up, so still an upper bound). */
export function bucketUpperMs(b: number): number {
  return Math.ceil(RATIO ** b - 1e-9);
}

/**
 * The `q` quantile (0 < q ≤ 1) of counted durations, as the upper bound of the bucket holding the
 * ceil(q × n)-th smallest; null when nothing was counted.
 */
export function quantileMs(counts: ReadonlyMap<number, number>, q: number): number | null {
  let total = 0;
  for (const n of counts.values()) total += n;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const b of [...counts.keys()].sort((x, y) => x - y)) {
    seen += counts.get(b)!;
    if (seen >= rank) return bucketUpperMs(b);
  }
  return null;
}
