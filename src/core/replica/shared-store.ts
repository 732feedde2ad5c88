/**
 * What a replica needs of the shared store of a PostgreSQL deployment, as ports: the core names these
 * interfaces and the composition root passes the PostgreSQL implementation (src/store/pg/stores.ts,
 * `SharedStore`), so no core module imports `src/store/pg/`. Positions in the logs, the logs as a
 * follower reads them, the documents as a replica writes them, and the replicas' heartbeats.
 */
import type { DocumentsRepo, StoredPage, StoredDocument } from '../../store/contracts/documents.js';
import type { CodeFilesRepo } from '../../store/contracts/code-files.js';
import type { LogPosition } from '../../store/contracts/change-log.js';
import type { CodeChange } from '../../store/contracts/code-log.js';
import type { ReplicaBeat } from '../../store/contracts/replicas.js';
import type { StatusRepo } from '../../store/contracts/status.js';

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

/** What the shared store gives a replica. */
export interface SharedParts {
  documents: SharedDocuments;
  documentLog: DocumentLog;
  codeFiles: CodeFilesRepo;
  codeLog: CodeLog;
  replicas: { beat(b: ReplicaBeat): Promise<number> };
  /** The status report's store: the shared store's counts and facts beside `local` (this machine's copy). */
  status(local: StatusRepo): StatusRepo;
}
