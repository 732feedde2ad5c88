/**
 * Index entries of many documents at once, analyzed in worker threads (`analysis-worker.ts`, one per
 * core but one left to the thread that writes): a batch is split among the threads, so a crawl or an
 * import analyzes while the previous batch is written. Small batches (a page fetched) are analyzed
 * inline: a thread's round trip would cost more than it saves.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../../lib/worker-script.js';
import type { DocumentRecord } from '../../store/contracts/documents.js';
import type { IndexedDoc } from '../../store/search-index/search-index.types.js';
import { toIndexEntry } from './index-entry.js';

/** Batches smaller than this are analyzed inline. */
const MIN_POOLED = 32;

export interface AnalysisPool {
  /** The index entries of `docs`, in order. */
  entries(docs: DocumentRecord[]): Promise<IndexedDoc[]>;
  /** Starts the threads now rather than at the first batch (a bulk load: they load while it reads). */
  start(): void;
  close(): Promise<void>;
}

interface Pending {
  resolve(entries: IndexedDoc[]): void;
  reject(err: Error): void;
}

/** A pool of `size` threads (default: the cores less one, at least one), started on first use. */
export function createAnalysisPool(size = Math.max(1, os.availableParallelism() - 1)): AnalysisPool {
  const workers: Worker[] = [];
  const pending = new Map<number, Pending>();
  let nextId = 1;
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const start = () => {
    const w = new Worker(workerScript('analysis-worker', import.meta.url, 'core/search'));
    w.unref();
    w.on('message', (msg: { id: number; entries?: IndexedDoc[]; error?: string }) => {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(`index analysis failed: ${msg.error}`));
      else p?.resolve(msg.entries!);
    });
    w.on('error', (err) => failAll(err));
    w.on('exit', () => {
      const i = workers.indexOf(w);
      if (i >= 0) workers.splice(i, 1);
    });
    return w;
  };
  const run = (w: Worker, docs: DocumentRecord[]) =>
    new Promise<IndexedDoc[]>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      w.postMessage({ id, docs });
    });
  const startAll = () => {
    while (workers.length < size) workers.push(start());
  };
  return {
    async entries(docs) {
      if (docs.length < MIN_POOLED) return docs.map(toIndexEntry);
      startAll();
      const share = Math.ceil(docs.length / workers.length);
      const parts = await Promise.all(workers.map((w, i) => run(w, docs.slice(i * share, (i + 1) * share))));
      return parts.flat();
    },
    start: startAll,
    async close() {
      await Promise.all(workers.splice(0).map((w) => w.terminate()));
      failAll(new Error('the analysis pool was closed'));
    },
  };
}
