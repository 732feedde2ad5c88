/**
 * The documents contract as the services see it: where pages are written and read back. The write path
 * (write-path.ts) builds the one implementation every service is given; the store's own repositories
 * (store/sqlite/documents.ts, store/pg/documents.ts) are the bottom of it.
 */
import type { DocumentsRepo, StoredPage } from '../../store/contracts/documents.js';

/** A document as it is written, with a fetched page's Markdown (for its code examples; not stored itself). */
export type { StoredPage };

/** A statement a write's transaction runs too (a replica follower's position in its log). */
export interface AlsoStatement {
  sql: string;
  params: unknown[];
}

/** Pages written with one time (`updated_at` of the changed ones). */
export interface WriteBatch {
  pages: StoredPage[];
  now: string;
}

/**
 * Where pages are written, as the pages and import services see it: a page or a batch at a time; a
 * store on this machine also takes a batch in two steps (analyzed in the analysis pool's threads, then
 * written in one transaction), which an import uses to overlap the two. A replica on PostgreSQL
 * (core/replica/replica-documents.ts) has neither.
 */
export type PageStore = DocumentsRepo & {
  upsert(doc: StoredPage, now: string): Promise<void>;
  upsertMany(docs: StoredPage[], now: string): Promise<void>;
} & Partial<Pick<PageDocuments, 'prepare' | 'writeBatches'>>;

/** The documents on this machine, whose writes take a page's Markdown too (for its code examples). */
export interface PageDocuments extends DocumentsRepo {
  upsert(doc: StoredPage, now: string): Promise<void>;
  upsertMany(docs: StoredPage[], now: string): Promise<void>;
  /** Analyzes pages about to be written off the writing transaction (the analysis pool's threads). */
  prepare(docs: StoredPage[]): Promise<void>;
  /**
   * Writes batches (and `also`) in one transaction; resolves once it committed (the pages searchable).
   * Throws what the transaction threw, or that the writer thread stopped (nothing half-written).
   */
  writeBatches(batches: WriteBatch[], also?: AlsoStatement[]): Promise<void>;
}

/** What readers of this machine's indexes read a hit's document from: the stored copy, never written through. */
export type IndexedDocuments = Pick<DocumentsRepo, 'get' | 'heads' | 'count' | 'all'>;
