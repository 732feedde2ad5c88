/**
 * A place in a log replicas follow (the document log, the code log): the PostgreSQL logs of
 * pg/change-log.ts give and take positions of this shape.
 */

/** A place in a log: after the write of transaction `xid`, number `seq`. */
export interface LogPosition {
  /** A transaction id (xid8) as decimal text. */
  xid: string;
  seq: number;
}
