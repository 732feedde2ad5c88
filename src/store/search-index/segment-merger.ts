/**
 * The background merges of one process: a worker thread (`merge-worker.ts`) with its own connection,
 * poked after each index write, so that segments are merged without the request thread waiting on
 * SQLite. See `segment-merge.ts` for how a merge stays safe beside writers, readers and other processes.
 */
import { Worker } from 'node:worker_threads';
import { workerScript } from '../../lib/worker-script.js';

export interface MergeScheduler {
  /** A write happened: merge if segments piled up. */
  poke(): void;
  /** Resolves when the worker has nothing left to merge (benches, tests, a CLI import's end). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface MergerOptions {
  /** How often the worker looks for work without being poked (default 5 s). */
  tickMs?: number;
  leaseMs?: number;
  /** Rows per merge step (tests make steps small). */
  chunkRows?: number;
  onError?: (message: string) => void;
}

/** Starts the merge worker on the database file `file`. */
export function startSegmentMerger(file: string, options: MergerOptions = {}): MergeScheduler {
  let worker: Worker | null = null;
  let waiters: { seq: number; resolve: () => void }[] = [];
  let seq = 0;
  const release = (upTo: number) => {
    const done = waiters.filter((w) => w.seq <= upTo);
    waiters = waiters.filter((w) => w.seq > upTo);
    for (const w of done) w.resolve();
  };
  const start = () => {
    const w = new Worker(workerScript('merge-worker', import.meta.url, 'store/search-index'), {
      workerData: {
        file,
        tickMs: options.tickMs ?? 5000,
        leaseMs: options.leaseMs ?? 60_000,
        chunkRows: options.chunkRows ?? 2000,
      },
    });
    w.unref();
    w.on('message', (msg: { idle?: number; error?: string }) => {
      if (msg.error) options.onError?.(msg.error);
      if (msg.idle !== undefined) release(msg.idle);
    });
    w.on('error', (err) => options.onError?.(err.message));
    w.on('exit', () => {
      if (worker === w) worker = null;
      release(Number.POSITIVE_INFINITY);
    });
    return w;
  };
  return {
    poke() {
      (worker ??= start()).postMessage(++seq);
    },
    idle() {
      const at = ++seq;
      (worker ??= start()).postMessage(at);
      return new Promise((resolve) => waiters.push({ seq: at, resolve }));
    },
    async close() {
      const w = worker;
      worker = null;
      if (!w) return;
      // a merge in progress is abandoned: its claims expire and the next merger rolls it back
      await w.terminate();
    },
  };
}
