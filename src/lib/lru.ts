/**
 * A small LRU map with a time-to-live: hot entries stay in memory, stale ones (older than `ttlMs`, so
 * that writes by another process become visible) are dropped on read.
 */
export interface Lru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  readonly size: number;
}

export function createLru<V>(maxEntries: number, ttlMs: number, now: () => number = Date.now): Lru<V> {
  const map = new Map<string, { value: V; at: number }>();
  return {
    get(key) {
      const hit = map.get(key);
      if (!hit) return undefined;
      map.delete(key);
      if (now() - hit.at > ttlMs) return undefined;
      map.set(key, hit); // most recently used goes last
      return hit.value;
    },
    set(key, value) {
      map.delete(key);
      map.set(key, { value, at: now() });
      while (map.size > maxEntries) map.delete(map.keys().next().value as string);
    },
    delete(key) {
      map.delete(key);
    },
    get size() {
      return map.size;
    },
  };
}
