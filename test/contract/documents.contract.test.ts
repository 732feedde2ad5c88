// One contract for the documents store, on SQLite and on PostgreSQL: an upsert moves `updatedAt` only
// when the content changed, a batch lands whole or not at all, heads leave out unknown URLs, and every
// document is read back a page at a time in the same (byte) order.
import { describe, expect, it } from 'vitest';
import { createDocumentsRepo } from '../../src/store/sqlite/documents.js';
import type { DocumentRecord, DocumentsRepo } from '../../src/store/contracts/documents.js';
import { createPgDocumentsRepo } from '../../src/store/pg/documents.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor<DocumentsRepo>(createDocumentsRepo, createPgDocumentsRepo);
const doc = (url: string, text = `text of ${url}`, extra: Partial<DocumentRecord> = {}): DocumentRecord => ({
  url,
  title: `Title ${url}`,
  text,
  author: null,
  publishedDate: null,
  kind: 'html',
  metadata: { language: 'en' },
  origin: 'fetch',
  collection: null,
  contentHash: `h:${text}`,
  fetchedAt: '2026-11-26T10:00:00.000Z',
  ...extra,
});

describe.each(backends)('documents store on %s', (_name, available, open) => {
  const each = perTest(open);

  it.runIf(available)('moves updatedAt only when the content changed', async () => {
    const backend = await each.open();
    const { repo } = backend;
    await repo.upsert(doc('https://a.example/x', 'one', { author: 'Ann', publishedDate: '2026-01-01' }), 'T1');
    expect(await repo.get('https://a.example/x')).toEqual({ ...doc('https://a.example/x', 'one', { author: 'Ann', publishedDate: '2026-01-01' }), updatedAt: 'T1' }); // prettier-ignore
    await repo.upsert(doc('https://a.example/x', 'one', { fetchedAt: 'later' }), 'T2');
    expect(await repo.get('https://a.example/x')).toMatchObject({ updatedAt: 'T1', fetchedAt: 'later', author: null });
    await repo.upsert(doc('https://a.example/x', 'two'), 'T3');
    expect(await repo.get('https://a.example/x')).toMatchObject({ updatedAt: 'T3', text: 'two' });
    expect(await repo.get('https://a.example/none')).toBeUndefined();
  });

  it.runIf(available)(
    'stores a text with NUL characters (PostgreSQL refuses them in TEXT: each becomes U+FFFD)',
    async () => {
      const { repo } = await each.open();
      await repo.upsert(doc('https://a.example/nul', 'before\0after', { title: 'a\0b', contentHash: 'h-nul' }), 'T1');
      const stored = await repo.get('https://a.example/nul');
      expect(stored?.text.replaceAll('\uFFFD', '\0')).toBe('before\0after');
      expect(stored?.title.replaceAll('\uFFFD', '\0')).toBe('a\0b');
    },
  );

  it.runIf(available)('writes a batch whole or not at all', async () => {
    const backend = await each.open();
    const { repo } = backend;
    await repo.upsertMany([doc('https://a.example/1'), doc('https://a.example/2')], 'T1');
    expect(await repo.count()).toBe(2);
    const bad = { ...doc('https://a.example/4'), origin: 'nope' } as unknown as DocumentRecord; // refused by the table
    await expect(repo.upsertMany([doc('https://a.example/3'), bad], 'T2')).rejects.toThrow();
    expect(await repo.count()).toBe(2);
    expect(await repo.get('https://a.example/3')).toBeUndefined();
  });

  it.runIf(available)('gives heads of the URLs it has, and every document a page at a time in byte order', async () => {
    const backend = await each.open();
    const { repo } = backend;
    const urls = [
      'https://b.example/Z',
      'https://b.example/a',
      'https://a.example/é',
      'import://kb/1',
      'https://a.example/',
    ];
    await repo.upsertMany(
      urls.map((u) => doc(u)),
      'T1',
    );
    const heads = await repo.heads(['https://b.example/a', 'https://nowhere.example/']);
    expect([...heads.values()]).toEqual([{ url: 'https://b.example/a', title: 'Title https://b.example/a', author: null, publishedDate: null, metadata: { language: 'en' } }]); // prettier-ignore
    expect(await repo.heads([])).toEqual(new Map());
    const seen: string[] = [];
    for await (const d of repo.all(2)) seen.push(d.url);
    expect(seen).toEqual([...urls].sort((x, y) => (Buffer.from(x) < Buffer.from(y) ? -1 : 1)));
  });
});
