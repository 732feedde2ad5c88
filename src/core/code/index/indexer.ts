/**
 * Indexes a code tree into the code index: walk it (ignore files, no vendored, generated, minified,
 * binary or lock files), compare with what was indexed before (size and mtime, then the content hash),
 * and chunk, index and record only the files added or changed; files gone are forgotten. Batches of
 * whole files (about `BATCH_CHUNKS` chunks, `write-batches.ts`) are written in one transaction each, so
 * an interrupted run leaves whole files only.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CodeFilesRepo, CodeSourceStats, IndexedFile } from '../../../store/contracts/code-files.js';
import type { Clock } from '../../context.js';
import { detectChanges, type Changes } from '../walk/changes.js';
import { chunkFile } from '../chunk/chunk.js';
import { createCodeAnalysisPool } from './code-analysis.js';
import type { ChunkRecord } from './code-index.js';
import { importCodeFile, type CodeImportOptions, type CodeImportResult } from './import-code.js';
import { walkCodeTree, type SkipReason, type SourceFile } from '../walk/walk.js';
import { writeInBatches } from './write-batches.js';

/** A folder to index, and how its locations are named. */
export interface IndexTarget {
  /** The folder to index. */
  root: string;
  /** The source name in locations (`name/path:lines`); default: the folder's name. */
  name?: string;
  /** `folder`, `repository` (a clone), `packages`. */
  kind?: string;
  /** Where it came from, when not the folder itself (a repository URL). */
  location?: string;
  /** Also the packages of `node_modules` (READMEs, docs, type declarations, sources). */
  packages?: boolean;
}

/** What an indexing run found, wrote and skipped. */
export interface IndexReport {
  source: string;
  files: number;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  chunks: number;
  skipped: Partial<Record<SkipReason, number>>;
  seconds: number;
}

/** What the indexer writes through: the code-files repository (which writes the chunks too) and a clock. */
export interface IndexerDeps {
  files: CodeFilesRepo;
  clock: Clock;
}

/** How an indexing run reports and stops. */
export interface IndexOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** `trawl index` and `trawl import --code`: code into the code index, and what it holds. */
export interface CodeIndexer {
  /** Indexes a folder (a clone, packages), re-indexing only what changed. */
  indexTree(target: IndexTarget, options?: IndexOptions): Promise<IndexReport>;
  /** Imports a JSONL file of code records. */
  importFile(input: string, options: CodeImportOptions): Promise<CodeImportResult>;
  /** Every indexed source with its file and chunk counts. */
  sources(): Promise<CodeSourceStats[]>;
}

/** The code indexer over the code-files repository. */
export function createCodeIndexer(deps: IndexerDeps): CodeIndexer {
  return {
    indexTree: (target, options) => indexTree(deps, target, options),
    importFile: (input, options) => importCodeFile(deps, input, options),
    sources: () => deps.files.sources(),
  };
}

/** Files read at once. */
const READ_AHEAD = 64;

/** Indexes `target`; `onProgress` hears how many files of the work are done. */
export async function indexTree(
  deps: IndexerDeps,
  target: IndexTarget,
  options: IndexOptions = {},
): Promise<IndexReport> {
  const started = performance.now();
  const root = path.resolve(target.root);
  const source = target.name ?? path.basename(root);
  const skipped: IndexReport['skipped'] = {};
  const walk = walkCodeTree(root, {
    packages: target.packages,
    signal: options.signal,
    onSkip: (_p, reason) => void (skipped[reason] = (skipped[reason] ?? 0) + 1),
  });
  const changes = await detectChanges(await deps.files.files(source), walk);
  const now = deps.clock.now();
  const chunks = await writeChanged(deps, source, changes, now.getTime(), options);
  // a touched file (same bytes, new mtime) keeps its chunks; its new mtime spares the next run a read
  const touched = changes.unchanged.map((file) => ({ path: file.path, state: changes.state.get(file.path)! }));
  await deps.files.finishSource(
    { name: source, kind: target.kind ?? 'folder', location: target.location ?? root, indexedAt: now.toISOString() },
    { removed: changes.removed, touched },
    now.getTime(),
  );
  return {
    source,
    files: changes.state.size,
    added: changes.added.length,
    changed: changes.changed.length,
    removed: changes.removed.length,
    unchanged: changes.unchanged.length,
    chunks,
    skipped,
    seconds: Math.round((performance.now() - started) / 10) / 100,
  };
}

/**
 * Chunks and writes the added and changed files, about `BATCH_CHUNKS` chunks per write, each batch
 * analyzed in threads while the one before is written; returns the chunks written.
 */
async function writeChanged(
  deps: IndexerDeps,
  source: string,
  changes: Changes,
  at: number,
  options: IndexOptions,
): Promise<number> {
  const work = [...changes.added, ...changes.changed];
  let chunks = 0;
  let done = 0;
  async function* files(): AsyncGenerator<IndexedFile & { chunks: ChunkRecord[] }> {
    for (let i = 0; i < work.length; i += READ_AHEAD) {
      options.signal?.throwIfAborted();
      const read = await Promise.all(work.slice(i, i + READ_AHEAD).map((f) => readChunks(source, f)));
      for (const { file, records } of read) {
        const state = changes.state.get(file.path)!;
        yield { path: file.path, chunks: records, hash: state.hash, state };
      }
    }
  }
  // the pool's thread starts only once a run is long (`INLINE_BATCHES`)
  const pool = work.length > READ_AHEAD ? createCodeAnalysisPool() : null;
  try {
    await writeInBatches(
      files(),
      async (batch) => {
        await deps.files.storeFiles(source, batch, at);
        for (const f of batch) chunks += f.chunks.length;
        done += batch.length;
        options.onProgress?.(done, work.length);
      },
      pool,
    );
  } finally {
    await pool?.close();
  }
  return chunks;
}

async function readChunks(source: string, file: SourceFile) {
  const text = await fs.readFile(file.absolute, 'utf8');
  const records: ChunkRecord[] = chunkFile(file.path, text).map((c) => ({
    source,
    path: file.path,
    startLine: c.startLine,
    endLine: c.endLine,
    language: c.language,
    kind: c.kind,
    symbol: c.symbol,
    doc: c.doc,
    code: c.code,
  }));
  return { file, records };
}
