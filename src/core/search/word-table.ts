/**
 * The analyzer's table of words: a value per distinct word, looked up by the word's place in the text
 * (its range and hash), so a word already in it costs no string of its own (a Map keyed by each word's
 * substring was a quarter of indexing time). Open addressing, bounded; it starts small and doubles as
 * words come, so a corpus's few tens of thousands of words stay in the CPU's cache.
 */

/** Slots at first and at most (powers of two); a table is at most a quarter full before it doubles. */
const MIN_SLOTS = 1 << 16;
const MAX_SLOTS = 1 << 19;

/** The FNV-1a hash of `text[start, end)`: what `WordTable.get` is given with the word. */
export function hashOf(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** Values of words, made once per word. */
export interface WordTable<T> {
  /** The value of the word `text[start, end)` whose `hashOf` is `hash`; made (and kept) when it is new. */
  get(text: string, start: number, end: number, hash: number): T;
  /** Forgets every word. */
  clear(): void;
}

/** A table of at most `limit` words (under MAX_SLOTS / 2: short probes), emptied when it is full. */
export function createWordTable<T>(make: (word: string) => T, limit: number): WordTable<T> {
  let mask = MIN_SLOTS - 1;
  // per slot: the entry's index (-1: empty) and its word's hash, side by side (one cache line to look at)
  let slots = new Int32Array(MIN_SLOTS * 2).fill(-1);
  // per entry: the word and its value, side by side
  let entries: unknown[] = [];
  const place = (hash: number, word: string, value: T) => {
    let slot = hash & mask;
    while (slots[slot * 2]! >= 0) slot = (slot + 1) & mask;
    slots[slot * 2] = entries.length / 2;
    slots[slot * 2 + 1] = hash;
    entries.push(word, value);
  };
  const grow = () => {
    const old = slots;
    mask = mask * 2 + 1;
    slots = new Int32Array((mask + 1) * 2).fill(-1);
    for (let s = 0; s < old.length; s += 2) {
      if (old[s]! < 0) continue;
      let slot = old[s + 1]! & mask;
      while (slots[slot * 2]! >= 0) slot = (slot + 1) & mask;
      slots[slot * 2] = old[s]!;
      slots[slot * 2 + 1] = old[s + 1]!;
    }
  };
  const table: WordTable<T> = {
    get(text, start, end, hash) {
      for (let slot = hash & mask, e = slots[slot * 2]!; e >= 0; slot = (slot + 1) & mask, e = slots[slot * 2]!) {
        const word = entries[e * 2] as string;
        if (slots[slot * 2 + 1] === hash && word.length === end - start && text.startsWith(word, start)) {
          return entries[e * 2 + 1] as T;
        }
      }
      const word = text.slice(start, end);
      const value = make(word);
      if (entries.length >= limit * 2)
        table.clear(); // bounded: an open vocabulary
      else if (entries.length / 2 >= (mask + 1) / 4 && mask + 1 < MAX_SLOTS) grow();
      place(hash, word, value);
      return value;
    },
    clear() {
      slots.fill(-1);
      entries = [];
    },
  };
  return table;
}
