/**
 * Retention on PostgreSQL. Spend, request latency and agent events are partitioned by month (migration
 * `retention`): a month wholly past its line is folded (usage) and detached and dropped in one
 * transaction, rather than deleted row by row; what is left (a month with a run still kept, rows of a
 * default partition) and the other kinds go a batch at a time, as on SQLite. The sweep also makes the
 * coming months' partitions, moving in any rows that landed in the default partition first.
 */
import type pg from 'pg';
import { LEASED } from '../contracts/leases.js';
import {
  batchOf,
  countOf,
  foldSql,
  lineParams,
  monthOf,
  monthOfPartition,
  MONTHLY_TABLES,
  nextMonth,
  partitionOf,
  PRUNED_ROWS,
  RETENTION_ROW,
  STORE_KINDS,
  SWEEP_DUE,
  SWEEP_END,
  SWEEP_NOW,
  USAGE_TABLES,
  usageBatch,
  type MaintenanceRow,
  type MonthlyTable,
  type PruneBatch,
  type Pruner,
  type RetentionRepo,
  type StoreKind,
} from '../contracts/retention.js';
import { pgLeases, positional } from './leases.js';
import { inTransaction, rowCountOf, type Run } from './sql.js';

type RowKind = Exclude<StoreKind, 'usage'>;

/** A statement with `@name` parameters, bound from a kind's parameters. */
function bound(sql: string) {
  const q = positional(sql);
  return (db: Run, params: Record<string, string | number | null>) => db.query(q.text, q.values(params));
}

/** The monthly partitions of `table` (not the default), oldest first, with their months. */
async function partitionsOf(db: Run, table: MonthlyTable): Promise<{ name: string; month: string }[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
    [table],
  );
  return rows.flatMap((r) => {
    const month = monthOfPartition(table, r.name);
    return month ? [{ name: r.name, month }] : [];
  });
}

