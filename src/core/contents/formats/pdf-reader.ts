/**
 * PDFs are read in worker threads (pdf-worker.ts), never in the thread that answers requests: a small
 * pool, started on first use, one PDF per thread at a time. Each read has a deadline and each thread a
 * heap limit (`resourceLimits`); a read past either stops its thread (the next read starts a new one)
 * and fails the page. The inflate cap is counted inside the thread, since `resourceLimits` bounds the V8
 * heap and not the buffers decoded streams live in. A thread that hit a limit is not reused, and an idle
 * one stops after a while, so the memory a document took goes back with its thread.
 */
import { Worker } from 'node:worker_threads';
import { FetchError } from '../../../fetch/types.js';
import { workerScript } from '../../../lib/worker-script.js';
import type { Page } from '../page.js';
import type { PdfJob, PdfReply } from './pdf-worker.js';

/** The limits of reading one PDF (settings `TRAWL_DOCUMENT_*`). */
export interface PdfLimits {
  /** Bytes a PDF's streams may decode to, all together (`TRAWL_DOCUMENT_MAX_INFLATED_BYTES`). */
  maxInflatedBytes: number;
  /** Longest one read may take (`TRAWL_DOCUMENT_PARSE_TIMEOUT_MS`). */
  timeoutMs: number;
  /** V8 heap of each thread, MB (`TRAWL_DOCUMENT_PARSE_MEMORY_MB`). */
  memoryMb: number;
  /** Threads reading at once; more PDFs wait for one (`TRAWL_DOCUMENT_PARSE_THREADS`). */
  threads: number;
}

/** The settings' defaults (src/config/settings/fetch.ts; a test holds them equal). */
export const DEFAULT_PDF_LIMITS: Readonly<PdfLimits> = Object.freeze({
  maxInflatedBytes: 128 * 1024 * 1024,
  timeoutMs: 20_000,
  memoryMb: 256,
  threads: 2,
});

/** An idle thread keeps pdf.js loaded this long for the next PDF, then stops. */
const IDLE_MS = 30_000;

export interface PdfReader {
  /**
   * The page of a PDF. Throws `FetchError`: `CRAWL_TOO_LARGE` past the inflate cap or the heap limit,
   * `CRAWL_TIMEOUT` past the deadline, `CRAWL_UNKNOWN_ERROR` for a file that is not a readable PDF.
   */
  read(bytes: Uint8Array, url: string): Promise<Page>;
  /** Stops the threads; reads in progress or waiting fail. */
  close(): Promise<void>;
}

interface Job {
  id: number;
  bytes: Uint8Array;
  url: string;
  resolve(page: Page): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

const failure = (tag: FetchError['tag'], message: string) => new FetchError(tag, message);

/** What ended a thread, as the failure of the read it was doing. */
function lostRead(err: Error, limits: PdfLimits): FetchError {
  if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return failure('CRAWL_TOO_LARGE', `too large: reading the PDF needs more than the ${limits.memoryMb} MB heap of its worker thread (TRAWL_DOCUMENT_PARSE_MEMORY_MB)`); // prettier-ignore
  }
  return failure('CRAWL_UNKNOWN_ERROR', `the PDF could not be read: its worker thread stopped (${err.message})`);
}

