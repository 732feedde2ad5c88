/**
 * Imports documents into the store: JSONL files (gzipped or not, streamed line by line in constant
 * memory) and folders of HTML/Markdown/text files. Bad records are skipped and reported; good ones are
 * written in batches, each batch in one transaction.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Logger } from '../../lib/logger.js';
import type { PageStore, StoredPage } from '../documents/documents.types.js';
import type { Clock } from '../context.js';
import { fileToDocument, kindOfFile, listFiles, skipReason } from './folder.js';
import { checkCollection, recordToDocument } from './records.js';
import type { DocumentRecord } from '../../store/contracts/documents.js';

/** One rejected record or file: where it is and what is wrong with it. */
export interface ImportIssue {
  input: string;
  /** 1-based line of a JSONL record. */
  line?: number;
  /** Path of a file inside an imported folder, relative to it. */
  file?: string;
  message: string;
  /** A folder file left out because Trawl does not read its kind: reported, but not an error. */
  skipped?: boolean;
}

/** Progress of one input, reported every 1000 lines and after each folder file. */
export interface ImportProgress {
  input: string;
  imported: number;
  skipped: number;
  errors: number;
  /** Share of the input read so far (bytes of a file, files of a folder), 0-1. */
  fraction: number;
}

/** What one input imported, skipped and rejected. */
export interface ImportResult {
  input: string;
  format: 'jsonl' | 'folder';
  collection: string;
  imported: number;
  /** Folder files that are not HTML, Markdown or text. */
  skipped: number;
  errors: number;
}

/** How an input is imported: its collection, batch size, and who hears issues and progress. */
export interface ImportOptions {
  /** Collection of every document; default: the file's base name or the folder's name. */
  collection?: string;
  /** Documents per transaction. */
  batch: number;
  onIssue(issue: ImportIssue): void;
  onProgress?(p: ImportProgress): void;
  /**
   * When aborted: no more records are read; what was read is written, then the import rejects with the
   * signal's reason (a console job stopped by its server's shutdown).
   */
  signal?: AbortSignal;
}

/** Imports JSONL files and folders into the documents store. */
export interface ImportService {
  /** Imports one JSONL file (optionally gzipped) or folder; throws when it cannot be opened at all. */
  importPath(input: string, options: ImportOptions): Promise<ImportResult>;
}

/** The collection a file or folder imports into by default: its name without `.gz` and `.jsonl`. */
export function defaultCollection(input: string): string {
  return path
    .basename(path.resolve(input))
    .replace(/\.gz$/i, '')
    .replace(/\.(jsonl|ndjson|jsonlines|json)$/i, '');
}

/**
 * Collects documents and writes them `size` at a time, each batch in one transaction. A full batch is
 * handed on at once: it is analyzed (in the search index's worker threads) while the previous batch is
 * written, and the next batch fills meanwhile; batches are written in order, at most two in flight.
 */
function batcher(documents: PageStore, clock: Clock, size: number) {
  let pending: StoredPage[] = [];
  let queued = 0;
  // the last batch handed on: the next waits for it before its write, so writes keep their order
  let last: Promise<void> = Promise.resolve();
  let inFlight = 0;
  const handOn = () => {
    const batch = pending;
    pending = [];
    queued += batch.length;
    inFlight++;
    const previous = last;
    const { writeBatches } = documents;
    const analyzed = (writeBatches && documents.prepare?.(batch)) ?? Promise.resolve();
    last = (async () => {
      // the previous batch's failure is reported once, by whoever awaits it: this batch is not written
      await Promise.all([previous, analyzed]);
      const now = clock.now().toISOString();
      if (writeBatches) await writeBatches([{ pages: batch, now }]);
      else await documents.upsertMany(batch, now); // a replica: one transaction in the shared store
    })().finally(() => inFlight--);
    // a failure surfaces at the next add or the flush; marked handled here so it is not reported twice
    last.catch(() => {});
  };
  return {
    async add(doc: StoredPage) {
      pending.push(doc);
      if (pending.length < size) return;
      handOn();
      if (inFlight >= 2) await last;
    },
    async flush() {
      if (pending.length > 0) handOn();
      await last;
    },
    /** Documents taken so far (the written ones, those in flight and those waiting for a batch). */
    get written() {
      return queued + pending.length;
    },
  };
}

