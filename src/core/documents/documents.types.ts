/**
 * The documents contract as the services see it: where pages are written and read back. The write path
 * (write-path.ts) builds the one implementation every service is given; the store's own repositories
 * (store/sqlite/documents.ts, store/pg/documents.ts) are the bottom of it.
 */
import type { DocumentsRepo, SqliteDocumentsRepo, StoredPage } from '../../store/contracts/documents.js';

/** A document as it is written, with a fetched page's Markdown (for its code examples; not stored itself). */
export type { StoredPage };

/**
 * Where pages are written, as the pages and import services see it: a page or a batch at a time; a
 * store on this machine also takes a batch in two steps (analyzed off the writing thread, then written
 * in one synchronous transaction), which an import uses to overlap the two. A replica on PostgreSQL
 * (core/replica/replica-documents.ts) has no synchronous write.
 */
export type PageStore = DocumentsRepo & {
  upsert(doc: StoredPage, now: string): Promise<void>;
  upsertMany(docs: StoredPage[], now: string): Promise<void>;
} & Partial<Pick<PageDocuments, 'prepare' | 'writeNow'>>;

/** The documents on this machine whose writes take a page's Markdown too (for its code examples). */
export interface PageDocuments extends SqliteDocumentsRepo {
  upsert(doc: StoredPage, now: string): Promise<void>;
  upsertMany(docs: StoredPage[], now: string): Promise<void>;
  writeNow(docs: StoredPage[], now: string): void;
}

/** What readers of this machine's indexes read a hit's document from: the stored copy, never written through. */
export type IndexedDocuments = Pick<DocumentsRepo, 'get' | 'heads' | 'count' | 'all'>;
