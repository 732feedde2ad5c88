/**
 * `trawl import FILE…`: JSONL files (optionally gzipped) and folders of HTML/Markdown/text files into
 * the document store. Every bad record is reported with its line; the exit code is 1 when there was one.
 */
import fs from 'node:fs';
import os from 'node:os';
import { openDoor } from '../compose/open.js';
import type { Config } from '../config/config.js';
import { BatchNotWritten, defaultCollection, type ImportResult } from '../core/import/import.service.js';
import { checkCollection } from '../core/import/records.js';
import { createProgress, parseProgressMode } from './progress.js';

/** The flags of `trawl import`, as commander parses them. */
export interface ImportFlags {
  /** Records are code (`{_id, code, language?, path?, url?}`) for the code index, not documents. */
  code?: boolean;
  collection?: string;
  batch?: string;
  json?: boolean;
  progress?: string;
}

/**
 * Records per transaction unless `--batch` says otherwise. Each batch is a segment of the search index,
 * and 4,096 documents is the smallest segment of the next size class of its merges (segment-merge.ts:
 * a class is a factor of 8): its documents skip a round of merges that 1,000 costs them. 20,732
 * SciFact documents on 2 cores, median of 5: 2,048 → 4.72 s, 4,096 → 4.38 s, 8,192 → 4.71 s (more memory
 * in flight); 1,000 → 4.77 s.
 */
export const DEFAULT_BATCH = 4096;
/** Code records per transaction (`--code`) unless `--batch` says otherwise. */
export const DEFAULT_CODE_BATCH = 1000;

/** Checks the inputs and flags before anything is written; returns a message for the first problem. */
function checkInput(inputs: string[], flags: ImportFlags): string | undefined {
  if (inputs.length === 0) return 'give at least one JSONL file or folder to import';
  for (const input of inputs) if (!fs.existsSync(input)) return `${input}: no such file or folder`;
  if (flags.collection !== undefined) {
    const bad = checkCollection(flags.collection);
    if (bad) return `--collection: ${bad}`;
  }
  if (flags.batch !== undefined && (!/^\d+$/.test(flags.batch) || +flags.batch < 1 || +flags.batch > 100_000)) {
    return `--batch must be an integer from 1 to 100000 (got ${JSON.stringify(flags.batch)})`;
  }
  if (!parseProgressMode(flags.progress)) return '--progress must be auto, bar, lines or off';
  return undefined;
}

function summaryLine(results: ImportResult[], elapsedMs: number): string {
  const sum = (k: 'imported' | 'skipped' | 'errors') => results.reduce((n, r) => n + r[k], 0);
  const collections = [...new Set(results.map((r) => r.collection))].join(', ');
  return (
    `imported ${sum('imported')}, skipped ${sum('skipped')}, errors ${sum('errors')} ` +
    `from ${results.length} input(s) into ${collections} in ${(elapsedMs / 1000).toFixed(1)} s`
  );
}

/** Runs `trawl import`; exit code 0, 1 (some records or files rejected) or 2 (bad input). */
export async function runImport(config: Config, inputs: string[], flags: ImportFlags): Promise<void> {
  const problem = checkInput(inputs, flags);
  if (problem) {
    process.stderr.write(`trawl import: ${problem}\n`);
    process.exitCode = 2;
    return;
  }
  if (flags.code) return runCodeImport(config, inputs, flags);
  const started = performance.now();
  // no request to answer meanwhile: every core analyzes (the writes and merges share them)
  const app = await openDoor(config, { analysisThreads: os.availableParallelism(), follow: false });
  const progress = createProgress({
    label: 'import',
    unit: 'records',
    mode: parseProgressMode(flags.progress)!,
    everyItems: 10_000,
  });
  const results: ImportResult[] = [];
  let current = '';
  let stopped: BatchNotWritten | undefined;
  try {
    for (const input of inputs) {
      current = input;
      const done = results.reduce((n, r) => n + r.imported, 0);
      const failed = results.reduce((n, r) => n + r.errors, 0);
      const result = await app.operator.imports.importPath(input, {
        collection: flags.collection,
        batch: flags.batch ? Number(flags.batch) : DEFAULT_BATCH,
        onIssue: (i) =>
          progress.note(`${i.input}${i.line ? `:${i.line}` : ''}${i.file ? `: ${i.file}` : ''}: ${i.message}`),
        onProgress: (p) =>
          progress.update({
            done: done + p.imported,
            failed: failed + p.errors,
            handled: done + failed + p.imported + p.errors,
            fraction: (results.length + p.fraction) / inputs.length,
          }),
      });
      results.push(result);
    }
    // the batches' segments are merged before the command ends, so the index it leaves is compact; with
    // PostgreSQL, this machine's index is not written (each serving replica indexes what it follows)
    if (!app.config.databaseUrl) {
      progress.note('merging the search index…');
      await app.operator.searchIndex.merged();
    }
  } catch (err) {
    if (!(err instanceof BatchNotWritten)) throw err;
    stopped = err;
  } finally {
    progress.finish();
    await app.close();
  }
  if (stopped) {
    process.stderr.write(
      `trawl import: ${current}: ${stopped.message}\n` +
        'import: stopped there; the batches before it are imported. Once the cause is fixed, run the same ' +
        'command again to import the rest (records already imported are updated, not duplicated).\n',
    );
    process.exitCode = 1;
    return;
  }
  const elapsedMs = Math.round(performance.now() - started);
  process.stdout.write(
    flags.json ? `${JSON.stringify({ inputs: results, elapsedMs })}\n` : `${summaryLine(results, elapsedMs)}\n`,
  );
  const rejected = results.reduce((n, r) => n + r.errors, 0);
  if (rejected > 0) {
    process.stderr.write(
      `import: ${rejected} rejected (each is reported above with its reason); the rest was imported\n`,
    );
    process.exitCode = 1;
  }
}

/** `--code`: JSONL code records into the code index; the same summary and exit codes as a document import. */
async function runCodeImport(config: Config, inputs: string[], flags: ImportFlags): Promise<void> {
  const notFile = inputs.find((i) => !fs.statSync(i).isFile());
  if (notFile) {
    process.stderr.write(
      `trawl import: ${notFile}: --code reads JSONL files (.jsonl, .jsonl.gz), not folders; use trawl index for a folder\n`,
    );
    process.exitCode = 2;
    return;
  }
  const started = performance.now();
  const app = await openDoor(config, { follow: false });
  const results: ImportResult[] = [];
  try {
    for (const input of inputs) {
      const collection = flags.collection ?? defaultCollection(input);
      const onIssue = (line: number, message: string) => process.stderr.write(`${input}:${line}: ${message}\n`);
      const batch = flags.batch ? Number(flags.batch) : DEFAULT_CODE_BATCH;
      const r = await app.operator.indexer.importFile(input, { collection, batch, onIssue });
      results.push({ input, format: 'jsonl', collection, imported: r.imported, skipped: 0, errors: r.errors });
    }
  } finally {
    await app.close();
  }
  const elapsedMs = Math.round(performance.now() - started);
  process.stdout.write(
    flags.json ? `${JSON.stringify({ inputs: results, elapsedMs })}\n` : `${summaryLine(results, elapsedMs)}\n`,
  );
  if (results.some((r) => r.errors > 0)) process.exitCode = 1;
}
