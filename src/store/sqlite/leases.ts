/**
 * The storage side of leasing, bound once for SQLite: renewing a job's lease, listing the jobs whose
 * lease lapsed (their process died), claiming a job (a kind's rule: its status before and after, its
 * fairness) and releasing it. Each leased table (agent runs, monitor runs, webhook deliveries, MCP tasks,
 * crawls) names its columns in a `LeaseTable`, and the statements are written once for both dialects
 * (`leaseSql`); every write is a conditional UPDATE, so two processes on one data directory never both
 * hold a job.
 */
import { leaseSql, type LeaseTable, type TableLeases } from '../contracts/leases.js';
import type { Db } from './database.js';

export function sqliteLeases<R>(db: Db, t: LeaseTable): TableLeases<R> {
  const renew = db.prepare(leaseSql.renew(t));
  const lapsed = db.prepare(leaseSql.lapsed(t));
  const claim: TableLeases<R>['claim'] = (rule) => {
    const statement = db.prepare(leaseSql.claim(t, rule));
    return async (key, grant, params) => statement.get(leaseSql.claimValues(key, grant, params)) as R | undefined;
  };
  const release: TableLeases<R>['release'] = (rule) => {
    const statement = db.prepare(leaseSql.release(t, rule));
    return async (key, holder, params) => statement.run(leaseSql.releaseValues(key, holder, params)).changes > 0;
  };
  const claimFree = claim({ free: true });
  return {
    renew: async (key, holder, untilMs) => renew.run({ key, until: untilMs, owner: holder }).changes > 0,
    lapsed: async (nowMs) => lapsed.all({ now: nowMs }) as R[],
    claimFree: (key, nowMs, untilMs) => claimFree(key, { nowMs, untilMs }),
    claim,
    release,
  };
}
