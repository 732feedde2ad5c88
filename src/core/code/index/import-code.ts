/**
 * `trawl import --code FILE.jsonl[.gz]`: code records `{_id, code, language?, path?, url?}` into the
 * code index, chunked like files, `batch` records per transaction. A record is located by its `url`,
 * else its `path`, else `import://<collection>/<_id>`; every bad line is reported with its number.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import readline from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { CodeFilesRepo } from '../../../store/contracts/code-files.js';
import type { Clock } from '../../context.js';
import { importUrl } from '../../import/records.js';
import { chunkFile } from '../chunk/chunk.js';
import type { FileChunks } from './code-index.js';

/** What a code import wrote: records, chunks and rejected lines. */
export interface CodeImportResult {
  collection: string;
  imported: number;
  chunks: number;
  errors: number;
}

/** A code record read: where it is located, and its chunks. */
export interface CodeRecord {
  path: string;
  file: FileChunks;
}

/** What a code import writes through: the code-files repository (which writes the chunks too). */
export interface CodeImportDeps {
  files: CodeFilesRepo;
  clock: Clock;
}

/** The collection to import into, records per transaction, and who hears each rejected line. */
export interface CodeImportOptions {
  collection: string;
  batch: number;
  onIssue?: (line: number, message: string) => void;
}

/** One record → its location and chunks, or why it cannot be imported. */
export function codeRecord(value: unknown, collection: string): CodeRecord | Error {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return new Error('not a JSON object');
  const r = value as Record<string, unknown>;
  const id = typeof r._id === 'number' ? String(r._id) : r._id;
  if (typeof id !== 'string' || !id) return new Error('_id must be a non-empty string or number');
  if (typeof r.code !== 'string' || !r.code.trim()) return new Error('code must be a non-empty string');
  for (const key of ['language', 'path', 'url'] as const) {
    if (r[key] !== undefined && typeof r[key] !== 'string') return new Error(`${key} must be a string`);
  }
  const path = (r.url as string | undefined) || (r.path as string | undefined) || importUrl(collection, id);
  const language = r.language as string | undefined;
  const chunks = chunkFile(path, r.code, language).map((c) => ({ ...c, source: collection, path }));
  const hash = createHash('sha256').update(r.code).digest('hex');
  return { path, file: { path, chunks, hash } };
}

/** One JSONL line as a code record, or why it is not one. */
function parseCodeLine(raw: string, collection: string): CodeRecord | Error {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return new Error('not valid JSON');
  }
  return codeRecord(parsed, collection);
}

/** Imports one JSONL file (gzipped or not); `onIssue` hears each rejected line. */
export async function importCodeFile(
  deps: CodeImportDeps,
  input: string,
  options: CodeImportOptions,
): Promise<CodeImportResult> {
  const result: CodeImportResult = { collection: options.collection, imported: 0, chunks: 0, errors: 0 };
  const source = fs.createReadStream(input);
  const gzipped = input.endsWith('.gz');
  const stream = gzipped ? source.pipe(createGunzip()) : source;
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let pending: FileChunks[] = [];
  const now = () => deps.clock.now();
  const flush = async () => {
    if (pending.length === 0) return;
    const batch = pending.map((f) => ({ ...f, state: { size: 0, mtimeMs: 0, hash: f.hash } }));
    pending = [];
    await deps.files.storeFiles(options.collection, batch, now().getTime());
  };
  let n = 0;
  for await (const raw of lines) {
    n++;
    if (!raw.trim()) continue;
    const record = parseCodeLine(raw, options.collection);
    if (record instanceof Error) {
      result.errors++;
      options.onIssue?.(n, record.message);
      continue;
    }
    pending.push(record.file);
    result.imported++;
    result.chunks += record.file.chunks.length;
    if (pending.length >= options.batch) await flush();
  }
  await flush();
  await deps.files.putSource({
    name: options.collection,
    kind: 'import',
    location: input,
    indexedAt: now().toISOString(),
  });
  return result;
}
