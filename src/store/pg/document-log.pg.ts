/**
 * The document log over PostgreSQL: every document's latest write, in an order that replicas can follow
 * without missing one. A write records its transaction's id (`pg_current_xact_id()`) and a sequence
 * number. A reader takes only rows whose transaction id is below its snapshot's xmin (every transaction
 * that old has ended, so no row can still appear before them) and orders them by (transaction id,
 * sequence): a position in that order never has a later write land behind it. Ordering by the
 * sequence alone would not do: a transaction that took a number early and commits late would land
 * behind a position a reader has already passed.
 *
 * The price: a transaction left open anywhere in the database holds every reader's xmin back, and so
 * the log, until it ends.
 *
 * Writers notify the channel `trawl_documents_<schema>` when they commit; `changed` waits on it with a
 * connection of its own (LISTEN needs one outside the pool, and outside PgBouncer's transaction pooling).
 */
import pg from 'pg';
import { toRecord, type DocumentRow, type StoredDocument } from '../documents.repo.js';

/** A place in the log: after the write of transaction `xid`, number `seq`. */
export interface LogPosition {
  /** A transaction id (xid8) as decimal text. */
  xid: string;
  seq: number;
}

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

/** The channel writers notify: one per schema, so stores in different schemas do not wake each other. */
export const DOCUMENTS_CHANNEL_SQL = "'trawl_documents_' || current_schema()";

export function createPgDocumentLog(pool: pg.Pool): DocumentLog {
  let wake: (() => void) | null = null;
  let pending = false; // a notification came while nobody waited: the next wait returns at once
  let listener: Promise<pg.Client> | null = null;
  const listen = async () => {
    const client = new pg.Client({ connectionString: pool.options.connectionString, options: pool.options.options });
    await client.connect();
    const { rows } = await client.query<{ channel: string }>(`SELECT ${DOCUMENTS_CHANNEL_SQL} AS channel`);
    client.on('notification', () => {
      if (wake) wake();
      else pending = true;
    });
    client.on('error', () => {
      listener = null; // a lost connection is made again at the next wait; polling covers the gap
    });
    await client.query(`LISTEN "${rows[0]!.channel}"`);
    return client;
  };
  return {
    async changed(timeoutMs, signal) {
      listener ??= listen();
      await listener;
      if (pending) {
        pending = false;
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, timeoutMs);
        signal?.addEventListener('abort', done, { once: true });
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          wake = null;
          resolve();
        }
        wake = done;
        if (signal?.aborted) done();
      });
    },
    async close() {
      const client = await listener?.catch(() => null);
      listener = null;
      await client?.end();
    },
    async changesSince(after, limit) {
      const { rows } = await pool.query<DocumentRow & { xid: string; change_seq: number; markdown: string | null }>(
        `SELECT d.*, d.change_xid::text AS xid FROM documents d
         WHERE d.change_xid < pg_snapshot_xmin(pg_current_snapshot())
           AND (d.change_xid, d.change_seq) > ($1::xid8, $2::bigint)
         ORDER BY d.change_xid, d.change_seq LIMIT $3`,
        [after?.xid ?? '0', after?.seq ?? -1, limit],
      );
      const last = rows.at(-1);
      return {
        docs: rows.map((row) => (row.markdown ? { ...toRecord(row), markdown: row.markdown } : toRecord(row))),
        next: last ? { xid: last.xid, seq: last.change_seq } : after,
      };
    },
  };
}
