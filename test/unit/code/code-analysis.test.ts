// Chunks analyzed and their texts compressed ahead of their write (in the code analysis threads, and
// their function in this thread): the index and the stored texts come out as when written plainly.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCodeAnalysisPool } from '../../../src/core/code/index/code-analysis.js';
import { prepareChunks } from '../../../src/core/code/index/code-analysis.js';
import { createCodeIndex, type ChunkRecord, type CodeIndex } from '../../../src/core/code/index/code-index.js';
import { BATCH_CHUNKS, INLINE_BATCHES, writeInBatches } from '../../../src/core/code/index/write-batches.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/database.js';

let dirs: string[] = [];
const open = (): { db: Db; code: CodeIndex } => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-code-analysis-'));
  dirs.push(dir);
  const db = openDatabase(dir);
  return { db, code: createCodeIndex(db) };
};
let opened: Db[] = [];
beforeEach(() => {
  dirs = [];
  opened = [];
});
afterEach(() => {
  for (const db of opened) db.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const files = (n: number, chunksEach = 1) =>
  Array.from({ length: n }, (_, f) => ({
    path: `src/f${f}.py`,
    hash: `h${f}`,
    chunks: Array.from({ length: chunksEach }, (_, k): ChunkRecord => ({
      source: 'repo',
      path: `src/f${f}.py`,
      startLine: k * 10 + 1,
      endLine: k * 10 + 8,
      language: 'python',
      kind: 'function',
      symbol: `load_${f}_${k}`,
      doc: f % 2 ? `Loads the record ${f} — naïve café 🚀.` : null,
      code: `def load_${f}_${k}(store):\n    """Loads the record ${f}."""\n    return store.get("record-${f}")\n`,
    })),
  }));
const copy = <F extends { chunks: ChunkRecord[] }>(fs_: F[]) => fs_.map((f) => ({ ...f, chunks: f.chunks.map((c) => ({ ...c })) })); // prettier-ignore

/** What an index answers and stores, to compare two of them. */
const contents = (code: CodeIndex, db: Db) => {
  const ids = db.prepare('SELECT id FROM code_chunks ORDER BY id').pluck().all() as number[];
  return {
    chunks: code.hitsByIds(ids).map(({ score: _score, ...c }) => c),
    hits: ['load record 7', 'store get', 'naïve café'].map((q) =>
      code.search(q, { limit: 5 }).map((h) => `${h.path}:${h.startLine} ${h.score.toFixed(6)}`),
    ),
  };
};

describe('chunks prepared ahead', () => {
  it('index and store as chunks written plainly, in blocks or joining the newest', () => {
    for (const [n, each] of [
      [60, 2],
      [3, 1],
    ] as const) {
      const plain = open();
      const ahead = open();
      opened.push(plain.db, ahead.db);
      const batch = files(n, each);
      plain.code.replaceFiles('repo', copy(batch), 1);
      const prepared = copy(batch);
      const chunks = prepared.flatMap((f) => f.chunks);
      prepareChunks(chunks).forEach((p, i) => (chunks[i]!.prepared = p));
      // a batch too small for a block of its own leaves its texts to the writer
      expect(chunks.every((c) => c.prepared?.text === undefined)).toBe(n === 3);
      ahead.code.replaceFiles('repo', prepared, 1);
      expect(contents(ahead.code, ahead.db)).toEqual(contents(plain.code, plain.db));
    }
  });

  it('in the analysis threads, batch after batch once a run is long, while the batch before is written', async () => {
    const plain = open();
    const ahead = open();
    opened.push(plain.db, ahead.db);
    const all = files(((INLINE_BATCHES + 1.5) * BATCH_CHUNKS) / 2, 2);
    const writes: number[] = [];
    const threaded: boolean[] = [];
    await writeInBatches(copy(all), (batch) => plain.code.replaceFiles('repo', batch, 1));
    const pool = createCodeAnalysisPool(2);
    try {
      await writeInBatches(
        copy(all),
        (batch) => {
          writes.push(batch.reduce((n, f) => n + f.chunks.length, 0));
          threaded.push(batch.every((f) => f.chunks.every((c) => c.prepared?.analysis)));
          ahead.code.replaceFiles('repo', batch, 1);
        },
        pool,
      );
    } finally {
      await pool.close();
    }
    expect(writes).toEqual([...Array<number>(INLINE_BATCHES + 1).fill(BATCH_CHUNKS), BATCH_CHUNKS / 2]);
    expect(threaded).toEqual([...Array<boolean>(INLINE_BATCHES).fill(false), true, true]);
    expect(contents(ahead.code, ahead.db)).toEqual(contents(plain.code, plain.db));
  });
});
