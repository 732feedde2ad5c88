/** The in-memory LRUs: by count with a time-to-live (the page cache), by bytes (the postings cache). */
import { describe, expect, it } from 'vitest';
import { createByteLru, createLru } from '../../src/lib/lru.js';

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

describe('createByteLru', () => {
  it('evicts the least recently used entries until the new one fits the byte budget', () => {
    const lru = createByteLru<string>(100);
    lru.set('a', 'A', 20);
    lru.set('b', 'B', 20);
    lru.set('c', 'C', 20);
    expect(lru.get('a')).toBe('A'); // b is now the least recently used
    lru.set('d', 'D', 25);
    lru.set('e', 'E', 25); // 20 + 20 + 20 + 25 + 25 > 100: b goes
    expect(lru.get('b')).toBeUndefined();
    expect(['a', 'c', 'd', 'e'].map((k) => lru.get(k))).toEqual(['A', 'C', 'D', 'E']);
  });

  it('does not keep an entry over a quarter of the budget, and replaces a key without counting it twice', () => {
    const lru = createByteLru<number>(100);
    lru.set('big', 1, 26);
    expect(lru.get('big')).toBeUndefined();
    lru.set('k', 1, 25);
    for (let i = 0; i < 10; i++) lru.set('k', i, 25);
    lru.set('x', 7, 25);
    lru.set('y', 8, 25);
    lru.set('z', 9, 25); // 4 × 25 = 100 fits only if 'k' is counted once
    expect([lru.get('k'), lru.get('x'), lru.get('y'), lru.get('z')]).toEqual([9, 7, 8, 9]);
    lru.clear();
    expect(lru.get('x')).toBeUndefined();
  });
});
