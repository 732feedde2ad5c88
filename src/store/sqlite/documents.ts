/**
 * Documents: every page fetched successfully and every imported record, as the search index reads
 * them. Keyed by URL (`import://<collection>/<id>` for records without one); re-fetching updates the row.
 */
import { writeTransaction, type Db } from './database.js';
import {
  UPSERT_CONFLICT,
  headsOf,
  toRecord,
  type DocumentRecord,
  type SqliteDocumentsRepo,
  type DocumentRow,
  type HeadRow,
} from '../contracts/documents.js';

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
