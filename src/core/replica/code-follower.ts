/**
 * A replica's copy of the shared code index (issue 24): follows the PostgreSQL code log (a file's chunks
 * written, a file removed, a source recorded) into this process's SQLite code files and code index,
 * each batch in one transaction with its position (`replica_state` row `code-log`). Code searches then
 * run on the local index, with the ranking of an index built directly.
 */
import type { Db } from '../../store/sqlite/database.js';
import type { CodeLog } from './shared-store.js';
import { createLogFollower, type LogFollower } from './log-follower.js';
import type { IndexedFile, SqliteCodeFilesRepo } from '../../store/contracts/code-files.js';
import type { CodeChange } from '../../store/contracts/code-log.js';

/** The row of `replica_state` holding the position in the code log. */
const POSITION = 'code-log';

/** Follows the code log: `catchUp()`, `position()`, `run({pollMs, signal, onError})` (replica/log-follower.ts). */
export type CodeFollower = LogFollower;

/** Changes applied together: a source recorded, files of one source written at one time, or removed. */
type Run =
  | { kind: 'source'; change: Extract<CodeChange, { kind: 'source' }> }
  | { kind: 'write'; source: string; indexedAt: number; files: IndexedFile[] }
  | { kind: 'remove'; source: string; paths: string[] };

/** Consecutive changes of one kind and source (and time, for writes) as one run: one index write each. */
function runsOf(changes: CodeChange[]): Run[] {
  const runs: Run[] = [];
  for (const change of changes) {
    const last = runs.at(-1);
    if (change.kind === 'source') {
      runs.push({ kind: 'source', change });
    } else if (change.file === null) {
      if (last?.kind === 'remove' && last.source === change.source) last.paths.push(change.path);
      else runs.push({ kind: 'remove', source: change.source, paths: [change.path] });
    } else {
      const { state, indexedAt, chunks } = change.file;
      const file = { path: change.path, hash: state.hash, chunks, state };
      if (last?.kind === 'write' && last.source === change.source && last.indexedAt === indexedAt)
        last.files.push(file);
      else runs.push({ kind: 'write', source: change.source, indexedAt, files: [file] });
    }
  }
  return runs;
}

/** Applies a batch of the log to the local code files and index, in the caller's transaction. */
function applyNow(local: SqliteCodeFilesRepo, changes: CodeChange[]): void {
  for (const run of runsOf(changes)) {
    if (run.kind === 'source') local.putSourceNow(run.change.source);
    else if (run.kind === 'write') local.storeFilesNow(run.source, run.files, run.indexedAt);
    else local.removeFilesNow(run.source, run.paths);
  }
}

/**
 * Follows `log` into `local` (the SQLite code files repository over this process's code index),
 * reading `batch` changes (files) at a time.
 */
export function createCodeFollower(
  db: Db,
  log: CodeLog,
  local: SqliteCodeFilesRepo,
  options: { batch?: number } = {},
): CodeFollower {
  return createLogFollower(
    db,
    POSITION,
    { read: (after, limit) => log.changesSince(after, limit), changed: (ms, signal) => log.changed(ms, signal) },
    { applyNow: (changes) => applyNow(local, changes), settle: () => local.settle() },
    { batch: options.batch ?? 200 },
  );
}
