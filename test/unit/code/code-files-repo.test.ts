// The code-files and crawl repositories on a real SQLite database: every method resolves, and each
// atomic unit (a batch of files with their chunks; a job with its seeds; a completed page with its
// links) is written whole or not at all.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCodeIndex, type ChunkRecord, type CodeIndex } from '../../../src/core/code/index/code-index.js';
import { createCodeFilesRepo } from '../../../src/store/sqlite/code-files.js';
import type { CodeFilesRepo } from '../../../src/store/contracts/code-files.js';
import { createCrawlRepo } from '../../../src/store/sqlite/crawl.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/database.js';
import { codeChunk } from '../../helpers/code.js';

let dir: string;
let db: Db;
let code: CodeIndex;
let files: CodeFilesRepo;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-code-files-'));
  db = openDatabase(dir);
  code = createCodeIndex(db);
  files = createCodeFilesRepo(db, code);
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const chunk = (file: string, symbol: string, startLine = 1): ChunkRecord => codeChunk('repo', file, symbol, startLine);
const state = (hash: string) => ({ size: 10, mtimeMs: 1, hash });
const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('code-files repository', () => {
  it('stores a batch of files with their chunks, and ends a run with removals, touches and the source', async () => {
    await files.storeFiles(
      'repo',
      [
        { path: 'a.py', hash: 'h1', chunks: [chunk('a.py', 'alpha')], state: state('h1') },
        { path: 'b.py', hash: 'h2', chunks: [chunk('b.py', 'beta'), chunk('b.py', 'gamma', 4)], state: state('h2') },
      ],
      NOW,
    );
    expect([...(await files.files('repo')).keys()].sort()).toEqual(['a.py', 'b.py']);
    expect(code.count()).toBe(3);

    const source = { name: 'repo', kind: 'folder', location: '/tmp/repo', indexedAt: new Date(NOW).toISOString() };
    await files.finishSource(
      source,
      { removed: ['b.py'], touched: [{ path: 'a.py', state: { ...state('h1'), mtimeMs: 2 } }] },
      NOW,
    );
    expect(await files.files('repo')).toEqual(new Map([['a.py', { size: 10, mtimeMs: 2, hash: 'h1' }]]));
    expect(code.count()).toBe(1);
    expect(await files.source('repo')).toEqual(source);
    expect(await files.sources()).toEqual([{ ...source, files: 1, chunks: 1 }]);
  });

  it('writes neither chunks nor states of a batch whose chunk write fails', async () => {
    const failing = createCodeFilesRepo(db, {
      replaceFiles(source, batch, at) {
        code.replaceFiles(source, batch as never, at);
        throw new Error('disk full');
      },
    });
    const batch = [{ path: 'a.py', hash: 'h1', chunks: [chunk('a.py', 'alpha')], state: state('h1') }];
    await expect(failing.storeFiles('repo', batch, NOW)).rejects.toThrow('disk full');
    expect((await files.files('repo')).size).toBe(0);
    expect(code.count()).toBe(0);
  });
});

describe('crawl repository', () => {
  it('creates a job with its seeds queued, and completes an entry with its links in one write', async () => {
    const repo = createCrawlRepo(db);
    const now = new Date(NOW).toISOString();
    const job = await repo.createJob({ id: 'j1', seeds: ['https://a.test/'], scope: { depth: 1 } }, now);
    expect(job).toMatchObject({ id: 'j1', state: 'active', sitemapsDone: false });
    const [seed] = await repo.next('j1', 10, new Set());
    expect(seed).toMatchObject({ url: 'https://a.test/', depth: 0 });
    expect(await repo.next('j1', 10, new Set([seed!.id]))).toEqual([]);

    const change = await repo.complete('j1', seed!.id, [], [{ url: 'https://a.test/b', depth: 1 }], now);
    expect(change).toEqual({ added: 1, aliasesQueuedToDone: 0, aliasesInserted: 0 });
    expect(await repo.counts('j1')).toEqual({ queued: 1, done: 1, failed: 0 });

    const [next] = await repo.next('j1', 10, new Set());
    await repo.fail(next!.id, { tag: 'CRAWL_NOT_FOUND', message: 'gone', httpStatusCode: 404 }, now);
    expect(await repo.failuresByTag('j1')).toEqual({ CRAWL_NOT_FOUND: 1 });
    expect(await repo.failures('j1', 10)).toEqual([
      { url: 'https://a.test/b', tag: 'CRAWL_NOT_FOUND', error: 'gone', httpStatusCode: 404 },
    ]);
    expect(await repo.activeJobsForSeeds(['https://a.test/'])).toHaveLength(1);
  });
});
