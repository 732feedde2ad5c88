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
