/**
 * What `trawl migrate` reports while it copies a SQLite data directory into PostgreSQL
 * (pg/copy-from-sqlite.ts): each table's progress and its row counts on both sides.
 */

/** Where a table's copy stands, after each batch. */
export interface CopyProgress {
  table: string;
  /** Rows of the table copied so far, earlier runs included. */
  copied: number;
  /** Rows of the SQLite table. */
  total: number;
  /** Rows this run inserted or rewrote. */
  written: number;
  /** True once the table is copied to its end. */
  finished: boolean;
  /** True when an earlier run copied the whole table and it was not read again. */
  skipped?: boolean;
}

/** A table's rows in both databases, once copied. */
export interface TableCount {
  table: string;
  source: number;
  destination: number;
}
