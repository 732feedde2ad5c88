/**
 * The contract of the request-rate token buckets: one bucket per key, refilled and taken in one step on
 * every backend (sqlite/rate-buckets.ts, pg/rate-buckets.ts).
 */

/** A bucket as stored: `tokens` available at epoch ms `updatedMs` (which may be ahead of the caller). */
export interface BucketState {
  tokens: number;
  updatedMs: number;
}

/** One take from a key's bucket at a rate and capacity. */
export interface TakeParams {
  keyId: string;
  nowMs: number;
  /** Tokens added per second. */
  ratePerSec: number;
  /** Most tokens the bucket holds; a new bucket starts full. */
  capacity: number;
}

/** The request-rate buckets, one per key. */
export interface RateBucketsRepo {
  /**
   * Atomically refills the key's bucket and takes one token when there is one. Returns the bucket
   * after the take, or null when refused (the bucket is then unchanged).
   */
  take(p: TakeParams): Promise<BucketState | null>;
  /** The bucket as stored (a read only, for reporting when to retry after a refusal). */
  get(keyId: string): Promise<BucketState | undefined>;
}

/**
 * A stamp further ahead of the caller's clock than this means the clock stepped back: the time since
 * is unknown, so the bucket counts as full and restarts at the caller's clock. Smaller gaps are the
 * normal case of a process that read its clock, then waited for the write lock (at most busy_timeout,
 * 5 s) while another process wrote a later stamp; those leave the stamp where it is (never refilling
 * twice for the same interval, never negatively).
 */
export const CLOCK_STEP_MS = 10_000;
