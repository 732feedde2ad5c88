/**
 * Threads that analyze code chunks and compress their texts ahead of their write
 * (`code-analysis-worker.ts`): while one batch of a bulk write is written on the thread that owns the
 * database, the next is made ready (`write-batches.ts`). Without threads (a worker that failed to
 * start), chunks are analyzed as they are written.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../../../lib/worker-script.js';
import { BLOCK_CHARS, entryOf, packBlocks } from './chunk-texts.js';
import { analyzeChunk, type ChunkText } from './code-fields.js';
import type { ChunkRecord, PreparedChunk } from './code-index.js';

/** The prepared chunks of `chunks`, in order (what a thread of the pool does with a batch). */
export function prepareChunks(chunks: ChunkText[]): PreparedChunk[] {
  const prepared: PreparedChunk[] = chunks.map((c) => ({ analysis: analyzeChunk(c) }));
  const entries = chunks.map((c) => entryOf(c.code, c.doc));
  // too few for a block: the writer appends them to its newest block instead
  if (entries.reduce((n, e) => n + e.entry.length, 0) < BLOCK_CHARS) return prepared;
  const { blocks, places } = packBlocks(entries.map((e) => e.entry));
  places.forEach(({ block, at }, i) => {
    const { codeLen, docAt, docLen } = entries[i]!;
    prepared[i]!.text = { block: blocks[block]!, at, codeLen, docAt, docLen };
  });
  return prepared;
}

/** Threads that analyze chunks ahead of their write. */
export interface CodeAnalysisPool {
  /** Attaches `prepared` to each chunk; never fails (chunks left without are analyzed when written). */
  prepare(chunks: ChunkRecord[]): Promise<void>;
  close(): Promise<void>;
}

/** A pool of `size` threads (default: the cores less one, at least one), started on first use. */
export function createCodeAnalysisPool(size = Math.max(1, os.availableParallelism() - 1)): CodeAnalysisPool {
  const workers: Worker[] = [];
  const pending = new Map<number, (prepared: PreparedChunk[] | null) => void>();
  let nextId = 1;
  let broken = false;
  const fail = () => {
    broken = true;
    for (const done of pending.values()) done(null);
    pending.clear();
  };
  const start = () => {
    const w = new Worker(workerScript('code-analysis-worker', import.meta.url, 'core/code/index'));
    w.unref();
    w.on('message', (msg: { id: number; prepared?: PreparedChunk[] }) => {
      const done = pending.get(msg.id);
      pending.delete(msg.id);
      done?.(msg.prepared ?? null);
    });
    w.on('error', fail);
    w.on('exit', () => {
      if (pending.size > 0) fail(); // a thread that stopped leaves its batch to the writer
    });
    return w;
  };
  const run = (w: Worker, chunks: ChunkRecord[]) =>
    new Promise<PreparedChunk[] | null>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      const texts: ChunkText[] = chunks.map(({ path, symbol, doc, code }) => ({ path, symbol, doc, code }));
      w.postMessage({ id, chunks: texts });
    });
  return {
    async prepare(chunks) {
      if (broken || chunks.length === 0) return;
      try {
        while (workers.length < size) workers.push(start());
      } catch {
        broken = true; // no worker script (a build without it): analyzed as written
        return;
      }
      const each = Math.ceil(chunks.length / workers.length);
      const parts = workers.map((w, i) => chunks.slice(i * each, (i + 1) * each));
      const results = await Promise.all(parts.map((part, i) => (part.length ? run(workers[i]!, part) : [])));
      parts.forEach((part, i) => part.forEach((c, k) => (c.prepared = results[i]?.[k])));
    },
    async close() {
      await Promise.all(workers.splice(0).map((w) => w.terminate()));
      fail();
    },
  };
}
