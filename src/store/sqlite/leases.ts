/**
 * The storage side of leasing, written once for SQLite: renewing a job's lease, listing the jobs whose
 * lease lapsed (their process died), and claiming a job that is free or lapsed. Each leased table (agent
 * runs, monitor runs, webhook deliveries, MCP tasks) names its columns in a `LeaseTable`; every write is
 * a conditional UPDATE, so two processes on one data directory never both hold a job.
 */
import type { LeaseTable, TableLeases } from '../contracts/leases.js';
import type { Db } from './database.js';

export function sqliteLeases<R>(db: Db, t: LeaseTable): TableLeases<R> {
  const holder = t.holder ? ` AND ${t.holder} = @holder` : '';
  const due = t.due ? ` AND ${t.due} <= @now` : '';
  const s = {
    renew: db.prepare(`UPDATE ${t.table} SET lease_until_ms = @until WHERE ${t.key} = @key${holder} AND ${t.open}`),
    lapsed: db.prepare(`SELECT * FROM ${t.table} WHERE ${t.open} AND lease_until_ms < ? LIMIT 500`),
    claim: db.prepare(
      `UPDATE ${t.table} SET lease_until_ms = @until
       WHERE ${t.key} = @key AND ${t.open}${due} AND (lease_until_ms IS NULL OR lease_until_ms < @now)
       RETURNING *`,
    ),
  };
  return {
    renew: async (key, holderId, untilMs) =>
      s.renew.run({ key, until: untilMs, ...(t.holder ? { holder: holderId } : {}) }).changes > 0,
    lapsed: async (nowMs) => s.lapsed.all(nowMs) as R[],
    claimFree: async (key, nowMs, untilMs) => s.claim.get({ key, now: nowMs, until: untilMs }) as R | undefined,
  };
}
