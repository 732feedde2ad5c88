// The documents' one write path (core/documents/write-path.ts): a page written through it is stored,
// searchable and its code examples are in the code index when the write returns; a step that fails
// leaves none of them written; on a replica the path's `documents` is the replica's, and `local` is
// what the replica was given.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeExamples } from '../../../src/core/code/index/doc-examples.js';
import { createCodeIndex, type CodeIndex } from '../../../src/core/code/index/code-index.js';
import type { PageDocuments, PageStore } from '../../../src/core/documents/documents.types.js';
import { createWritePath, type IndexStage } from '../../../src/core/documents/write-path.js';
import { createSearchIndex, type SearchIndex } from '../../../src/core/search/search-index.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/database.js';
import { createDocumentsRepo } from '../../../src/store/sqlite/documents.js';
import { storedDoc } from '../../helpers/documents.js';
import type { SqliteDocumentsRepo } from '../../../src/store/contracts/documents.js';

const NOW = '2026-11-29T05:00:00.000Z';
const MARKDOWN = [
  'Open a pool of sockets to one origin:',
  '',
  '```js',
  "const pool = new Pool('https://example.com');",
  "const { body } = await pool.request({ path: '/', method: 'GET' });",
  '```',
].join('\n');
const page = () => ({
  ...storedDoc('https://docs.example/pool', 'Connection pooling', 'Open a pool of sockets to one origin.'),
  markdown: MARKDOWN,
});

let dir: string;
let db: Db;
let stored: SqliteDocumentsRepo;
let index: SearchIndex;
let code: CodeIndex;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-write-path-'));
  db = openDatabase(dir);
  stored = createDocumentsRepo(db);
  index = createSearchIndex(db, stored);
  code = createCodeIndex(db);
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the documents write path', () => {
  it('stores a page, indexes it and keeps its code examples, by the time the write returns', async () => {
    const { documents, indexed } = createWritePath({ db, stored, index, examples: codeExamples(code) });
    await documents.upsert(page(), NOW);
    expect((await indexed.get('https://docs.example/pool'))?.title).toBe('Connection pooling');
    expect(index.search('sockets pool', { limit: 5 }).length).toBe(1);
    expect(code.search('pool request', { limit: 5 }).map((hit) => hit.path)).toEqual(['https://docs.example/pool']);
  });

  it('writes nothing when a step fails', async () => {
    const failing: IndexStage = {
      prepare: async () => {},
      index: () => {
        throw new Error('index full');
      },
      noteWrite: () => {},
      settle: () => {},
    };
    const { documents } = createWritePath({ db, stored, index: failing, examples: codeExamples(code) });
    await expect(documents.upsertMany([page()], NOW)).rejects.toThrow('index full');
    expect(await stored.count()).toBe(0);
    expect(code.search('pool request', { limit: 5 })).toEqual([]);
  });

  it('gives a replica this machine’s path and every service the replica’s documents', async () => {
    let given: PageDocuments | undefined;
    const replicated: PageStore = { ...stored, upsert: async () => {}, upsertMany: async () => {} };
    const path = createWritePath({
      db,
      stored,
      index,
      replicate: (local) => {
        given = local;
        return { documents: replicated };
      },
    });
    expect(path.documents).toBe(replicated);
    expect(given).toBe(path.local);
  });
});
