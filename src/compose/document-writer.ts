/**
 * The serving process's document writer: a worker thread (document-writer-worker.ts) with its own
 * connection and analysis pool that analyzes every document write and runs its transaction
 * (core/documents/write-path.ts, steps 1-3), so the thread that answers requests never waits on either:
 * it hands a batch over (a structured clone of the pages) and learns of the commit. It shares the database file as the merge
 * worker does (WAL; each write an IMMEDIATE transaction; busy_timeout for the lock).
 */
import { Worker } from 'node:worker_threads';
import { workerScript } from '../lib/worker-script.js';
import type { AlsoStatement, DocumentWriter, WriteBatch } from '../core/documents/write-path.js';

/** What the writer thread is started with. */
export interface WriterOptions {
  /** The database file. */
  file: string;
  /** The code model setting (TRAWL_CODE_MODEL): pages' examples get their vectors on the writer thread. */
  codeModel: string | undefined;
  /** An embeddings provider ranks code instead of the code model. */
  codeProvider: boolean;
  /** Threads of the writer's analysis pool (default: the cores less one). */
  analysisThreads?: number;
  /** Starts them with the writer rather than at its first batch: a bulk load's first batch need not wait for them to load. */
  startAnalysis?: boolean;
}

/** A write sent to the thread. */
export interface WriterRequest {
  id: number;
  batches: WriteBatch[];
  also?: AlsoStatement[];
}

/** What the thread answers: a write begun (on which thread), committed, failed; a log line. */
export type WriterReply =
  { begin: number; threadId: number } | { done: number } | { failed: number; error: string } | { log: string };

/** A log line of the writer thread (pino's JSON), for the serving thread's logger. */
export type WriterLog = { level: number; msg?: string } & Record<string, unknown>;

export interface DocumentWriterThread extends DocumentWriter {
  /** The thread a write began on, told as it begins (tests prove the transaction ran off this thread). */
  onBegin?: (threadId: number) => void;
  /** Stops the thread at once, as a crash would (tests): pending writes fail, the next starts a new one. */
  terminate(): Promise<void>;
}

interface Pending {
  worker: Worker;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Starts (at the first write) the document writer over the database file `options.file`. */
export function startDocumentWriter(
  options: WriterOptions,
  hooks: { onLog?: (record: WriterLog) => void; onError?: (message: string) => void } = {},
): DocumentWriterThread {
  let worker: Worker | null = null;
  let seq = 0;
  const pending = new Map<number, Pending>();
  const failAll = (w: Worker, reason: string) => {
    if (worker === w) worker = null;
    const error = new Error(
      `the document writer thread stopped (${reason}) before confirming this write: its transaction committed whole or rolled back, never in part; write it again`, // prettier-ignore
    );
    for (const [id, p] of pending) {
      if (p.worker !== w) continue;
      pending.delete(id);
      p.reject(error);
    }
  };
  const onReply = (msg: WriterReply) => {
    if ('log' in msg) hooks.onLog?.(JSON.parse(msg.log) as WriterLog);
    else if ('begin' in msg) api.onBegin?.(msg.threadId);
    else if ('done' in msg) settle(msg.done)?.resolve();
    else settle(msg.failed)?.reject(new Error(msg.error));
  };
  const settle = (id: number): Pending | undefined => {
    const p = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) worker?.unref(); // idle: the thread does not keep the process alive
    return p;
  };
  const start = () => {
    const w = new Worker(workerScript('document-writer-worker', import.meta.url, 'compose'), { workerData: options });
    w.on('message', onReply);
    w.on('error', (err) => {
      hooks.onError?.(err.message);
      failAll(w, err.message);
    });
    w.on('exit', (code) => failAll(w, `exit code ${code}`));
    return w;
  };
  const api: DocumentWriterThread = {
    write(batches, also) {
      const id = ++seq;
      const w = (worker ??= start());
      w.ref(); // a write in flight keeps the process alive until it is confirmed
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { worker: w, resolve, reject });
        w.postMessage({ id, batches, also } satisfies WriterRequest);
      });
    },
    async terminate() {
      const w = worker;
      if (!w) return;
      await w.terminate();
    },
    async close() {
      const w = worker;
      if (!w) return;
      // writes already sent are committed first: the thread takes 'close' after them
      const exited = new Promise((resolve) => w.once('exit', resolve));
      w.postMessage('close');
      await exited;
    },
  };
  return api;
}
