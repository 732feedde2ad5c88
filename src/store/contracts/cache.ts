/**
 * The contract of the page and answer caches: a keyv cache per namespace and format version, on
 * SQLite (sqlite/cache.ts, a file apart from the durable store) or PostgreSQL (pg/cache.ts).
 */
import type Keyv from 'keyv';
import type { Pruner } from './retention.js';

/** The caches of one process, one keyv cache per namespace. */
export interface CacheStore {
  /** A keyv cache for one namespace and format version. */
  namespace<T = unknown>(name: string, version: number): Keyv<T>;
  /**
   * The page cache's retention (core/retention, `TRAWL_RETAIN_PAGE_CACHE_DAYS`): the entries that hold a
   * response or a page fetched before the line (their `fetchedAt`), in any namespace and version. Such
   * entries carry no expiry of their own; a page pruned is fetched again when next asked for live, and
   * a cache-only read falls back on the documents store.
   */
  fetchedBefore: Pruner;
  close(): Promise<void>;
}

/** Where a cached page or response keeps its fetch time in keyv's serialized entry (`{value, expires}`). */
export const FETCHED_AT_PATH = ['value', 'fetchedAt'] as const;

/** The keyv namespace of a cache at a format version (`v1:page`): a new version misses every old entry. */
export function cacheNamespace(name: string, version: number): string {
  return `v${version}:${name}`;
}

/**
 * Plain JSON: keyv's default codec revives Buffers with a reviver, which costs a fifth of a cached
 * /contents answer; cache values are plain data (pages, raw text, base64). Every backend uses it.
 */
export const PLAIN_JSON = {
  serialize: (data: unknown) => JSON.stringify(data),
  deserialize: (data: string) => JSON.parse(data) as never,
};
