/**
 * The one write path of documents, in its order: (1) the store, (2) the search index, (3) the code
 * examples of each page, in one SQLite transaction on this machine, so a page stored is searchable and
 * its examples are in /context at once; (4) on a replica of a PostgreSQL deployment, the shared store and
 * its log in front of that copy (core/replica/replica.ts: a write goes to the log, and the follower
 * applies it through steps 1-3 here). Every service that writes or reads pages is given `documents`.
 *
 * The index and the code examples are given as stages (the search index, core/code/index/doc-examples.ts),
 * so this module stays below the areas that own them.
 */
import { writeTransaction, type Db } from '../../store/sqlite/database.js';
import type { IndexedDocuments, PageDocuments, PageStore, StoredPage } from './documents.types.js';
import type { SqliteDocumentsRepo, DocumentRecord } from '../../store/contracts/documents.js';

/** Step 2: the search index as a write feeds it (core/search/search-index.ts). */
export interface IndexStage {
  /** Off the writing transaction: analyzes a batch about to be indexed (an import's or a crawl's). */
  prepare(docs: DocumentRecord[]): Promise<void>;
  /** In the write's transaction. */
  index(docs: DocumentRecord[]): unknown;
  /** After the commit: background work the write left (segment merges). */
  settle(): void;
}

/** Step 3: the code examples of stored pages as a write feeds them (core/code/index/doc-examples.ts). */
export interface ExamplesStage {
  /** In the write's transaction: each page's examples replace the ones it had. */
  replace(pages: StoredPage[], now: string): void;
  /** After the commit. */
  settle(): void;
}

/** What the write path is built from. */
export interface WritePathDeps<R extends { documents: PageStore }> {
  /** This machine's SQLite database (the whole store, or a replica's derived copy). */
  db: Db;
  /** Step 1: the documents store on this machine (store/sqlite/documents.ts). */
  stored: SqliteDocumentsRepo;
  /** Step 2. */
  index: IndexStage;
  /** Step 3 (none: pages' examples are not kept). */
  examples?: ExamplesStage;
  /** Step 4, on a replica: puts the shared store and its log in front of `local` (core/replica/replica.ts). */
  replicate?: (local: PageDocuments) => R;
}

export interface WritePath<R> {
  /** Where every service writes pages and reads them back (on a replica: through the shared store). */
  documents: PageStore;
  /** Steps 1-3 on this machine, in one transaction: what a replica's follower applies the shared log to. */
  local: PageDocuments;
  /** This machine's stored documents, read only: where readers of a local index hit read its text. */
  indexed: IndexedDocuments;
  /** What `replicate` made (its lifecycle: following, heartbeat), when there is one. */
  replica: R | undefined;
}

/** The write path: `documents` is the replica's when there is one, else this machine's. */
export function createWritePath<R extends { documents: PageStore }>(deps: WritePathDeps<R>): WritePath<R> {
  const local = localWrites(deps.db, deps.stored, deps.index, deps.examples);
  const replica = deps.replicate?.(local);
  return { documents: replica?.documents ?? local, local, indexed: deps.stored, replica };
}

/**
 * Steps 1-3: each write stores the documents, indexes them and replaces their pages' code examples in
 * one SQLite transaction (joining the caller's when there is one; then the caller settles after its
 * commit). A page's Markdown feeds its examples only; the store and the index take the page without it.
 */
export function localWrites(
  db: Db,
  stored: SqliteDocumentsRepo,
  index: IndexStage,
  examples?: ExamplesStage,
): PageDocuments {
  const withoutMarkdown = (pages: StoredPage[]): DocumentRecord[] =>
    pages.map(({ markdown: _markdown, ...doc }) => doc);
  const write = writeTransaction(db, (pages: StoredPage[], now: string) => {
    const docs = withoutMarkdown(pages);
    stored.writeNow(docs, now);
    index.index(docs);
    examples?.replace(pages, now);
  });
  const writeNow = (pages: StoredPage[], now: string) => {
    write(pages, now);
    if (db.inTransaction) return;
    index.settle();
    examples?.settle();
  };
  const prepare = (pages: StoredPage[]) => index.prepare(withoutMarkdown(pages));
  return {
    ...stored,
    writeNow,
    prepare,
    // what a caller writing in its own transaction (a replica's follower) runs after its commit
    settle: () => index.settle(),
    upsert: async (doc, now) => writeNow([doc], now),
    async upsertMany(docs, now) {
      await prepare(docs);
      writeNow(docs, now);
    },
  };
}
