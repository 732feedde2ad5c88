/**
 * The contract of the page and answer caches: a keyv cache per namespace and format version, on
 * SQLite (sqlite/cache.ts, a file apart from the durable store) or PostgreSQL (pg/cache.ts).
 */
import type Keyv from 'keyv';

/** The caches of one process, one keyv cache per namespace. */
export interface CacheStore {
  /** A keyv cache for one namespace and format version. */
  namespace<T = unknown>(name: string, version: number): Keyv<T>;
  close(): Promise<void>;
}
