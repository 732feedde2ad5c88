/**
 * The contract of the code log: each code file's and source's latest change, in the order replicas
 * follow to keep their SQLite code index a copy of the shared one (PostgreSQL: pg/code-log.ts).
 */
import type { CodeChunk, CodeFileState, CodeSource } from './code-files.js';
import type { LogPosition } from './change-log.js';

/** A file as the log gives it: its state, when its chunks were written, and the chunks. */
export interface LoggedCodeFile {
  state: CodeFileState;
  /** The `indexedAt` its chunks were written with (the time of their index entries). */
  indexedAt: number;
  chunks: CodeChunk[];
}

/** One change: a source recorded, a file written (`file`), or a file removed (`file` null). */
export type CodeChange =
  { kind: 'source'; source: CodeSource } | { kind: 'file'; source: string; path: string; file: LoggedCodeFile | null };

export interface CodeLog {
  /** Up to `limit` changes after `after` (from the start when null), in log order, with where they end. */
  changesSince(after: LogPosition | null, limit: number): Promise<{ changes: CodeChange[]; next: LogPosition | null }>;
  /** Resolves when a writer commits code, after `timeoutMs`, or when `signal` aborts (whichever is first). */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** Ends the listening connection. */
  close(): Promise<void>;
}
