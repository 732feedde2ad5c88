// One contract for the request-rate buckets, on SQLite and on PostgreSQL: refill, take, refusal, a
// clock that stepped back, and concurrent takes from several handles that never overdraw a bucket.
import { describe, expect, it } from 'vitest';
import { createPgRateBucketsRepo } from '../../src/store/pg/rate-buckets.js';
import { createRateBucketsRepo } from '../../src/store/sqlite/rate-buckets.js';
import { CLOCK_STEP_MS, type RateBucketsRepo } from '../../src/store/contracts/rate-buckets.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor(createRateBucketsRepo, createPgRateBucketsRepo);
const T = 1_790_000_000_000; // epoch ms, past 2^31
const take = (repo: RateBucketsRepo, nowMs: number, keyId = 'k') => repo.take({ keyId, nowMs, ratePerSec: 2, capacity: 3 }); // prettier-ignore

describe.each(backends)('rate buckets on %s', (_name, available, open) => {
  const each = perTest(open);

  it.runIf(available)('starts full, takes a token a request, refuses when empty, refills with time', async () => {
    const backend = await each.open();
    const { repo } = backend;
    expect(await take(repo, T)).toEqual({ tokens: 2, updatedMs: T });
    expect(await take(repo, T)).toEqual({ tokens: 1, updatedMs: T });
    expect(await take(repo, T)).toEqual({ tokens: 0, updatedMs: T });
    expect(await take(repo, T)).toBeNull();
    expect(await repo.get('k')).toEqual({ tokens: 0, updatedMs: T });
    expect(await take(repo, T + 250)).toBeNull(); // half a token
    expect(await take(repo, T + 500)).toEqual({ tokens: 0, updatedMs: T + 500 });
    expect(await take(repo, T + 60_000)).toEqual({ tokens: 2, updatedMs: T + 60_000 }); // capped at capacity
    expect(await repo.get('other')).toBeUndefined();
  });

  it.runIf(available)(
    'keeps a later stamp a little ahead, and restarts full after the clock stepped back',
    async () => {
      const backend = await each.open();
      const { repo } = backend;
      await take(repo, T + 1000);
      expect(await take(repo, T)).toEqual({ tokens: 1, updatedMs: T + 1000 }); // another process's later stamp
      expect(await take(repo, T - CLOCK_STEP_MS - 5000)).toEqual({ tokens: 2, updatedMs: T - CLOCK_STEP_MS - 5000 });
    },
  );

  it.runIf(available)('never lets more through than the bucket holds when takes race from many handles', async () => {
    const backend = await each.open();
    const handles = [backend.repo, ...Array.from({ length: 3 }, () => backend.second())];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => handles[i % handles.length]!.take({ keyId: 'race', nowMs: T, ratePerSec: 0.001, capacity: 10 })), // prettier-ignore
    );
    expect(results.filter((r) => r !== null)).toHaveLength(10);
    expect((await backend.repo.get('race'))!.tokens).toBeCloseTo(0, 6);
  });
});
