/**
 * What a replica needs of the shared store of a PostgreSQL deployment, as ports: the core names these
 * interfaces and the composition root passes the PostgreSQL implementation (src/store/pg/stores.ts,
 * `SharedStore`), so no core module imports `src/store/pg/`. Positions in the logs, the logs as a
 * follower reads them, the documents as a replica writes them, and the replicas' heartbeats.
 */
import type { DocumentsRepo, StoredPage, StoredDocument } from '../../store/contracts/documents.js';
import type { CodeChunk, CodeFileState, CodeFilesRepo, CodeSource } from '../../store/contracts/code-files.js';
import type { StatusRepo } from '../../store/contracts/status.js';

/** A place in a log: after the write of transaction `xid` (an xid8 as decimal text), number `seq`. */
export interface LogPosition {
  xid: string;
  seq: number;
}

/** Whether position `a` is at or after `b` in the log. */
export function atOrAfter(a: LogPosition | null, b: LogPosition): boolean {
  if (!a) return false;
  const [x, y] = [BigInt(a.xid), BigInt(b.xid)];
  return x > y || (x === y && a.seq >= b.seq);
}

/** A document as the log gives it: with a fetched page's Markdown where it has code fences. */
export type LoggedDocument = StoredDocument & { markdown?: string };

/** The documents' writes in order (store/pg/document-log.ts), as a follower reads them. */
export interface DocumentLog {
  /** Up to `limit` documents written after `after` (from the start when null), in log order, with where they end. */
  changesSince(after: LogPosition | null, limit: number): Promise<{ docs: LoggedDocument[]; next: LogPosition | null }>;
  /** Resolves when a writer commits documents, after `timeoutMs`, or when `signal` aborts (whichever is first). */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<void>;
}

/** A code file as the log gives it: its state, when its chunks were written, and the chunks. */
export interface LoggedCodeFile {
  state: CodeFileState;
  /** The `indexedAt` its chunks were written with (the time of their index entries). */
  indexedAt: number;
  chunks: CodeChunk[];
}

/** One change of the code log: a source recorded, a file written (`file`), or a file removed (`file` null). */
export type CodeChange =
  { kind: 'source'; source: CodeSource } | { kind: 'file'; source: string; path: string; file: LoggedCodeFile | null };

/** The code index's changes in order (store/pg/code-log.ts), as a follower reads them. */
export interface CodeLog {
  /** Up to `limit` changes after `after` (from the start when null), in log order, with where they end. */
  changesSince(after: LogPosition | null, limit: number): Promise<{ changes: CodeChange[]; next: LogPosition | null }>;
  /** Resolves when a writer commits code, after `timeoutMs`, or when `signal` aborts (whichever is first). */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<void>;
}

/** The shared documents, whose writes also say where they are in the document log. */
export interface SharedDocuments extends DocumentsRepo {
  /** Upserts a batch atomically, like `upsertMany`; the log position of its last write (null for none). */
  write(docs: StoredPage[], now: string): Promise<LogPosition | null>;
}

/** What a following replica says of itself at each beat (listed by the status report). */
export interface ReplicaBeat {
  id: string;
  host: string;
  pid: number;
  version: string;
  startedAt: Date;
  /** Its place in the document log (null before the first document). */
  position: LogPosition | null;
  /** When it last read the log to its end (null: not yet). */
  caughtUpAt: Date | null;
}

/** What the shared store gives a replica. */
export interface SharedParts {
  documents: SharedDocuments;
  documentLog: DocumentLog;
  codeFiles: CodeFilesRepo;
  codeLog: CodeLog;
  replicas: { beat(b: ReplicaBeat): Promise<void> };
  /** The status report's store: the shared store's counts and facts beside `local` (this machine's copy). */
  status(local: StatusRepo): StatusRepo;
}
