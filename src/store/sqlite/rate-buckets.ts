/**
 * Request-rate token buckets, one row per key: `tokens` held at `updated_ms`. The refill, the take and
 * the write are one UPSERT statement, so every process on the data directory sees one bucket per key.
 */
import type { Db } from './database.js';
import { CLOCK_STEP_MS, type BucketState, type RateBucketsRepo } from '../contracts/rate-buckets.js';

// The tokens the bucket holds at @now: refilled since updated_ms at the current rate, capped at the
// current capacity (so a changed rate applies at once).
const REFILLED = `CASE WHEN updated_ms > @now + ${CLOCK_STEP_MS} THEN @capacity
  ELSE min(@capacity, tokens + max(0, @now - updated_ms) * @rate / 1000.0) END`;

/** The rate buckets over SQLite: each take is one UPSERT statement. */
export function createRateBucketsRepo(db: Db): RateBucketsRepo {
  const s = {
    // The DO UPDATE runs only when a whole token is there, so a row comes back exactly when the
    // request was let through; a refusal writes nothing (time alone refills, so the row stays right).
    take: db.prepare(
      `INSERT INTO rate_buckets (key_id, tokens, updated_ms) VALUES (@key, @capacity - 1, @now)
       ON CONFLICT (key_id) DO UPDATE SET
         tokens = ${REFILLED} - 1,
         updated_ms = CASE WHEN updated_ms > @now + ${CLOCK_STEP_MS} THEN @now ELSE max(updated_ms, @now) END
       WHERE ${REFILLED} >= 1
       RETURNING tokens, updated_ms AS updatedMs`,
    ),
    get: db.prepare('SELECT tokens, updated_ms AS updatedMs FROM rate_buckets WHERE key_id = ?'),
  };

  return {
    async take(p) {
      const row = s.take.get({ key: p.keyId, now: p.nowMs, rate: p.ratePerSec, capacity: p.capacity });
      return (row as BucketState | undefined) ?? null;
    },
    get: async (keyId) => s.get.get(keyId) as BucketState | undefined,
  };
}
