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

/** An LRU bounded by what its entries take (`set` is told each entry's size) rather than by their count. */
export interface ByteLru<V> {
  get(key: string): V | undefined;
  /** Keeps `value`, dropping the least recently used entries to make room; one over a quarter of the budget is not kept. */
  set(key: string, value: V, size: number): void;
  clear(): void;
}

export function createByteLru<V>(maxBytes: number): ByteLru<V> {
  const map = new Map<string, { value: V; bytes: number }>();
  let bytes = 0;
  return {
    get(key) {
      const hit = map.get(key);
      if (hit === undefined) return undefined;
      map.delete(key); // most recently used goes last
      map.set(key, hit);
      return hit.value;
    },
    set(key, value, size) {
      if (size > maxBytes / 4) return; // read each time rather than flush the cache
      const old = map.get(key);
      if (old) {
        map.delete(key);
        bytes -= old.bytes;
      }
      for (const [oldest, entry] of map) {
        if (bytes + size <= maxBytes) break;
        map.delete(oldest);
        bytes -= entry.bytes;
      }
      map.set(key, { value, bytes: size });
      bytes += size;
    },
    clear() {
      map.clear();
      bytes = 0;
    },
  };
}
