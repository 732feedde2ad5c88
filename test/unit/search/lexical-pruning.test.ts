// Top-k pruning in the lexical ranking: on a generated corpus with Zipf-distributed words, replaced
// documents and filters, every pruned ranking must equal the exhaustive one (same ids, same scores,
// same order), while reading far fewer postings. Also: merged segments keep posting lists in id order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearchIndex, type SearchIndex } from '../../../src/core/search/search-index.js';
import type { RankTrace } from '../../../src/core/search/ranking/rank.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/database.js';
import { createDocumentsRepo } from '../../../src/store/sqlite/documents.js';
import { decodePostings as decodeRaw, encodePostings } from '../../../src/store/search-index/postings.codec.js';
import { concatPostings } from '../../../src/store/search-index/search-index.repo.js';
import { storedDoc } from '../../helpers/documents.js';

// A seeded generator, so a failure reproduces.
let seed = 7;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;

const VOCABULARY = Array.from({ length: 800 }, (_, i) => `w${i.toString(36)}x`);
/** A word drawn with probability ∝ 1 / rank (Zipf), so a few words are in most documents. */
const zipf = (() => {
  const weights = VOCABULARY.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  weights.reduce((acc, w, i) => (cumulative[i] = acc + w / total), 0);
  return () => {
    const r = random();
    const i = cumulative.findIndex((c) => c >= r);
    return VOCABULARY[i < 0 ? VOCABULARY.length - 1 : i]!;
  };
})();
const words = (n: number) => Array.from({ length: n }, zipf).join(' ');

let dir: string;
let db: Db;
let index: SearchIndex;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-pruning-'));
  db = openDatabase(dir);
  index = createSearchIndex(db, createDocumentsRepo(db));
  const docs = Array.from({ length: 1500 }, (_, i) =>
    storedDoc(
      `https://s${i % 7}.example/p${i}`,
      words(2 + Math.floor(random() * 6)),
      words(20 + Math.floor(random() * 200)),
    ),
  );
  for (let i = 0; i < docs.length; i += 250) index.index(docs.slice(i, i + 250));
  // replaced documents leave tombstoned postings behind, which the ranking must skip
  index.index(docs.slice(0, 100).map((d) => storedDoc(d.url, d.title, words(50))));
  index.remove(docs.slice(100, 150).map((d) => d.url));
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const queries = Array.from({ length: 120 }, () => words(1 + Math.floor(random() * 12)));

describe('pruned lexical ranking', () => {
  it.each([
    { name: 'limit 10, every term', limit: 10 },
    { name: 'limit 1', limit: 1 },
    { name: 'limit 100 with proximity', limit: 100, proximity: true },
    { name: 'instant: rarest 8 terms, limit 10', limit: 10, maxTerms: 8 },
    { name: 'a filter that passes one document in three', limit: 10, accept: (id: number) => id % 3 === 0 },
    { name: 'a filter that passes almost nothing', limit: 10, accept: (id: number) => id % 97 === 0 },
  ])('returns exactly the exhaustive ranking: $name', ({ limit, proximity = false, maxTerms, accept }) => {
    const pruned: RankTrace = { postingsRead: 0, lookups: 0 };
    const full: RankTrace = { postingsRead: 0, lookups: 0 };
    for (const q of queries) {
      const a = index.search(q, { limit, proximity, maxTerms, accept, trace: pruned });
      const b = index.search(q, { limit, proximity, maxTerms, accept, prune: false, trace: full });
      expect(a, q).toEqual(b);
      if (accept) for (const hit of a) expect(accept(hit.id)).toBe(true);
    }
    expect(full.lookups).toBe(0);
    // pruning really skipped work: common words' lists were probed instead of read through
    expect(pruned.postingsRead + pruned.lookups).toBeLessThan(full.postingsRead);
  });

  it('never returns a replaced or removed document', () => {
    const live = new Set([
      ...index.ids(Array.from({ length: 1500 }, (_, i) => `https://s${i % 7}.example/p${i}`)).values(),
    ]);
    for (const q of queries.slice(0, 30)) {
      for (const hit of index.search(q, { limit: 50, proximity: false })) expect(live.has(hit.id)).toBe(true);
    }
  });
});

describe('posting lists', () => {
  // the body frequency tags the id
  const list = (ids: number[]) =>
    encodePostings(ids.map((id) => ({ id, freqs: Uint8Array.of(0, 0, id % 250, 0), pos: new Uint8Array(0) })));
  const idsOf = ({ n, data, pos }: { n: number; data: Buffer; pos: Buffer | null }) =>
    decodeRaw(n, data, pos).map((p) => [p.id, p.freqs[2]]);

  it('are joined in ascending id order, frequencies alongside, dropping tombstoned ids', () => {
    // segments merged out of turn interleave: [1, 5, 9] + [2, 3, 12] + [4]
    const joined = concatPostings([list([1, 5, 9]), list([2, 3, 12]), list([4])], new Set([3]));
    expect(idsOf(joined)).toEqual([1, 2, 4, 5, 9, 12].map((id) => [id, id % 250]));
  });
});
