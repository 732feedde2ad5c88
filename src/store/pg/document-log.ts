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
 * The rule and the listener are shared with the code log (change-log.ts).
 */
import type pg from 'pg';
import { toRecord, type DocumentRow } from '../contracts/documents.js';
import { channelSql, createLogListener, logAfter, logNext, logOrder, logWindow } from './change-log.js';
import type { DocumentLog } from '../contracts/document-log.js';

/** The channel writers notify: one per schema, so stores in different schemas do not wake each other. */
export const DOCUMENTS_CHANNEL_SQL = channelSql('documents');

export function createPgDocumentLog(pool: pg.Pool): DocumentLog {
  return {
    ...createLogListener(pool, DOCUMENTS_CHANNEL_SQL),
    async changesSince(after, limit) {
      const { rows } = await pool.query<DocumentRow & { xid: string; change_seq: number; markdown: string | null }>(
        `SELECT d.*, d.change_xid::text AS xid FROM documents d WHERE ${logWindow('d')} ORDER BY ${logOrder('d')} LIMIT $3`,
        [...logAfter(after), limit],
      );
      return {
        docs: rows.map((row) => (row.markdown ? { ...toRecord(row), markdown: row.markdown } : toRecord(row))),
        next: logNext(rows, after),
      };
    },
  };
}