/** Detaches and drops a partition (in the caller's transaction); the rows it held. */
async function dropPartition(db: Run, table: MonthlyTable, name: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${name}`);
  await db.query(`ALTER TABLE ${table} DETACH PARTITION ${name}`);
  await db.query(`DROP TABLE ${name}`);
  return rows[0]!.n;
}

function rowPruner(pool: pg.Pool, kind: RowKind, dropPartitions?: Pruner['dropPartitions']): Pruner {
  const { table, key, children } = PRUNED_ROWS[kind];
  const count = bound(countOf(kind));
  // one statement: the batch is read once, and its children go with it
  const remove = bound(
    children
      ? `WITH batch AS (${batchOf(kind)}), gone AS (DELETE FROM ${children} IN (SELECT * FROM batch))
         DELETE FROM ${table} WHERE ${key} IN (SELECT * FROM batch)`
      : `DELETE FROM ${table} WHERE ${key} IN (${batchOf(kind)})`,
  );
  return {
    count: async (lineMs) => Number((await count(pool, lineParams(lineMs, 0))).rows[0].n),
    prune: async (lineMs, limit) => ({ rows: rowCountOf(await remove(pool, lineParams(lineMs, limit))), partitions: [] }), // prettier-ignore
    dropPartitions,
  };
}

/** A month of agent events goes whole once none of its events belongs to a run still kept. */
function eventPartitions(pool: pg.Pool): NonNullable<Pruner['dropPartitions']> {
  return async (lineMs) => {
    const out: PruneBatch = { rows: 0, partitions: [] };
    const line = new Date(lineMs).toISOString();
    for (const p of await partitionsOf(pool, 'agent_events')) {
      if (p.month >= monthOf(lineMs)) break;
      const gone = await inTransaction(pool, async (db) => {
        await db.query(`LOCK TABLE ${p.name} IN SHARE MODE`);
        const { rows } = await db.query(
          `SELECT 1 FROM ${p.name} e JOIN agent_runs r ON r.id = e.run_id
           WHERE r.status IN ('queued', 'running') OR r.updated_at >= $1 LIMIT 1`,
          [line],
        );
        return rows.length > 0 ? undefined : dropPartition(db, 'agent_events', p.name);
      });
      if (gone === undefined) continue;
      out.rows += gone;
      out.partitions.push(p.name);
    }
    return out;
  };
}

/** Usage: whole months folded and dropped; then rows left before the line (a default partition's) by batches. */
function usagePruner(pool: pg.Pool): Pruner {
  const tables = USAGE_TABLES.map((t) => ({
    t,
    count: bound(`SELECT COUNT(*) AS n FROM ${t.daily} WHERE day < @before`),
    // one statement: the batch deleted is the batch folded
    batch: bound(
      `WITH batch AS (DELETE FROM ${t.daily} WHERE (${t.key.join(', ')}) IN (${usageBatch(t, t.key.join(', '))}) RETURNING *),
         folded AS (${foldSql(t, 'batch')})
       SELECT COUNT(*)::int AS n FROM batch`,
    ),
  }));
  return {
    async count(lineMs) {
      let n = 0;
      for (const { count } of tables) n += Number((await count(pool, lineParams(lineMs, 0))).rows[0].n);
      return n;
    },
    async prune(lineMs, limit) {
      for (const { batch } of tables) {
        const rows = (await batch(pool, lineParams(lineMs, limit))).rows[0].n as number;
        if (rows > 0) return { rows, partitions: [] };
      }
      return { rows: 0, partitions: [] };
    },
    async dropPartitions(lineMs) {
      const out: PruneBatch = { rows: 0, partitions: [] };
      for (const t of USAGE_TABLES) {
        for (const p of await partitionsOf(pool, t.daily)) {
          if (p.month >= monthOf(lineMs)) break;
          out.rows += await inTransaction(pool, async (db) => {
            await db.query(`LOCK TABLE ${p.name} IN SHARE MODE`);
            await db.query(foldSql(t, p.name));
            return dropPartition(db, t.daily, p.name);
          });
          out.partitions.push(p.name);
        }
      }
      return out;
    },
  };
}

/**
 * Makes `table`'s partition for `month` when it is missing: rows of that month in the default partition
 * move into it in the same transaction (PostgreSQL refuses a partition whose rows the default holds).
 */
async function makePartition(pool: pg.Pool, table: MonthlyTable, month: string): Promise<boolean> {
  const name = partitionOf(table, month);
  const column = MONTHLY_TABLES[table];
  return inTransaction(pool, async (db) => {
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`trawl partitions ${table}`]);
    const { rows } = await db.query<{ there: string | null }>('SELECT to_regclass($1)::text AS there', [name]);
    if (rows[0]?.there) return false;
    const [from, to] = [`${month}-01`, `${nextMonth(month)}-01`];
    await db.query(`LOCK TABLE ${table}_default IN ACCESS EXCLUSIVE MODE`);
    await db.query(`CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS)`);
    await db.query(
      `WITH moved AS (DELETE FROM ${table}_default WHERE ${column} >= $1 AND ${column} < $2 RETURNING *)
       INSERT INTO ${name} SELECT * FROM moved`,
      [from, to],
    );
    await db.query(`ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM ('${from}') TO ('${to}')`);
    return true;
  });
}

export function createPgRetentionRepo(pool: pg.Pool): RetentionRepo {
  const leases = pgLeases<MaintenanceRow>(pool, LEASED.maintenance);
  const due = leases.claim(SWEEP_DUE);
  const now = leases.claim(SWEEP_NOW);
  const end = leases.release(SWEEP_END);
  const pruners = Object.fromEntries(
    STORE_KINDS.map((kind) => [
      kind,
      kind === 'usage'
        ? usagePruner(pool)
        : rowPruner(pool, kind, kind === 'agentEvents' ? eventPartitions(pool) : undefined),
    ]),
  ) as Record<StoreKind, Pruner>;
  return {
    pruners,
    lease: {
      claim: async (owner, nowMs, untilMs, anyTime) =>
        (await (anyTime ? now : due)(RETENTION_ROW, { owner, nowMs, untilMs })) !== undefined,
      renew: (owner, untilMs) => leases.renew(RETENTION_ROW, owner, untilMs),
      release: (owner, nowMs, nextMs, report) => end(RETENTION_ROW, { owner, nowMs }, { next: nextMs, report }),
      row: async () => (await pool.query<MaintenanceRow>('SELECT * FROM maintenance WHERE name = $1', [RETENTION_ROW])).rows[0]!, // prettier-ignore
    },
    async preparePartitions(nowMs, monthsAhead) {
      const made: string[] = [];
      for (const table of Object.keys(MONTHLY_TABLES) as MonthlyTable[]) {
        let month = monthOf(nowMs);
        for (let i = 0; i <= monthsAhead; i++, month = nextMonth(month)) {
          if (await makePartition(pool, table, month)) made.push(partitionOf(table, month));
        }
      }
      return made;
    },
  };
}
