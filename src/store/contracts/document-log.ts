/**
 * The contract of the document log: every document's latest write, in an order replicas can follow
 * without missing one (PostgreSQL: pg/document-log.ts).
 */
import type { StoredDocument } from './documents.js';
import type { LogPosition } from './change-log.js';

/** A document as the log gives it: with a fetched page's Markdown where it has code fences. */
export type LoggedDocument = StoredDocument & { markdown?: string };

export interface DocumentLog {
  /** Up to `limit` documents written after `after` (from the start when null), in log order, with where they end. */
  changesSince(after: LogPosition | null, limit: number): Promise<{ docs: LoggedDocument[]; next: LogPosition | null }>;
  /** Resolves when a writer commits documents, after `timeoutMs`, or when `signal` aborts (whichever is first). */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** Ends the listening connection. */
  close(): Promise<void>;
}
