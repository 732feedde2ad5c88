/**
 * How code chunks are written in bulk (`trawl index`, and the benchmark that measures it): whole files
 * per transaction until a batch holds `BATCH_CHUNKS` chunks; in a long run, each batch analyzed in a
 * thread while the one before is written.
 */
import type { CodeAnalysisPool } from './code-analysis.js';
import type { ChunkRecord } from './code-index.js';

/**
 * Chunks written per transaction (files are kept whole, so a batch ends with the file that reaches it).
 * By chunks, not files: a batch is one segment of the index, and files run from one chunk to hundreds
 * (200 files per batch made segments of 200 chunks of one-function files, and merging them cost more
 * than writing them; 200 files of this project's packages, 11 chunks a file, come to about this many).
 */
export const BATCH_CHUNKS = 2000;

/**
 * Batches written before the pool is used: its thread starts cold (its first batches analyzed far
 * slower than by the writing thread), so it pays for itself in long runs only. Measured: CoSQA's 6,268
 * one-function files (4 batches) were written slower with the thread from the first batch; this
 * project's node_modules (104,540 chunks, 53 batches) 17% faster (13.6 → 11.3 s).
 */
export const INLINE_BATCHES = 4;

/**
 * Writes `files` through `write` (one transaction each) in batches of about `BATCH_CHUNKS` chunks; with
 * `pool`, each batch after the first `INLINE_BATCHES` is analyzed there while the one before is written.
 */
export async function writeInBatches<F extends { chunks: readonly ChunkRecord[] }>(
  files: Iterable<F> | AsyncIterable<F>,
  write: (batch: F[]) => void | Promise<void>,
  pool: CodeAnalysisPool | null = null,
): Promise<void> {
  let waiting: { batch: F[]; ready: Promise<void> } | null = null;
  let batches = 0;
  const writeWaiting = async () => {
    if (!waiting) return;
    await waiting.ready;
    await write(waiting.batch);
    waiting = null;
  };
  const next = async (batch: F[]) => {
    // the pool takes this batch before the one before is written (the write holds this thread)
    const threaded = pool !== null && ++batches > INLINE_BATCHES;
    const ready = threaded ? pool.prepare(batch.flatMap((f) => f.chunks)) : Promise.resolve();
    await writeWaiting();
    waiting = { batch, ready };
  };
  let batch: F[] = [];
  let chunks = 0;
  for await (const file of files) {
    batch.push(file);
    chunks += file.chunks.length;
    if (chunks >= BATCH_CHUNKS) {
      await next(batch);
      batch = [];
      chunks = 0;
    }
  }
  if (batch.length > 0) await next(batch);
  await writeWaiting();
}
