/**
 * The storage side of leasing, written once for PostgreSQL: the same `TableLeases` as SQLite's
 * (../sqlite/leases.ts), each write a conditional UPDATE, so two replicas never both hold a job.
 */
import type pg from 'pg';
import type { LeaseTable, TableLeases } from '../contracts/leases.js';

const changed = (r: pg.QueryResult) => (r.rowCount ?? 0) > 0;

export function pgLeases<R extends pg.QueryResultRow>(pool: pg.Pool, t: LeaseTable): TableLeases<R> {
  const renew = t.holder
    ? `UPDATE ${t.table} SET lease_until_ms = $2 WHERE ${t.key} = $1 AND ${t.holder} = $3 AND ${t.open}`
    : `UPDATE ${t.table} SET lease_until_ms = $2 WHERE ${t.key} = $1 AND ${t.open}`;
  const due = t.due ? ` AND ${t.due} <= $2` : '';
  const claim = `UPDATE ${t.table} SET lease_until_ms = $3
    WHERE ${t.key} = $1 AND ${t.open}${due} AND (lease_until_ms IS NULL OR lease_until_ms < $2)
    RETURNING *`;
  return {
    renew: async (key, holder, untilMs) =>
      changed(await pool.query(renew, t.holder ? [key, untilMs, holder] : [key, untilMs])),
    lapsed: async (nowMs) =>
      (await pool.query<R>(`SELECT * FROM ${t.table} WHERE ${t.open} AND lease_until_ms < $1 LIMIT 500`, [nowMs])).rows,
    claimFree: async (key, nowMs, untilMs) => (await pool.query<R>(claim, [key, nowMs, untilMs])).rows[0],
  };
}
