/**
 * Retention on SQLite: each kind's rows past its line deleted a batch at a time (one short IMMEDIATE
 * transaction each, so the server's writes wait at most one batch), usage folded into its monthly
 * totals in the transaction that deletes its daily rows; the sweep's lease on the `maintenance` row.
 */
import {
  batchOf,
  countOf,
  foldSql,
  lineParams,
  PRUNED_ROWS,
  RETENTION_ROW,
  STORE_KINDS,
  SWEEP_DUE,
  SWEEP_END,
  SWEEP_NOW,
  USAGE_TABLES,
  usageBatch,
  type MaintenanceRow,
  type Pruner,
  type RetentionRepo,
  type StoreKind,
} from '../contracts/retention.js';
import { LEASED } from '../contracts/leases.js';
import { writeTransaction, type Db } from './database.js';
import { sqliteLeases } from './leases.js';

type RowKind = Exclude<StoreKind, 'usage'>;

function rowPruner(db: Db, kind: RowKind): Pruner {
  const { table, key, children } = PRUNED_ROWS[kind];
  const count = db.prepare(countOf(kind));
  const first = children ? db.prepare(`DELETE FROM ${children} IN (${batchOf(kind)})`) : undefined;
  const remove = db.prepare(`DELETE FROM ${table} WHERE ${key} IN (${batchOf(kind)})`);
  const batch = writeTransaction(db, (params: ReturnType<typeof lineParams>) => {
    first?.run(params);
    return remove.run(params).changes;
  });
  return {
    count: async (lineMs) => (count.get(lineParams(lineMs, 0)) as { n: number }).n,
    prune: async (lineMs, limit) => ({ rows: batch(lineParams(lineMs, limit)), partitions: [] }),
  };
}

/** Usage: a batch of daily rows folded into their month and deleted in one transaction, spend first. */
function usagePruner(db: Db): Pruner {
  const tables = USAGE_TABLES.map((t) => ({
    count: db.prepare(`SELECT COUNT(*) AS n FROM ${t.daily} WHERE day < @before`),
    fold: db.prepare(foldSql(t, `(${usageBatch(t, '*')})`)),
    remove: db.prepare(`DELETE FROM ${t.daily} WHERE (${t.key.join(', ')}) IN (${usageBatch(t, t.key.join(', '))})`),
  }));
  const batch = writeTransaction(db, (params: ReturnType<typeof lineParams>) => {
    for (const t of tables) {
      t.fold.run(params);
      const rows = t.remove.run(params).changes;
      if (rows > 0) return rows;
    }
    return 0;
  });
  return {
    async count(lineMs) {
      const params = lineParams(lineMs, 0);
      return tables.reduce((n, t) => n + (t.count.get(params) as { n: number }).n, 0);
    },
    prune: async (lineMs, limit) => ({ rows: batch(lineParams(lineMs, limit)), partitions: [] }),
  };
}

export function createRetentionRepo(db: Db): RetentionRepo {
  const leases = sqliteLeases<MaintenanceRow>(db, LEASED.maintenance);
  const due = leases.claim(SWEEP_DUE);
  const now = leases.claim(SWEEP_NOW);
  const end = leases.release(SWEEP_END);
  const row = db.prepare('SELECT * FROM maintenance WHERE name = ?');
  const pruners = Object.fromEntries(
    STORE_KINDS.map((kind) => [kind, kind === 'usage' ? usagePruner(db) : rowPruner(db, kind)]),
  ) as Record<StoreKind, Pruner>;
  return {
    pruners,
    lease: {
      claim: async (owner, nowMs, untilMs, anyTime) =>
        (await (anyTime ? now : due)(RETENTION_ROW, { owner, nowMs, untilMs })) !== undefined,
      renew: (owner, untilMs) => leases.renew(RETENTION_ROW, owner, untilMs),
      release: (owner, nowMs, nextMs, report) => end(RETENTION_ROW, { owner, nowMs }, { next: nextMs, report }),
      row: async () => row.get(RETENTION_ROW) as MaintenanceRow,
    },
  };
}