function isGzip(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

/** What the import service writes through, and its clock and logger. */
export interface ImportDeps {
  documents: PageStore;
  clock: Clock;
  logger: Logger;
}

/** The import service: writes through the documents repository, `batch` documents per transaction. */
export function createImportService(deps: ImportDeps): ImportService {
  const collectionFor = (input: string, options: ImportOptions): string => {
    const name = options.collection ?? defaultCollection(input);
    const bad = checkCollection(name);
    if (bad) throw new Error(`${input}: ${bad}; pass --collection NAME`);
    return name;
  };

  /** Reads the JSONL line by line (through gunzip when the file starts with the gzip magic). */
  const importJsonl = async (input: string, options: ImportOptions): Promise<ImportResult> => {
    const collection = collectionFor(input, options);
    const size = fs.statSync(input).size || 1;
    const source = fs.createReadStream(input);
    const gunzip = isGzip(input) ? createGunzip() : undefined;
    let streamError: Error | undefined;
    const lines = readline.createInterface({ input: gunzip ? source.pipe(gunzip) : source, crlfDelay: Infinity });
    for (const s of [source, gunzip]) {
      s?.on('error', (err: Error) => {
        streamError ??= err;
        source.destroy();
        lines.close();
      });
    }
    const out = batcher(deps.documents, deps.clock, options.batch);
    const result: ImportResult = { input, format: 'jsonl', collection, imported: 0, skipped: 0, errors: 0 };
    const progress = () =>
      options.onProgress?.({ ...result, imported: out.written, fraction: Math.min(1, source.bytesRead / size) });
    let line = 0;
    for await (const raw of lines) {
      if (options.signal?.aborted) break;
      line++;
      const text = line === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (text.trim() === '') continue;
      const doc = parseLine(text, collection, deps.clock.now().toISOString());
      if (doc instanceof Error) {
        result.errors++;
        options.onIssue({ input, line, message: doc.message });
      } else await out.add(doc);
      if (line % 1000 === 0) progress();
    }
    if (options.signal?.aborted) source.destroy(); // the lines stopped; the file is read no further
    await out.flush();
    result.imported = out.written;
    options.signal?.throwIfAborted();
    if (streamError) {
      result.errors++;
      options.onIssue({ input, line: line + 1, message: `cannot read further: ${streamError.message}` });
    }
    progress();
    return result;
  };

  const importFolder = async (input: string, options: ImportOptions): Promise<ImportResult> => {
    const collection = collectionFor(input, options);
    const files = await listFiles(input);
    const out = batcher(deps.documents, deps.clock, options.batch);
    const result: ImportResult = { input, format: 'folder', collection, imported: 0, skipped: 0, errors: 0 };
    for (const [i, file] of files.entries()) {
      if (options.signal?.aborted) break;
      if (!kindOfFile(file)) {
        result.skipped++;
        options.onIssue({ input, file, message: skipReason(file), skipped: true });
      } else {
        try {
          await out.add(await fileToDocument(input, file, collection));
        } catch (err) {
          result.errors++;
          options.onIssue({ input, file, message: err instanceof Error ? err.message : String(err) });
        }
      }
      options.onProgress?.({ ...result, imported: out.written, fraction: (i + 1) / files.length });
    }
    await out.flush();
    result.imported = out.written;
    options.signal?.throwIfAborted();
    deps.logger.debug(result, 'folder imported');
    return result;
  };

  return {
    async importPath(input, options) {
      const stat = fs.statSync(input);
      return stat.isDirectory() ? importFolder(input, options) : importJsonl(input, options);
    },
  };
}

function parseLine(text: string, collection: string, now: string): DocumentRecord | Error {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return new Error(`invalid JSON: ${(err as Error).message}`);
  }
  return recordToDocument(value, collection, now);
}
