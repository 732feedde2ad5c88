/**
 * What changed in a code tree since it was last indexed. Size and mtime settle most files without
 * reading them; a file whose size or mtime moved is hashed, so a touch (same bytes) is told from an edit.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { SourceFile } from './walk.js';

/** What the caller stores per file between two indexing runs. */
export interface FileState {
  size: number;
  mtimeMs: number;
  /** sha256 of the bytes, hex. */
  hash: string;
}

/** The outcome of comparing stat data alone; `suspect` files need their bytes hashed to be settled. */
export interface ChangePlan {
  added: SourceFile[];
  unchanged: SourceFile[];
  suspect: SourceFile[];
  removed: string[];
}

/** Files sorted by what happened to them, and the state to store for the next run. */
export interface Changes {
  added: SourceFile[];
  changed: SourceFile[];
  unchanged: SourceFile[];
  removed: string[];
  /** Every current file with its size, mtime and hash; a touched file gets its new mtime here. */
  state: Map<string, FileState>;
}

/** Pure: sorts the current files against the stored state by size and mtime alone, reading nothing. */
export function planChanges(previous: ReadonlyMap<string, FileState>, current: Iterable<SourceFile>): ChangePlan {
  const plan: ChangePlan = { added: [], unchanged: [], suspect: [], removed: [] };
  const present = new Set<string>();
  for (const file of current) {
    present.add(file.path);
    const before = previous.get(file.path);
    if (!before) plan.added.push(file);
    else if (before.size === file.size && before.mtimeMs === file.mtimeMs) plan.unchanged.push(file);
    else plan.suspect.push(file);
  }
  for (const p of previous.keys()) if (!present.has(p)) plan.removed.push(p);
  return plan;
}

/**
 * Pure: finishes a plan given the hashes of its added and suspect files. A file missing from `hashes`
 * could not be read (it vanished or lost its permissions since the walk), so it counts as absent:
 * removed when it was known before, left out when it is new.
 */
export function settleChanges(
  previous: ReadonlyMap<string, FileState>,
  plan: ChangePlan,
  hashes: ReadonlyMap<string, string>,
): Changes {
  const out: Changes = { added: [], changed: [], unchanged: [], removed: [...plan.removed], state: new Map() };
  const keep = (file: SourceFile, hash: string) =>
    out.state.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, hash });
  for (const file of plan.unchanged) {
    out.unchanged.push(file);
    keep(file, previous.get(file.path)!.hash);
  }
  for (const file of plan.added) {
    const hash = hashes.get(file.path);
    if (hash === undefined) continue;
    out.added.push(file);
    keep(file, hash);
  }
  for (const file of plan.suspect) {
    const hash = hashes.get(file.path);
    if (hash === undefined) out.removed.push(file.path);
    else {
      (hash === previous.get(file.path)!.hash ? out.unchanged : out.changed).push(file);
      keep(file, hash);
    }
  }
  return out;
}

/** sha256 (hex) of a file's bytes, streamed so a large file is not held in memory. */
export async function hashFile(absolute: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(absolute)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** How change detection reads files. */
export interface DetectOptions {
  /** Files hashed at once (default 8). */
  concurrency?: number;
  /** How a file is hashed; `hashFile` by default. */
  hash?: (file: SourceFile) => Promise<string>;
}

/**
 * Compares a fresh walk with the stored state, reading only files that are new or whose size or mtime
 * moved. Never throws for one file: an unreadable file counts as absent (see `settleChanges`).
 */
export async function detectChanges(
  previous: ReadonlyMap<string, FileState>,
  files: Iterable<SourceFile> | AsyncIterable<SourceFile>,
  options: DetectOptions = {},
): Promise<Changes> {
  const current: SourceFile[] = [];
  for await (const file of files) current.push(file);
  const plan = planChanges(previous, current);
  const hash = options.hash ?? ((file: SourceFile) => hashFile(file.absolute));
  const hashes = await hashAll([...plan.added, ...plan.suspect], hash, options.concurrency ?? 8);
  return settleChanges(previous, plan, hashes);
}

async function hashAll(
  files: readonly SourceFile[],
  hash: (file: SourceFile) => Promise<string>,
  concurrency: number,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const file = files[next++]!;
      try {
        out.set(file.path, await hash(file));
      } catch {
        // unreadable now: settleChanges counts it as absent
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), files.length) }, worker));
  return out;
}
