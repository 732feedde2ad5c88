/**
 * Latency buckets (src/core/accounts/latency.ts): a duration's bucket is ceil(log(ms) / log(1.2)) with
 * ms clamped to at least 1, a bucket's upper bound is an integer at or above every duration it holds and
 * within 20 % of them, and a quantile read from counts is the upper bound of the bucket holding its rank.
 */
import { describe, expect, it } from 'vitest';
import { bucketUpperMs, latencyBucket, quantileMs } from '../../../src/core/accounts/latency.js';

describe('latency buckets', () => {
  it('puts a duration in bucket ceil(log(ms) / log(1.2)), under 1 ms in bucket 0', () => {
    expect([0, 0.4, 1, -5, Number.NaN].map(latencyBucket)).toEqual([0, 0, 0, 0, 0]);
    expect(latencyBucket(1.2)).toBe(1);
    expect(latencyBucket(1.21)).toBe(2);
    expect(latencyBucket(1.44)).toBe(2); // 1.2², on the bound: the lower bucket
    expect(latencyBucket(100)).toBe(Math.ceil(Math.log(100) / Math.log(1.2)));
    expect(latencyBucket(60_000)).toBe(61);
  });

  it('bounds every duration of a bucket from above, within 20 % (and 1 ms)', () => {
    for (const ms of [1, 2, 3, 7, 10, 42, 99, 100, 101, 250, 999, 1000, 5_432, 60_000, 3_600_000]) {
      const upper = bucketUpperMs(latencyBucket(ms));
      expect(Number.isInteger(upper)).toBe(true);
      expect(upper, `${ms} ms`).toBeGreaterThanOrEqual(ms);
      expect(upper, `${ms} ms`).toBeLessThanOrEqual(Math.ceil(ms * 1.2));
    }
  });

  it('reads a quantile as the upper bound of the bucket holding its rank', () => {
    expect(quantileMs(new Map(), 0.5)).toBeNull();
    const b10 = latencyBucket(10);
    const b100 = latencyBucket(100);
    const b1000 = latencyBucket(1000);
    // 90 fast, 8 medium, 2 slow requests: the median is fast, the 95th percentile medium
    const counts = new Map([
      [b1000, 2],
      [b10, 90],
      [b100, 8],
    ]);
    expect(quantileMs(counts, 0.5)).toBe(bucketUpperMs(b10));
    expect(quantileMs(counts, 0.95)).toBe(bucketUpperMs(b100));
    expect(quantileMs(counts, 0.99)).toBe(bucketUpperMs(b1000));
    expect(quantileMs(new Map([[b100, 1]]), 0.95)).toBe(bucketUpperMs(b100));
  });
});
