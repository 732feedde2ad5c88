/**
 * The request-rate buckets over PostgreSQL: the same contract as `createRateBucketsRepo` (SQLite). The
 * refill, the take and the write are one UPSERT; concurrent takes on one key (from any replica) wait
 * for the row's lock and see each other's result, so a bucket is never overdrawn.
 */
import type pg from 'pg';
import { CLOCK_STEP_MS, type BucketState, type RateBucketsRepo } from '../contracts/rate-buckets.js';

// $2 now (epoch ms), $3 rate (tokens a second), $4 capacity: the bucket's tokens at now
const REFILLED = `CASE WHEN rate_buckets.updated_ms > $2 + ${CLOCK_STEP_MS} THEN $4::float8
  ELSE LEAST($4::float8, rate_buckets.tokens + GREATEST(0, $2 - rate_buckets.updated_ms) * $3::float8 / 1000.0) END`;

const TAKE = `INSERT INTO rate_buckets (key_id, tokens, updated_ms) VALUES ($1, $4::float8 - 1, $2)
  ON CONFLICT (key_id) DO UPDATE SET
    tokens = ${REFILLED} - 1,
    updated_ms = CASE WHEN rate_buckets.updated_ms > $2 + ${CLOCK_STEP_MS} THEN $2
      ELSE GREATEST(rate_buckets.updated_ms, $2) END
  WHERE ${REFILLED} >= 1
  RETURNING tokens, updated_ms AS "updatedMs"`;

export function createPgRateBucketsRepo(pool: pg.Pool): RateBucketsRepo {
  return {
    async take(p) {
      const { rows } = await pool.query<BucketState>(TAKE, [p.keyId, p.nowMs, p.ratePerSec, p.capacity]);
      return rows[0] ?? null;
    },
    async get(keyId) {
      const { rows } = await pool.query<BucketState>(
        'SELECT tokens, updated_ms AS "updatedMs" FROM rate_buckets WHERE key_id = $1',
        [keyId],
      );
      return rows[0];
    },
  };
}
