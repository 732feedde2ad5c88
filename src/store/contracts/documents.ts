/**
 * The contract of the documents store: every page fetched and every imported record, as the search
 * index reads them, keyed by URL; the rows both backends keep (sqlite/documents.ts, pg/documents.ts).
 */
import type { LogPosition } from './change-log.js';

export interface DocumentRecord {
  url: string;
  title: string;
  /** The page's main content as Markdown-flavoured text. */
  text: string;
  author: string | null;
  publishedDate: string | null;
  /** Content kind: `html`, `pdf`, `feed`, `markdown`, `text`, `json`, `xml`. */
  kind: string;
  /** Everything else worth keeping (image, favicon, language, description, final URL), as JSON. */
  metadata: Record<string, unknown>;
  origin: 'fetch' | 'import';
  collection: string | null;
  /** SHA-256 of the text: unchanged pages keep their row untouched. */
  contentHash: string;
  fetchedAt: string;
}

/**
 * A document as it is written, with the Markdown of a fetched page beside it: the stored `text` of an
 * HTML page is plain text (for search), without the fences that mark its code; `markdown` has them, for
 * the page's code examples (core/code/index/doc-examples.ts). SQLite does not keep it; PostgreSQL keeps
 * it for pages with fences, so every replica derives the same examples.
 */
export type StoredPage = DocumentRecord & { markdown?: string };

/** The fields of a document a search result shows. */
export type DocumentHead = Pick<DocumentRecord, 'url' | 'title' | 'author' | 'publishedDate' | 'metadata'>;

/** A stored document, with when its content last changed. */
export type StoredDocument = DocumentRecord & { updatedAt: string };

/** The documents store, as services use it (a PostgreSQL implementation is to follow). */
export interface DocumentsRepo {
  /** Inserts or updates by URL; `updated_at` moves only when the content hash changes. */
  upsert(doc: DocumentRecord, now: string): Promise<void>;
  /** Upserts a batch atomically (imports): all rows land or none. */
  upsertMany(docs: DocumentRecord[], now: string): Promise<void>;
  get(url: string): Promise<StoredDocument | undefined>;
  /** Documents' descriptions without their text (what search results show), by URL; unknown URLs are left out. */
  heads(urls: string[]): Promise<Map<string, DocumentHead>>;
  count(): Promise<number>;
  /** Every document in URL order, read a page at a time (so the caller may write between pages). */
  all(pageSize?: number): AsyncIterable<StoredDocument>;
}

/**
 * The documents store on SQLite: the repository, and its synchronous row write for a transaction that
 * also writes what derives from the documents (the search index, a page's code examples), atomically.
 */
export interface SqliteDocumentsRepo extends DocumentsRepo {
  /** Writes the rows at once, joining the caller's transaction (a better-sqlite3 one cannot span an await). */
  writeNow(docs: DocumentRecord[], now: string): void;
  /**
   * Optional work to do before `writeNow`, off the writing thread (the search index analyzes the
   * documents in its worker threads); `upsertMany` does it itself.
   */
  prepare?(docs: DocumentRecord[]): Promise<void>;
  /** After a `writeNow` in the caller's transaction has committed: background work it may need (merges). */
  settle?(): void;
}

/** A row of `documents` (both backends store the same columns). */
export interface DocumentRow {
  url: string;
  title: string;
  text: string;
  author: string | null;
  published_date: string | null;
  kind: string;
  metadata: string;
  origin: 'fetch' | 'import';
  collection: string | null;
  content_hash: string;
  fetched_at: string;
  updated_at: string;
}

/** The columns of a document's head. */
export type HeadRow = Pick<DocumentRow, 'url' | 'title' | 'author' | 'published_date' | 'metadata'>;

/** The documents store on PostgreSQL, whose writes also say where they are in the document log. */
export interface PgDocumentsRepo extends DocumentsRepo {
  /** Upserts a batch atomically, like `upsertMany`; the log position of its last write (null for none). */
  write(docs: StoredPage[], now: string): Promise<LogPosition | null>;
}

/**
 * What an upsert of a document does to the row already there (both backends): every field replaced,
 * `updated_at` moved only when the content hash changed.
 */
export const UPSERT_CONFLICT = `ON CONFLICT (url) DO UPDATE SET
  title = excluded.title, text = excluded.text, author = excluded.author,
  published_date = excluded.published_date, kind = excluded.kind, metadata = excluded.metadata,
  origin = excluded.origin, collection = excluded.collection, fetched_at = excluded.fetched_at,
  updated_at = CASE WHEN documents.content_hash = excluded.content_hash THEN documents.updated_at
                    ELSE excluded.updated_at END,
  content_hash = excluded.content_hash`;

/** Head rows as the heads services read, by URL. */
export function headsOf(rows: HeadRow[]): Map<string, DocumentHead> {
  return new Map(
    rows.map((row) => [
      row.url,
      {
        url: row.url,
        title: row.title,
        author: row.author,
        publishedDate: row.published_date,
        metadata: JSON.parse(row.metadata) as Record<string, unknown>,
      },
    ]),
  );
}

/** A `documents` row as the record services read. */
export function toRecord(row: DocumentRow): StoredDocument {
  return {
    url: row.url,
    title: row.title,
    text: row.text,
    author: row.author,
    publishedDate: row.published_date,
    kind: row.kind,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    origin: row.origin,
    collection: row.collection,
    contentHash: row.content_hash,
    fetchedAt: row.fetched_at,
    updatedAt: row.updated_at,
  };
}