/** The pool behind `createPdfReader`: threads (slots), the reads waiting for one, and their deadlines. */
class PdfPool implements PdfReader {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly limits: PdfLimits) {}

  read(bytes: Uint8Array, url: string): Promise<Page> {
    if (this.closed) return Promise.reject(failure('CRAWL_UNKNOWN_ERROR', 'the PDF reader is closed'));
    // a copy of its own: the buffer is handed to the thread, and Buffers may share a pooled one
    const own = new Uint8Array(bytes);
    return new Promise<Page>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, bytes: own, url, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const gone = failure('CRAWL_UNKNOWN_ERROR', 'the PDF reader was closed');
    this.failQueue(gone);
    const running = [...this.slots];
    this.slots.clear();
    for (const slot of running) {
      slot.job?.reject(gone);
      clearTimeout(slot.timer);
    }
    await Promise.all(running.map((slot) => slot.worker.terminate()));
  }

  /** Hands waiting reads to ready threads, and starts threads (up to the limit) for the rest. */
  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.ready && !slot.job) this.run(slot, this.queue.shift()!);
    }
    const starting = [...this.slots].filter((s) => !s.ready).length;
    for (let n = starting; n < this.queue.length && this.slots.size < this.limits.threads; n++) {
      try {
        this.start();
      } catch (err) {
        this.failQueue(lostRead(err as Error, this.limits)); // the worker script is missing: nothing can run
      }
    }
  }

  private start(): void {
    const script = workerScript('pdf-worker', import.meta.url, 'core/contents/formats');
    const worker = new Worker(script, {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: 32 },
    });
    const slot: Slot = { worker, ready: false };
    worker.on('message', (reply: PdfReply) => this.settle(slot, reply));
    worker.on('error', (err) => this.lost(slot, err));
    worker.on('exit', (code) => this.lost(slot, new Error(`exit code ${code}`)));
    this.slots.add(slot);
  }

  /** One read in `slot`, under the deadline; the thread keeps a one-shot command alive meanwhile. */
  private run(slot: Slot, job: Job): void {
    clearTimeout(slot.timer);
    slot.job = job;
    slot.worker.ref();
    const { timeoutMs, maxInflatedBytes } = this.limits;
    slot.timer = setTimeout(() => {
      if (slot.job !== job) return;
      this.retire(slot);
      job.reject(failure('CRAWL_TIMEOUT', `time-out: reading the PDF took longer than ${timeoutMs} ms (TRAWL_DOCUMENT_PARSE_TIMEOUT_MS)`)); // prettier-ignore
      this.pump();
    }, timeoutMs);
    const message: PdfJob = { id: job.id, bytes: job.bytes, url: job.url, maxInflatedBytes };
    slot.worker.postMessage(message, [job.bytes.buffer as ArrayBuffer]);
  }

  private settle(slot: Slot, reply: PdfReply): void {
    if ('ready' in reply) {
      slot.ready = true;
      this.pump();
      if (!slot.job && this.slots.has(slot)) this.idle(slot);
    } else if ('broken' in reply) {
      // the cap cannot be enforced: no PDF is read (the reads waiting fail rather than loop on new threads)
      this.retire(slot);
      this.failQueue(failure('CRAWL_UNKNOWN_ERROR', `the PDF reader is unavailable: ${reply.broken}`));
    } else if (slot.job?.id === reply.id) {
      const job = slot.job;
      slot.job = undefined;
      clearTimeout(slot.timer);
      if ('page' in reply) job.resolve(reply.page);
      else job.reject(failure(reply.error.tag, reply.error.message));
      // a thread that held a document's worth of decoded buffers goes, and its memory with it
      if ('error' in reply && reply.overCap) this.retire(slot);
      else this.idle(slot);
      this.pump();
    }
  }

  /** A thread that ended (out of memory, crashed): its read fails; one that never started fails the queue. */
  private lost(slot: Slot, err: Error): void {
    if (!this.slots.has(slot)) return;
    this.retire(slot);
    if (slot.job) slot.job.reject(lostRead(err, this.limits));
    else if (!slot.ready) this.failQueue(lostRead(err, this.limits));
    this.pump();
  }

  /** An idle thread does not keep the process alive, and stops after IDLE_MS. */
  private idle(slot: Slot): void {
    slot.worker.unref();
    slot.timer = setTimeout(() => this.retire(slot), IDLE_MS).unref();
  }

  private retire(slot: Slot): void {
    this.slots.delete(slot);
    clearTimeout(slot.timer);
    void slot.worker.terminate();
  }

  private failQueue(err: FetchError): void {
    for (const job of this.queue.splice(0)) job.reject(err);
  }
}

/** A pool of PDF worker threads under `limits`, started on first use. */
export function createPdfReader(limits: PdfLimits = DEFAULT_PDF_LIMITS): PdfReader {
  return new PdfPool(limits);
}

let fallback: PdfReader | undefined;

/** A process-wide reader with the default limits, for callers without an app (tools, tests). */
export function defaultPdfReader(): PdfReader {
  fallback ??= createPdfReader();
  return fallback;
}
