/**
 * The storage side of leasing, bound once for PostgreSQL: the same `TableLeases` as SQLite's
 * (../sqlite/leases.ts) over the same statements (`leaseSql`), each write a conditional UPDATE, so two
 * replicas never both hold a job. A claim may run inside the kind's transaction (`on`), as the agent
 * runs' does under its key's lock.
 */
import type pg from 'pg';
import {
  leaseSql,
  type ClaimRule,
  type LeaseGrant,
  type LeaseParams,
  type LeaseTable,
  type TableLeases,
} from '../contracts/leases.js';
import type { Run } from './sql.js';

/** A statement with `@name` parameters as PostgreSQL takes it: `$n` in its text, the values in order. */
export function positional(sql: string): { text: string; values: (named: LeaseParams) => unknown[] } {
  const names: string[] = [];
  const text = sql.replace(/@([a-z_]+)/g, (_, name: string) => {
    const at = names.includes(name) ? names.indexOf(name) : names.push(name) - 1;
    return `$${at + 1}`;
  });
  return {
    text,
    values: (named) =>
      names.map((name) => {
        if (!(name in named)) throw new Error(`no value for @${name} in ${sql}`);
        return named[name];
      }),
  };
}

/** A claim that may run on a transaction's client (`on`; default: the pool). */
export type PgClaim<R> = (
  key: string | number,
  grant: LeaseGrant,
  params?: LeaseParams,
  on?: Run,
) => Promise<R | undefined>;

/** PostgreSQL's leases of a table: a claim also runs inside the kind's transaction. */
export interface PgTableLeases<R> extends TableLeases<R> {
  claim(rule: ClaimRule): PgClaim<R>;
}

export function pgLeases<R extends pg.QueryResultRow>(pool: pg.Pool, t: LeaseTable): PgTableLeases<R> {
  const renew = positional(leaseSql.renew(t));
  const lapsed = positional(leaseSql.lapsed(t));
  const claim: PgTableLeases<R>['claim'] = (rule) => {
    const q = positional(leaseSql.claim(t, rule));
    return async (key, grant, params, on = pool) =>
      (await on.query<R>(q.text, q.values(leaseSql.claimValues(key, grant, params)))).rows[0];
  };
  const release: TableLeases<R>['release'] = (rule) => {
    const q = positional(leaseSql.release(t, rule));
    return async (key, holder, params) =>
      ((await pool.query(q.text, q.values(leaseSql.releaseValues(key, holder, params)))).rowCount ?? 0) > 0;
  };
  const claimFree = claim({ free: true });
  return {
    renew: async (key, holder, untilMs) =>
      ((await pool.query(renew.text, renew.values({ key, until: untilMs, owner: holder }))).rowCount ?? 0) > 0,
    lapsed: async (nowMs) => (await pool.query<R>(lapsed.text, lapsed.values({ now: nowMs }))).rows,
    claimFree: (key, nowMs, untilMs) => claimFree(key, { nowMs, untilMs }),
    claim,
    release,
  };
}
