/** The documents store over PostgreSQL: the same contract as `createDocumentsRepo` (SQLite). */
import type pg from 'pg';
import {
  UPSERT_CONFLICT,
  headsOf,
  toRecord,
  type DocumentRow,
  type HeadRow,
  type StoredPage,
  type PgDocumentsRepo,
} from '../contracts/documents.js';
import type { LogPosition } from '../contracts/change-log.js';
import { DOCUMENTS_CHANNEL_SQL } from './document-log.js';
import { inTransaction, pgText, type Run } from './sql.js';

// as on SQLite, with a page's Markdown where it has code fences (each replica takes the page's code
// examples from them), and the write's place in the document log (document-log.ts)
const UPSERT = `
  INSERT INTO documents (url, title, text, author, published_date, kind, metadata, origin, collection,
                         content_hash, fetched_at, updated_at, markdown)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
  ${UPSERT_CONFLICT},
    markdown = excluded.markdown,
    change_xid = pg_current_xact_id(), change_seq = nextval('documents_change_seq')
  RETURNING change_xid::text AS xid, change_seq AS seq`;

/** The Markdown worth keeping beside the text: a fetched page's, when it has fences. */
const fencedMarkdown = (d: StoredPage) => (d.markdown?.includes('```') ? d.markdown : null);

const write = (db: Run, d: StoredPage, now: string) =>
  db.query<LogPosition>(UPSERT, [d.url, pgText(d.title), pgText(d.text), pgText(d.author), d.publishedDate, d.kind,
    JSON.stringify(d.metadata), d.origin, d.collection, d.contentHash, d.fetchedAt, now, pgText(fencedMarkdown(d))]); // prettier-ignore

/** Wakes the replicas following the document log (delivered when the transaction commits). */
const notify = (db: Run) => db.query(`SELECT pg_notify(${DOCUMENTS_CHANNEL_SQL}, '')`);

export function createPgDocumentsRepo(pool: pg.Pool): PgDocumentsRepo {
  const writeAll = (docs: StoredPage[], now: string) =>
    inTransaction(pool, async (db) => {
      let last: LogPosition | null = null;
      for (const doc of docs) last = (await write(db, doc, now)).rows[0] ?? last;
      await notify(db);
      return last;
    });
  return {
    write: writeAll,
    async upsert(doc, now) {
      await writeAll([doc], now);
    },
    async upsertMany(docs, now) {
      await writeAll(docs, now);
    },
    async get(url) {
      const { rows } = await pool.query<DocumentRow>('SELECT * FROM documents WHERE url = $1', [url]);
      return rows[0] ? toRecord(rows[0]) : undefined;
    },
    async heads(urls) {
      if (urls.length === 0) return new Map();
      const sql = 'SELECT url, title, author, published_date, metadata FROM documents WHERE url = ANY($1)';
      return headsOf((await pool.query<HeadRow>(sql, [urls])).rows);
    },
    async count() {
      const { rows } = await pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM documents');
      return rows[0]!.n;
    },
    async *all(pageSize = 500) {
      let after = '';
      for (;;) {
        // byte order (COLLATE "C"), as SQLite sorts text, so both stores page through in the same order
        const { rows } = await pool.query<DocumentRow>(
          'SELECT * FROM documents WHERE url > $1 COLLATE "C" ORDER BY url COLLATE "C" LIMIT $2',
          [after, pageSize],
        );
        for (const row of rows) yield toRecord(row);
        if (rows.length < pageSize) return;
        after = rows.at(-1)!.url;
      }
    },
  };
}
