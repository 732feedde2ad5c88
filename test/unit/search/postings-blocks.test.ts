// Blocks of posting lists (src/store/postings.blocks.ts): whatever terms go in, in JavaScript's string
// order, each is found again in the block a lookup by `last` would pick (SQLite compares the keys as
// bytes), absent terms are not found, and a merge reads every list back in order. Unicode terms
// included: accents, CJK, astral characters (surrogate pairs) and terms sharing a prefix.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BLOCK_BYTES,
  blockEntries,
  BlockWriter,
  findInBlock,
  termKey,
  type BlockRow,
} from '../../../src/store/search-index/postings.blocks.js';

const ALPHABET = ['a', 'b', 'z', '0', 'é', 'ß', '中', '文', '\u{1F600}', '\u{20000}', '\uE000', 'ﬀ'];
const termArb = fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 8 }).map((chars) => chars.join(''));

/** A list of `bytes` data bytes (content derived from the term, so a wrong match shows). */
const listOf = (term: string, bytes: number, withPos: boolean) => {
  const data = Buffer.alloc(bytes, term.length % 251);
  data.write(term.slice(0, 4), 'utf8');
  return { n: bytes, data, pos: withPos ? Buffer.from(`pos:${term}`) : null };
};

function build(terms: string[], sizes: number[], withPos: boolean[]): BlockRow[] {
  const w = new BlockWriter();
  const rows: BlockRow[] = [];
  terms.forEach((t, i) => rows.push(...w.add(t, listOf(t, sizes[i]!, withPos[i]!))));
  const last = w.finish();
  if (last) rows.push(last);
  return rows;
}

/** What `last >= ? ORDER BY last LIMIT 1` picks, SQLite comparing BLOBs with memcmp. */
const lookup = (rows: BlockRow[], term: string) => rows.find((r) => Buffer.compare(r.last, termKey(term)) >= 0);

describe('postings blocks', () => {
  it('finds every term in the block a lookup picks, and nothing for absent terms', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(termArb, { minLength: 1, maxLength: 300 }),
        fc.array(termArb, { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 300, maxLength: 300 }),
        fc.array(fc.boolean(), { minLength: 300, maxLength: 300 }),
        (unsorted, probes, sizes, withPos) => {
          const terms = [...unsorted].sort();
          const rows = build(terms, sizes, withPos);
          // the keys ascend as bytes in the order the writer was given
          for (let i = 1; i < rows.length; i++) expect(Buffer.compare(rows[i - 1]!.last, rows[i]!.last)).toBe(-1);
          terms.forEach((t, i) => {
            const found = findInBlock(lookup(rows, t)!, t);
            const expected = listOf(t, sizes[i]!, withPos[i]!);
            expect(found?.n).toBe(expected.n);
            expect(found?.data.equals(expected.data)).toBe(true);
            expect(found?.pos?.toString()).toBe(expected.pos?.toString());
          });
          for (const p of probes.filter((p) => !terms.includes(p))) {
            const row = lookup(rows, p);
            expect(row ? findInBlock(row, p) : null).toBeNull();
          }
          // a merge reads the lists back, in order
          const read = rows.flatMap((r) => blockEntries(r));
          expect(read.map((e) => e.term)).toEqual(terms);
          read.forEach((e, i) => expect(e.data.equals(listOf(terms[i]!, sizes[i]!, false).data)).toBe(true));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('closes blocks at about BLOCK_BYTES, a long list in a block of its own', () => {
    const terms = Array.from({ length: 2000 }, (_, i) => `term${String(i).padStart(5, '0')}`);
    const sizes = terms.map((_, i) => (i === 1000 ? 3 * BLOCK_BYTES : 20));
    const rows = build(terms, sizes, new Array<boolean>(2000).fill(false));
    const long = rows.find((r) => r.data.length === 3 * BLOCK_BYTES)!;
    expect(blockEntries(long).map((e) => e.term)).toEqual(['term01000']);
    for (const r of rows) if (r !== long) expect(r.data.length).toBeLessThanOrEqual(BLOCK_BYTES);
    expect(rows.length).toBeLessThan(10);
    expect(rows.every((r) => r.pos === null)).toBe(true);
  });

  it('keeps a suffix of 128 bytes or more (a varint length) and terms that differ only after it', () => {
    const long = 'x'.repeat(200);
    const terms = [`${long}a`, `${long}b`, `${long}é${long}`].sort();
    const rows = build(terms, [5, 6, 7], [true, false, true]);
    terms.forEach((t, i) => expect(findInBlock(lookup(rows, t)!, t)?.data.length).toBe([5, 6, 7][i]));
    expect(findInBlock(rows[0]!, long)).toBeNull();
  });
});
