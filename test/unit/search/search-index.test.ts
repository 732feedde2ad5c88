// The search index on a real SQLite database: kept in step with the documents store, ranked by BM25F
// with proximity, exact phrases, merges that drop replaced documents, and a second
// connection (another process) that sees what the first wrote.
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchIndex } from '../../../src/core/search/search-index.js';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { createDocumentsRepo } from '../../../src/store/sqlite/documents.js';
import { storedDoc } from '../../helpers/documents.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';

const NOW = '2026-11-20T10:00:00.000Z';

const doc = storedDoc;

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The URLs of ranked hits, in order. */
const urls = (hits: { id: number }[]) => {
  const byId = t!.app.services.searchIndex.urls(hits.map((h) => h.id));
  return hits.map((h) => byId.get(h.id));
};

describe('search index', () => {
  it('finds a document as soon as it is stored, title matches above body matches', async () => {
    t = makeTestApp();
    const { documents, searchIndex } = t.app.services;
    await documents.upsertMany(
      [
        doc('https://a.example/pool', 'Connection pooling in undici', 'How the Agent keeps sockets open.'),
        doc('https://b.example/misc', 'Release notes', 'Many fixes; undici connection pooling got faster too.'),
        doc('https://c.example/other', 'Cooking pasta', 'Boil water, add salt, wait.'),
      ],
      NOW,
    );
    const hits = searchIndex.search('undici connection pooling', { limit: 10 });
    expect(urls(hits)).toEqual(['https://a.example/pool', 'https://b.example/misc']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(searchIndex.count()).toBe(3);
  });

  it('a batch replaces documents already indexed, and a URL twice in one batch keeps its last version', async () => {
    t = makeTestApp();
    const { documents, searchIndex } = t.app.services;
    await documents.upsertMany([doc('https://a.example/x', 'First', 'walrus')], NOW);
    await documents.upsertMany(
      [
        doc('https://b.example/y', 'Other', 'penguin'),
        doc('https://a.example/x', 'Second', 'narwhal'),
        doc('https://a.example/x', 'Third', 'octopus'),
      ],
      NOW,
    );
    expect(searchIndex.count()).toBe(2);
    for (const gone of ['walrus', 'narwhal']) expect(searchIndex.search(gone, { limit: 5 })).toEqual([]);
    expect(urls(searchIndex.search('octopus', { limit: 5 }))).toEqual(['https://a.example/x']);
    expect(urls(searchIndex.search('penguin', { limit: 5 }))).toEqual(['https://b.example/y']);
  });

  it('ranks words that stand together above the same words scattered', async () => {
    t = makeTestApp();
    const { documents, searchIndex } = t.app.services;
    const filler = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda';
    await documents.upsertMany(
      [
        doc('https://x.example/scattered', 'Notes', `memory ${filler} leak ${filler} detection`),
        doc('https://x.example/together', 'Notes', `${filler} memory leak detection ${filler}`),
      ],
      NOW,
    );
    expect(urls(searchIndex.search('memory leak', { limit: 2 }))[0]).toBe('https://x.example/together');
    const flat = searchIndex.search('memory leak', { limit: 2, proximity: false });
    expect(flat[0]!.score).toBeCloseTo(flat[1]!.score, 6);
  });

  it('re-indexes a changed document and forgets its old words; removal and a full merge keep it so', async () => {
    t = makeTestApp();
    const { documents, searchIndex } = t.app.services;
    await documents.upsert(doc('https://a.example/p', 'Page', 'the zebra crossing'), NOW);
    await documents.upsert(doc('https://b.example/q', 'Other', 'a zebra in the zoo'), NOW);
    await documents.upsert(doc('https://a.example/p', 'Page', 'the giraffe enclosure'), NOW);
    expect(urls(searchIndex.search('zebra', { limit: 5 }))).toEqual(['https://b.example/q']);
    expect(urls(searchIndex.search('giraffe', { limit: 5 }))).toEqual(['https://a.example/p']);
    expect(searchIndex.count()).toBe(2);
    expect(searchIndex.remove(['https://b.example/q'])).toBe(1);
    expect(searchIndex.search('zebra', { limit: 5 })).toEqual([]);
    t.app.db.transaction(() => searchIndex.repo.mergeAll())();
    searchIndex.table.noteWrite();
    expect(searchIndex.repo.deletedIds()).toEqual([]);
    expect(urls(searchIndex.search('giraffe', { limit: 5 }))).toEqual(['https://a.example/p']);
    expect(searchIndex.search('zebra', { limit: 5 })).toEqual([]);
  });

  it('skips re-indexing an unchanged document', async () => {
    t = makeTestApp();
    const { searchIndex } = t.app.services;
    const d = doc('https://a.example/p', 'Page', 'unchanged words');
    expect(searchIndex.index([d])).toBe(1);
    expect(searchIndex.index([d])).toBe(0);
    expect(searchIndex.index([{ ...d, title: 'New title' }])).toBe(1);
  });

  it('matches exact phrases, in the whole text or its first 1000 words', async () => {
    t = makeTestApp();
    const { documents, searchIndex } = t.app.services;
    const late = `${'word '.repeat(1200)} needle in a haystack`;
    await documents.upsertMany(
      [doc('https://a.example/early', 'E', 'A needle in a haystack, early.'), doc('https://a.example/late', 'L', late)],
      NOW,
    );
    const ids = searchIndex.ids(['https://a.example/early', 'https://a.example/late', 'https://a.example/none']);
    const matching = (phrase: string, scope: 'all' | 'head') => {
      const matcher = searchIndex.phraseMatches(phrase, scope);
      return [...ids].filter(([, id]) => matcher.has(id)).map(([url]) => url);
    };
    expect(matching('needle in a haystack', 'all').sort()).toEqual([
      'https://a.example/early',
      'https://a.example/late',
    ]);
    expect(matching('Needle in a HAYSTACK', 'head')).toEqual(['https://a.example/early']);
    expect(matching('"unbalanced OR NEAR(', 'all')).toEqual([]);
  });

  it('reads any query as words: quotes, operators and SQL cannot error or inject', async () => {
    t = makeTestApp();
    const { documents, searchIndex } = t.app.services;
    await documents.upsert(doc('https://a.example/p', 'Title', 'select star from documents where drop table'), NOW);
    for (const q of ['"', "'; DROP TABLE search_docs; --", 'a AND (b OR', 'NEAR(x y, 2)', 'title:foo*', '^', '']) {
      expect(() => searchIndex.search(q, { limit: 5 })).not.toThrow();
      expect(() => searchIndex.phraseMatches(q, 'all')).not.toThrow();
    }
    expect(urls(searchIndex.search("'; DROP TABLE documents; --", { limit: 5 }))).toEqual(['https://a.example/p']);
    expect(searchIndex.count()).toBe(1);
  });

  it('is seen by another connection to the same database (a CLI import while the server runs)', async () => {
    t = makeTestApp();
    const { searchIndex } = t.app.services;
    expect(searchIndex.search('kestrel', { limit: 5 })).toEqual([]);
    const other = openDatabase(t.dataDir);
    const otherIndex = createSearchIndex(other, createDocumentsRepo(other));
    otherIndex.index([doc('https://birds.example/kestrel', 'Kestrel', 'A small falcon that hovers.')]);
    other.close();
    expect(urls(searchIndex.search('kestrel hovering', { limit: 5 }))).toEqual(['https://birds.example/kestrel']);
  });
});
