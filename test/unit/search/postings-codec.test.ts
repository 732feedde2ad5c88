// The postings byte format (src/store/postings.codec.ts): whatever lists of ids, per-field counts and
// positions go in come back out, through a merge of segments too, and one posting's positions are found
// at any index (past the skip table's blocks).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  concatPostings,
  decodeInto,
  decodePostings,
  encodeAllPositions,
  encodePositions,
  encodePostings,
  positionsAt,
  POS_BLOCK,
  type RawPosting,
} from '../../../src/store/search-index/postings.codec.js';
import { FIELD_COUNT } from '../../../src/store/search-index/search-index.types.js';

const ascending = (values: number[]) => [...new Set(values)].sort((a, b) => a - b);

/** Postings with ascending distinct ids, counts 0–255 per field (at least one), optional positions. */
const postingsArb = fc
  .array(
    fc.record({
      id: fc.integer({ min: 1, max: 2 ** 31 }),
      freqs: fc
        .array(fc.integer({ min: 0, max: 255 }), { minLength: FIELD_COUNT, maxLength: FIELD_COUNT })
        .map((f) => (f.some(Boolean) ? f : [0, 0, 1, 0])),
      title: fc.array(fc.integer({ min: 0, max: 199 }), { maxLength: 5 }).map(ascending),
      body: fc.array(fc.integer({ min: 0, max: 4999 }), { maxLength: 20 }).map(ascending),
    }),
    { maxLength: 3 * POS_BLOCK },
  )
  .map((list) => {
    const seen = new Set<number>();
    return list
      .filter((p) => !seen.has(p.id) && seen.add(p.id))
      .sort((a, b) => a.id - b.id)
      .map((p) => ({ ...p, freqs: Uint8Array.from(p.freqs), pos: encodePositions(p.title, p.body) }));
  });

const plain = (postings: RawPosting[]) => postings.map((p) => [p.id, [...p.freqs], [...p.pos]]);

describe('postings codec', () => {
  it('decodes what it encodes: ids, counts and positions, at every index', () => {
    fc.assert(
      fc.property(postingsArb, (postings) => {
        const { n, data, pos } = encodePostings(postings);
        expect(n).toBe(postings.length);
        expect(plain(decodePostings(n, data, pos))).toEqual(plain(postings));
        const ids = new Uint32Array(n);
        const freqs = new Uint8Array(n * FIELD_COUNT);
        decodeInto(n, data, ids, freqs, 0);
        expect([...ids]).toEqual(postings.map((p) => p.id));
        postings.forEach((p, k) => {
          if (!pos) return expect(p.title.length + p.body.length).toBe(0);
          expect(positionsAt(pos, n, k)).toEqual({ title: p.title, body: p.body });
        });
      }),
      { numRuns: 200 },
    );
  });

  it('merges segments into one ascending list, dropping tombstoned documents', () => {
    fc.assert(
      fc.property(fc.array(postingsArb, { maxLength: 4 }), fc.array(fc.integer()), (lists, dropped) => {
        // segments merged out of turn interleave: ids may repeat across lists only if distinct overall
        const seen = new Set<number>();
        const parts = lists.map((l) => l.filter((p) => !seen.has(p.id) && seen.add(p.id)));
        const drop = new Set(dropped.map((i) => parts.flat()[Math.abs(i) % Math.max(1, seen.size)]?.id ?? 0));
        const merged = concatPostings(parts.map(encodePostings), drop);
        const expected = parts
          .flat()
          .filter((p) => !drop.has(p.id))
          .sort((a, b) => a.id - b.id);
        expect(plain(decodePostings(merged.n, merged.data, merged.pos))).toEqual(plain(expected));
      }),
      { numRuns: 100 },
    );
  });

  it('joins segments of consecutive id ranges byte-wise, positions and skip table included', () => {
    const range = (from: number, count: number, withPositions: boolean) =>
      Array.from({ length: count }, (_, i) => ({
        id: from + 3 * i,
        freqs: Uint8Array.of(i % 3, 0, 1 + (i % 20), 0),
        pos: withPositions ? encodePositions([i % 7], [i, i + 2 + (i % 5)]) : new Uint8Array(0),
      }));
    const parts = [range(1, 70, true), range(400, 5, false), range(500, 130, true)];
    const merged = concatPostings(parts.map(encodePostings));
    const all = parts.flat();
    expect(plain(decodePostings(merged.n, merged.data, merged.pos))).toEqual(plain(all));
    all.forEach((p, k) => {
      const want = p.pos.length > 0 ? positionsAt(p.pos as Buffer, 1, 0) : { title: [], body: [] };
      expect(positionsAt(merged.pos!, merged.n, k)).toEqual(want);
    });
  });

  it('packs a document’s terms’ positions one after another', () => {
    const { bytes, ends } = encodeAllPositions(3, [[0, 4], undefined, [1]], [[7], undefined, []]);
    expect([...ends].map((end, i) => end - (i > 0 ? ends[i - 1]! : 0))).toEqual([
      encodePositions([0, 4], [7]).length,
      0,
      encodePositions([1], []).length,
    ]);
    expect(bytes.length).toBe(ends[2]);
  });

  it('keeps a common posting (one field, a few occurrences, no positions) to its id gap and one byte', () => {
    const postings = Array.from({ length: 100 }, (_, i) => ({
      id: i + 1,
      freqs: Uint8Array.of(0, 0, 3, 0),
      pos: new Uint8Array(0),
    }));
    const { data, pos } = encodePostings(postings);
    expect(data.length).toBe(200);
    expect(pos).toBeNull();
  });
});
