/**
 * The one write path of documents, in its order: (1) the store, (2) the search index, (3) the code
 * examples of each page, in one SQLite transaction on this machine, so a page stored is searchable and
 * its examples are in /context at once; (4) on a replica of a PostgreSQL deployment, the shared store and
 * its log in front of that copy (core/replica/replica.ts: a write goes to the log, and the follower
 * applies it through steps 1-3 here). Every service that writes or reads pages is given `documents`.
 *
 * Steps 1-3 are one rule (`writeSteps`), run in one of two places: on a writer thread with its own
 * connection (a `DocumentWriter`: the serving process's, so a transaction never holds the thread that
 * answers), or inline on the caller's connection (no writer: an in-memory database). Either way a write
 * resolves only after its transaction committed, and writes commit in the order they were made.
 *
 * The index and the code examples are given as stages (the search index, core/code/index/doc-examples.ts),
 * so this module stays below the areas that own them.
 */
import { writeTransaction, type Db } from '../../store/sqlite/database.js';
import type {
  AlsoStatement,
  IndexedDocuments,
  PageDocuments,
  PageStore,
  StoredPage,
  WriteBatch,
} from './documents.types.js';
import type { SqliteDocumentsRepo, DocumentRecord } from '../../store/contracts/documents.js';

export type { AlsoStatement, WriteBatch };

/** Step 2: the search index as a write feeds it (core/search/search-index.ts). */
export interface IndexStage {
  /** Off the writing transaction: analyzes a batch about to be indexed (an import's or a crawl's). */
  prepare(docs: DocumentRecord[]): Promise<void>;
  /** In the write's transaction. */
  index(docs: DocumentRecord[]): unknown;
  /** After another connection (the writer thread) committed a write: this thread's readers see it. */
  noteWrite(): void;
  /** After the commit: background work the write left (segment merges). */
  settle(): void;
}

/** Step 3: the code examples of stored pages as a write feeds them (core/code/index/doc-examples.ts). */
export interface ExamplesStage {
  /** In the write's transaction: each page's examples replace the ones it had. */
  replace(pages: StoredPage[], now: string): void;
  /** After another connection (the writer thread) committed a write. */
  noteWrite(): void;
  /** After the commit. */
  settle(): void;
}

/**
 * The thread that performs the serving process's writes on a connection of its own (compose/
 * document-writer.ts): `write` analyzes `batches` there (its own analysis pool), then runs steps 1-3 of
 * them, and `also`, in one transaction and resolves after its commit; writes commit in call order (a
 * write's analysis overlaps the previous one's transaction). A write whose thread stopped (a crash)
 * rejects with an error saying so, and the next write starts a new thread.
 */
export interface DocumentWriter {
  write(batches: WriteBatch[], also?: AlsoStatement[]): Promise<void>;
  close(): Promise<void>;
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
  /** Where steps 1-3 run (none: inline, on `db`). */
  writer?: DocumentWriter;
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
  const local = localWrites(deps.db, deps.stored, deps.index, deps.examples, deps.writer);
  const replica = deps.replicate?.(local);
  return { documents: replica?.documents ?? local, local, indexed: deps.stored, replica };
}

/** A page without its Markdown: what the store and the index take (the Markdown feeds the examples only). */
export const withoutMarkdown = (pages: StoredPage[]): DocumentRecord[] =>
  pages.map(({ markdown: _markdown, ...doc }) => doc);

/**
 * Steps 1-3 of a write, the one rule wherever it runs: each batch's documents stored, indexed, and their
 * pages' code examples replaced. Run inside a transaction (the caller's).
 */
export function writeSteps(
  stored: Pick<SqliteDocumentsRepo, 'writeNow'>,
  index: Pick<IndexStage, 'index'>,
  examples?: Pick<ExamplesStage, 'replace'>,
): (batches: WriteBatch[]) => void {
  return (batches) => {
    for (const { pages, now } of batches) {
      const docs = withoutMarkdown(pages);
      stored.writeNow(docs, now);
      index.index(docs);
      examples?.replace(pages, now);
    }
  };
}

/**
 * Steps 1-3 and `also` in one IMMEDIATE transaction on `db` (statements prepared once per text): what the
 * writer thread runs, and what a write runs inline without one.
 */
export function writeTransactionOf(
  db: Db,
  steps: (batches: WriteBatch[]) => void,
): (batches: WriteBatch[], also?: AlsoStatement[]) => void {
  const statements = new Map<string, ReturnType<typeof db.prepare<unknown[]>>>();
  const statement = (sql: string) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = db.prepare<unknown[]>(sql)));
    return s;
  };
  return writeTransaction(db, (batches: WriteBatch[], also: AlsoStatement[] = []) => {
    steps(batches);
    for (const { sql, params } of also) statement(sql).run(...params);
  });
}

/**
 * Steps 1-3 on this machine: each write stores the documents, indexes them and replaces their pages'
 * code examples in one SQLite transaction, on `writer`'s thread when there is one (then this thread only
 * learns of the commit), else inline on `db`. A write resolves once committed: searchable at once.
 */
export function localWrites(
  db: Db,
  stored: SqliteDocumentsRepo,
  index: IndexStage,
  examples?: ExamplesStage,
  writer?: DocumentWriter,
): PageDocuments {
  const inline = writeTransactionOf(db, writeSteps(stored, index, examples));
  const settle = () => {
    index.settle();
    examples?.settle();
  };
  const write = async (batches: WriteBatch[], also?: AlsoStatement[]) => {
    if (!writer) {
      inline(batches, also);
      if (!db.inTransaction) settle(); // inside a caller's transaction, merges wait for its commit
      return;
    }
    try {
      await writer.write(batches, also);
    } finally {
      // a failed write may still have been followed by others' commits: readers look again either way
      index.noteWrite();
      examples?.noteWrite();
    }
    settle();
  };
  // with a writer thread, it analyzes each write itself, overlapping the previous write's transaction
  const prepare = async (pages: StoredPage[]) => {
    if (!writer) await index.prepare(withoutMarkdown(pages));
  };
  return {
    get: stored.get,
    heads: stored.heads,
    count: stored.count,
    all: stored.all,
    prepare,
    writeBatches: write,
    upsert: (doc, now) => write([{ pages: [doc], now }]),
    async upsertMany(docs, now) {
      await prepare(docs);
      await write([{ pages: docs, now }]);
    },
  };
}
