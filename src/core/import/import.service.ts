/**
 * Imports documents into the store: JSONL files (gzipped or not, streamed line by line in constant
 * memory) and folders of HTML/Markdown/text files. Bad records are skipped and reported; good ones are
 * written in batches, each batch in one transaction.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import type { Logger } from '../../lib/logger.js';
import type { PageStore, StoredPage } from '../documents/documents.types.js';
import type { Clock } from '../context.js';
import { fileToDocument, kindOfFile, listFiles, skipReason } from './folder.js';
import { forEachLine } from './lines.js';
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
 * Batches in flight at once: one being written, one being analyzed (in the search index's worker
 * threads), one being read. With two, reading the next batch waited for the last one's write, so the
 * analysis threads stood idle while the file was read (20,732 SciFact documents: ~1.1 of 2 cores busy).
 */
const IN_FLIGHT = 3;

/** A batch of records that could not be analyzed or written (its records and every later batch's are not imported). */
export class BatchNotWritten extends Error {
  constructor(records: number, cause: unknown) {
    super(`a batch of ${records} records was not written: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'BatchNotWritten';
  }
}

/**
 * Collects documents and writes them `size` at a time, each batch in one transaction. A full batch is
 * handed on at once: it is analyzed while earlier batches are written and the next one fills; at most
 * `IN_FLIGHT` batches are handed on and not yet written.
 *
 * Writes through `writeBatches` commit in the order they are made (core/documents/write-path.ts), so a
 * batch is handed to it as soon as the one before was handed on and this one is analyzed, not once the
 * one before committed: the document writer's thread then analyzes a batch while it writes the one
 * before (waiting for each commit left the analysis threads idle through every write: 20,732 SciFact
 * documents, 4.96 s → 4.27 s). A batch that fails stops the import: no batch is handed on after it,
 * and those already handed on (at most `IN_FLIGHT` − 1) are written whole or not at all, like every
 * batch. A replica writes to the shared store instead (`upsertMany`), one batch after the other.
 */
function batcher(documents: PageStore, clock: Clock, size: number) {
  let pending: StoredPage[] = [];
  let queued = 0;
  // the batches handed on and not yet written, oldest first
  const inFlight: Promise<void>[] = [];
  let last: Promise<void> = Promise.resolve();
  // the last batch handed to the writes (rejected: it never was, it or one before it failed)
  let handed: Promise<void> = Promise.resolve();
  let failed: BatchNotWritten | undefined;
  const handOn = () => {
    const batch = pending;
    pending = [];
    queued += batch.length;
    const { writeBatches } = documents;
    const analyzed = (writeBatches && documents.prepare?.(batch)) ?? Promise.resolve();
    // a replica writes one batch after the other; the writes of this machine take them in call order
    const before = writeBatches ? handed : last;
    const handing = (async () => {
      try {
        // a failure before this batch (an earlier one's analysis or write) is reported once, by whoever
        // awaits it: this batch is not handed on
        await Promise.all([before, analyzed]);
        if (failed) throw failed;
        const now = clock.now().toISOString();
        // in an object: the write is handed on here, and awaited by `last`
        return { written: writeBatches ? writeBatches([{ pages: batch, now }]) : documents.upsertMany(batch, now) };
      } catch (err) {
        throw err instanceof BatchNotWritten ? err : new BatchNotWritten(batch.length, err);
      }
    })();
    handed = handing.then(() => undefined);
    handed.catch(() => {}); // the failure is reported by the batch itself
    last = handing.then(({ written }) =>
      written.catch((err: unknown) => {
        failed ??= new BatchNotWritten(batch.length, err);
        throw failed;
      }),
    );
    // a failure surfaces at the next add or the flush; marked handled here so it is not reported twice
    last.catch(() => {});
    inFlight.push(last);
  };
  return {
    /** Takes a document; returns a promise (to wait for) only when `IN_FLIGHT` batches are handed on. */
    add(doc: StoredPage): Promise<void> | undefined {
      pending.push(doc);
      if (pending.length < size) return undefined;
      handOn();
      return inFlight.length >= IN_FLIGHT ? inFlight.shift() : undefined;
    },
    async flush() {
      if (pending.length > 0) handOn();
      // every batch not yet awaited: one that failed before a later one was written is reported too
      await Promise.all(inFlight.splice(0));
    },
    /** Documents taken so far (the written ones, those in flight and those waiting for a batch). */
    get written() {
      return queued + pending.length;
    },
  };
}

/** Bytes read from a file at a time (the stream's default, 64 KiB, costs more rounds per file). */
const READ_CHUNK = 1 << 20;

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
    const source = fs.createReadStream(input, { highWaterMark: READ_CHUNK });
    const gunzip = isGzip(input) ? createGunzip() : undefined;
    // pipe() does not pass the file's error on: the gunzip stream fails with it, so the lines end
    if (gunzip) source.on('error', (err) => gunzip.destroy(err)).pipe(gunzip);
    const out = batcher(deps.documents, deps.clock, options.batch);
    const result: ImportResult = { input, format: 'jsonl', collection, imported: 0, skipped: 0, errors: 0 };
    const progress = () =>
      options.onProgress?.({ ...result, imported: out.written, fraction: Math.min(1, source.bytesRead / size) });
    const take = (raw: string, line: number) => {
      const text = line === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (text.trim() === '') return undefined;
      const doc = parseLine(text, collection, deps.clock.now().toISOString());
      if (!(doc instanceof Error)) return out.add(doc);
      result.errors++;
      options.onIssue({ input, line, message: doc.message });
      return undefined;
    };
    const visit = (raw: string, line: number) => {
      const wait = take(raw, line);
      if (line % 1000 === 0) progress();
      return wait;
    };
    const read = await forEachLine(gunzip ?? source, options.signal, visit);
    if (options.signal?.aborted) source.destroy(); // the lines stopped; the file is read no further
    await out.flush();
    result.imported = out.written;
    options.signal?.throwIfAborted();
    if (read.error) {
      result.errors++;
      options.onIssue({ input, line: read.lines + 1, message: `cannot read further: ${read.error.message}` });
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
