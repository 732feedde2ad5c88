// The document writer's thread (compose/document-writer.ts): a write's transaction runs there, on its
// own connection, while this thread's event loop goes on; a page is searchable (and its code examples
// are in the code index) as soon as its write resolves; a writer thread that dies fails the writes it
// had with a clear error, leaves nothing half-written, and the next write runs on a new thread.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeExamples } from '../../../src/core/code/index/doc-examples.js';
import { createCodeIndex, type CodeIndex } from '../../../src/core/code/index/code-index.js';
import { localWrites } from '../../../src/core/documents/write-path.js';
import { createSearchIndex, type SearchIndex } from '../../../src/core/search/search-index.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/database.js';
import { createDocumentsRepo } from '../../../src/store/sqlite/documents.js';
import { startDocumentWriter, type DocumentWriterThread } from '../../../src/compose/document-writer.js';
import { startSegmentMerger } from '../../../src/store/search-index/segment-merger.js';
import { BACKGROUND_NICE } from '../../../src/lib/thread-priority.js';
import { probeWriteLock } from '../../helpers/write-lock-probe.js';
import { storedDoc } from '../../helpers/documents.js';

const NOW = '2026-11-29T05:00:00.000Z';
const WORDS = 'undici pooling sockets retries backoff timeouts keepalive pipelining origin dispatcher'.split(' ');
/** A word of its own for page `i` of `tag` (letters only: the analyzer splits letters from digits). */
const marker = (tag: string, i: number) =>
  `zq${tag}${[...i.toString(10)].map((d) => 'abcdefghij'[Number(d)]).join('')}`;
const batch = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    storedDoc(
      `https://${tag}.example/${i}`,
      `Page ${marker(tag, i)}`,
      Array.from({ length: 200 }, (_, k) => WORDS[(i * 7 + k * k) % WORDS.length]).join(' '),
    ),
  );

let dir: string;
let db: Db;
let index: SearchIndex;
let code: CodeIndex;
let writer: DocumentWriterThread;
let documents: ReturnType<typeof localWrites>;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-document-writer-'));
  db = openDatabase(dir);
  const stored = createDocumentsRepo(db);
  index = createSearchIndex(db, stored);
  code = createCodeIndex(db);
  writer = startDocumentWriter({ file: db.name, codeModel: 'off', codeProvider: false });
  documents = localWrites(db, stored, index, codeExamples(code), writer);
});
afterEach(async () => {
  await writer.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Rows of `table` (committed ones: another connection, as any reader sees them). */
const rows = (table: string, where = '1') => {
  const other = new Database(db.name, { readonly: true });
  try {
    return (other.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n;
  } finally {
    other.close();
  }
};

/** The nice value of each thread of this process (Linux: /proc/self/task/TID/stat, field 19). */
const threadNices = () =>
  fs.readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // the thread ended between the listing and the read
    }
  });
const background = () => threadNices().filter((n) => n === BACKGROUND_NICE).length;

describe('the document writer thread', () => {
  it('runs the transaction on its own thread while this one answers, and the page is searchable once the write resolves', async () => {
    const began: number[] = [];
    writer.onBegin = (id) => began.push(id);
    const pages = batch('big', 3000);
    const written = documents.writeBatches([{ pages, now: NOW }]);
    // only a loop turning while the writer's transaction is open sees its write lock held
    const probe = probeWriteLock(db.name);
    await written;
    const lockedWhileLooping = probe.stop();
    expect(began).toHaveLength(1);
    expect(began[0]).not.toBe(threadId);
    expect(lockedWhileLooping).toBeGreaterThan(0);
    // searchable as soon as the write resolved, with nothing else awaited
    const hits = index.search(marker('big', 2999), { limit: 3 });
    expect([...index.urls(hits.map((h) => h.id)).values()]).toEqual(['https://big.example/2999']);
    expect(await documents.count()).toBe(3000);
  });

  it('keeps pages’ code examples and runs writes in the order they were made', async () => {
    const example = {
      ...storedDoc('https://docs.example/pool', 'Connection pooling', 'Open a pool.'),
      markdown: "Open a pool:\n\n```js\nconst pool = new Pool('https://example.com');\nawait pool.close();\n```",
    };
    const first = documents.upsert({ ...example, title: 'First title' }, NOW);
    const second = documents.upsert(example, NOW);
    await Promise.all([first, second]);
    expect((await documents.get('https://docs.example/pool'))?.title).toBe('Connection pooling');
    expect(code.search('pool close', { limit: 3 }).map((h) => h.path)).toEqual(['https://docs.example/pool']);
  });

  it('fails a write whose transaction failed with its error, and writes nothing of it', async () => {
    const bad = batch('bad', 3);
    await expect(
      documents.writeBatches(
        [{ pages: bad, now: NOW }],
        [{ sql: 'INSERT INTO no_such_table VALUES (?)', params: [1] }],
      ),
    ).rejects.toThrow(/no such table/);
    expect(rows('documents')).toBe(0);
    expect(rows('search_docs')).toBe(0);
    await documents.writeBatches([{ pages: batch('good', 2), now: NOW }]);
    expect(index.search(marker('good', 1), { limit: 3 })).toHaveLength(1);
  });

  it('fails the pending writes when the thread dies, writes nothing half, and starts a new thread for the next', async () => {
    const began: number[] = [];
    writer.onBegin = (id) => {
      began.push(id);
      if (began.length === 1) void writer.terminate(); // dies in the middle of the first write
    };
    const pages = batch('lost', 3000);
    const lost = documents.writeBatches([{ pages, now: NOW }]);
    const queued = documents.writeBatches([{ pages: batch('queued', 2), now: NOW }]);
    await expect(lost).rejects.toThrow(/document writer thread stopped .* never in part; write it again/);
    await expect(queued).rejects.toThrow(/document writer thread stopped/);
    // whole or nothing: every step's rows, or none of them
    const stored = rows('documents', "url LIKE 'https://lost.example/%'");
    expect([0, 3000]).toContain(stored);
    expect(rows('search_docs', "url LIKE 'https://lost.example/%'")).toBe(stored);
    await documents.writeBatches([{ pages: batch('after', 2), now: NOW }]);
    expect(began).toHaveLength(2);
    expect(began[1]).not.toBe(began[0]);
    expect(index.search(marker('after', 1), { limit: 3 })).toHaveLength(1);
  });
  it.runIf(process.platform === 'linux')(
    'runs the writer, its analysis threads and the merge worker at a lower priority than the thread that answers',
    async () => {
      const own = os.getPriority();
      const before = background();
      // 40 pages: the writer's analysis pool takes the batch (smaller ones are analyzed inline)
      await documents.writeBatches([{ pages: batch('nice', 40), now: NOW }]);
      const withWriter = background();
      expect(withWriter).toBeGreaterThanOrEqual(before + 2); // the writer and at least one analysis thread
      const merges = startSegmentMerger(db.name);
      try {
        await merges.idle();
        expect(background()).toBe(withWriter + 1);
      } finally {
        await merges.close();
      }
      expect(os.getPriority()).toBe(own);
    },
  );
});
