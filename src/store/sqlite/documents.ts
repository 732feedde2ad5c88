/**
 * Documents: every page fetched successfully and every imported record, as the search index reads
 * them. Keyed by URL (`import://<collection>/<id>` for records without one); re-fetching updates the row.
 */
import { writeTransaction, type Db } from './database.js';
import type {
  DocumentRecord,
  DocumentHead,
  StoredDocument,
  SqliteDocumentsRepo,
  DocumentRow,
  HeadRow,
} from '../contracts/documents.js';

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

/** The documents repository over `db`'s `documents` table. */
export function createDocumentsRepo(db: Db): SqliteDocumentsRepo {
  const upsert = db.prepare(`
    INSERT INTO documents (url, title, text, author, published_date, kind, metadata, origin, collection,
                           content_hash, fetched_at, updated_at)
    VALUES (@url, @title, @text, @author, @published_date, @kind, @metadata, @origin, @collection,
            @content_hash, @fetched_at, @updated_at)
    ${UPSERT_CONFLICT}`);
  const byUrl = db.prepare('SELECT * FROM documents WHERE url = ?');
  const headsByUrl = db.prepare(
    'SELECT url, title, author, published_date, metadata FROM documents WHERE url IN (SELECT value FROM json_each(?))',
  );
  const count = db.prepare('SELECT COUNT(*) AS n FROM documents');
  const page = db.prepare('SELECT * FROM documents WHERE url > ? ORDER BY url LIMIT ?');

  const write = (doc: DocumentRecord, now: string) =>
    upsert.run({
      url: doc.url,
      title: doc.title,
      text: doc.text,
      author: doc.author,
      published_date: doc.publishedDate,
      kind: doc.kind,
      metadata: JSON.stringify(doc.metadata),
      origin: doc.origin,
      collection: doc.collection,
      content_hash: doc.contentHash,
      fetched_at: doc.fetchedAt,
      updated_at: now,
    });
  const writeMany = writeTransaction(db, (docs: DocumentRecord[], now: string) => {
    for (const doc of docs) write(doc, now);
  });

  return {
    writeNow: (docs, now) => writeMany(docs, now),
    async upsert(doc, now) {
      write(doc, now);
    },
    async upsertMany(docs, now) {
      writeMany(docs, now);
    },
    async get(url) {
      const row = byUrl.get(url) as DocumentRow | undefined;
      return row ? toRecord(row) : undefined;
    },
    async heads(urls) {
      if (urls.length === 0) return new Map();
      return headsOf(headsByUrl.all(JSON.stringify(urls)) as HeadRow[]);
    },
    async count() {
      return (count.get() as { n: number }).n;
    },
    async *all(pageSize = 500) {
      let after = '';
      for (;;) {
        const rows = page.all(after, pageSize) as DocumentRow[];
        for (const row of rows) yield toRecord(row);
        if (rows.length < pageSize) return;
        after = rows.at(-1)!.url;
      }
    },
  };
}
