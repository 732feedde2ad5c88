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
 */
import type pg from 'pg';
import { toRecord, type DocumentRow, type StoredDocument } from '../documents.repo.js';

/** A place in the log: after the write of transaction `xid`, number `seq`. */
export interface LogPosition {
  /** A transaction id (xid8) as decimal text. */
  xid: string;
  seq: number;
}

export interface DocumentLog {
  /** Up to `limit` documents written after `after` (from the start when null), in log order, with where they end. */
  changesSince(after: LogPosition | null, limit: number): Promise<{ docs: StoredDocument[]; next: LogPosition | null }>;
}

export function createPgDocumentLog(pool: pg.Pool): DocumentLog {
  return {
    async changesSince(after, limit) {
      const { rows } = await pool.query<DocumentRow & { xid: string; change_seq: number }>(
        `SELECT d.*, d.change_xid::text AS xid FROM documents d
         WHERE d.change_xid < pg_snapshot_xmin(pg_current_snapshot())
           AND (d.change_xid, d.change_seq) > ($1::xid8, $2::bigint)
         ORDER BY d.change_xid, d.change_seq LIMIT $3`,
        [after?.xid ?? '0', after?.seq ?? -1, limit],
      );
      const last = rows.at(-1);
      return {
        docs: rows.map(toRecord),
        next: last ? { xid: last.xid, seq: last.change_seq } : after,
      };
    },
  };
}
