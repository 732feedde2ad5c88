// One contract for the code files repository, on SQLite (with its local code index) and on PostgreSQL
// (which keeps the chunks for replicas to copy): a batch of files is recorded whole or not at all, a run
// ends with its removals, touches and source at once, and sources come with their counts in byte order.
import { describe, expect, it } from 'vitest';
import { createCodeIndex } from '../../src/core/code/index/code-index.js';
import { createCodeFilesRepo } from '../../src/store/sqlite/code-files.js';
import type { CodeFilesRepo, IndexedFile } from '../../src/store/contracts/code-files.js';
import { createPgCodeFilesRepo } from '../../src/store/pg/code-files.js';
import { codeChunk } from '../helpers/code.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor<CodeFilesRepo>(
  (db) => createCodeFilesRepo(db, createCodeIndex(db)),
  createPgCodeFilesRepo,
);

const chunk = codeChunk;
const file = (source: string, path: string, hash: string, symbols: string[], mtimeMs = 1): IndexedFile => ({
  path,
  hash,
  chunks: symbols.map((s, i) => chunk(source, path, s, 1 + 3 * i)),
  state: { size: 10 * symbols.length, mtimeMs, hash },
});
const NOW = Date.parse('2026-11-26T10:00:00Z');
const source = (name: string, indexedAt = '2026-11-26T10:00:00.000Z') => ({
  name,
  kind: 'folder',
  location: `/src/${name}`,
  indexedAt,
});

describe.each(backends)('code files repository on %s', (_name, available, open) => {
  const each = perTest(open);

  it.runIf(available)('stores files, then ends a run with its removals, touches and source', async () => {
    const { repo } = await each.open();
    await repo.storeFiles('repo', [file('repo', 'a.py', 'h1', ['alpha']), file('repo', 'b.py', 'h2', ['beta', 'gamma'])], NOW); // prettier-ignore
    expect(await repo.files('repo')).toEqual(
      new Map([
        ['a.py', { size: 10, mtimeMs: 1, hash: 'h1' }],
        ['b.py', { size: 20, mtimeMs: 1, hash: 'h2' }],
      ]),
    );
    expect(await repo.files('other')).toEqual(new Map());
    expect(await repo.source('repo')).toBeUndefined(); // recorded when the run ends
    await repo.finishSource(
      source('repo'),
      { removed: ['b.py'], touched: [{ path: 'a.py', state: { size: 10, mtimeMs: 2.5, hash: 'h1' } }] },
      NOW,
    );
    expect(await repo.files('repo')).toEqual(new Map([['a.py', { size: 10, mtimeMs: 2.5, hash: 'h1' }]]));
    expect(await repo.source('repo')).toEqual(source('repo'));
    expect(await repo.sources()).toEqual([{ ...source('repo'), files: 1, chunks: 1 }]);
  });

  it.runIf(available)('replaces a file written again, keeping the last state of a path given twice', async () => {
    const { repo, second } = await each.open();
    await repo.storeFiles('repo', [file('repo', 'a.py', 'h1', ['alpha', 'beta', 'gamma'])], NOW);
    await repo.storeFiles('repo', [file('repo', 'a.py', 'h2', ['alpha']), file('repo', 'a.py', 'h3', ['delta', 'eps'], 7)], NOW + 1); // prettier-ignore
    await repo.finishSource(source('repo'), { removed: [], touched: [] }, NOW + 1);
    // another process (a replica) reads the same
    const other = second();
    expect(await other.files('repo')).toEqual(new Map([['a.py', { size: 20, mtimeMs: 7, hash: 'h3' }]]));
    expect(await other.sources()).toEqual([{ ...source('repo'), files: 1, chunks: 2 }]);
  });

  it.runIf(available)('writes a batch whole or not at all', async () => {
    const { repo } = await each.open();
    await repo.storeFiles('repo', [file('repo', 'a.py', 'h1', ['alpha'])], NOW);
    const bad = { ...file('repo', 'c.py', 'h3', ['gamma']), state: { size: 1, mtimeMs: 1, hash: null } };
    const batch = [file('repo', 'b.py', 'h2', ['beta']), bad as unknown as IndexedFile]; // a hash refused by the table
    await expect(repo.storeFiles('repo', batch, NOW)).rejects.toThrow();
    expect([...(await repo.files('repo')).keys()]).toEqual(['a.py']);
  });

  it.runIf(available)('records sources, updated in place, listed in byte order with their counts', async () => {
    const { repo } = await each.open();
    for (const name of ['b', 'B', 'é', 'a']) await repo.putSource(source(name));
    await repo.putSource({ ...source('b', '2026-11-26T11:00:00.000Z'), kind: 'import', location: 'in.jsonl' });
    await repo.storeFiles('b', [file('b', 'x.py', 'h', ['one', 'two']), file('b', 'y.py', 'h', [])], NOW);
    expect(await repo.source('b')).toEqual({ name: 'b', kind: 'import', location: 'in.jsonl', indexedAt: '2026-11-26T11:00:00.000Z' }); // prettier-ignore
    expect(await repo.source('none')).toBeUndefined();
    expect((await repo.sources()).map((s) => [s.name, s.files, s.chunks])).toEqual([
      ['B', 0, 0],
      ['a', 0, 0],
      ['b', 2, 2],
      ['é', 0, 0],
    ]);
  });
});
