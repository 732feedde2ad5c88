/** The in-memory LRU in front of the page cache: recency, capacity and time-to-live. */
import { describe, expect, it } from 'vitest';
import { createLru } from '../../src/lib/lru.js';

describe('createLru', () => {
  it('evicts the least recently used entry beyond capacity', () => {
    const lru = createLru<number>(2, 1000, () => 0);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('drops entries older than the ttl on read', () => {
    let now = 0;
    const lru = createLru<string>(10, 100, () => now);
    lru.set('k', 'v');
    now = 100;
    expect(lru.get('k')).toBe('v');
    now = 201;
    expect(lru.get('k')).toBeUndefined();
    expect(lru.size).toBe(0);
  });

  it('deletes and overwrites', () => {
    const lru = createLru<string>(10, 100, () => 0);
    lru.set('k', 'v1');
    lru.set('k', 'v2');
    expect(lru.get('k')).toBe('v2');
    lru.delete('k');
    expect(lru.get('k')).toBeUndefined();
  });
});
