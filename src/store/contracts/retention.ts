/**
 * The contract of retention in the store: for each kind of record that grows without end, what is past
 * its retention line (open items never are) and how it goes, a batch at a time; usage is folded into
 * monthly totals before its daily rows go, so sums stay exact. The sweep itself is leased (one process of
 * all those sharing the store at a time) on the `maintenance` row `retention`. SQLite: sqlite/retention.ts
 * (batched deletes); PostgreSQL: pg/retention.ts (the growing tables partitioned by month, whole months
 * dropped, then batched deletes for what is left).
 */
import type { ClaimRule, ReleaseRule } from './leases.js';

/** The kinds of records a sweep prunes, in the order it prunes them. */
export const STORE_KINDS = [
  'usage',
  'agentEvents',
  'monitorRuns',
  'deliveries',
  'mcpTasks',
  'mcpSnapshots',
  'crawlFrontier',
] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** What one batch of a kind did: rows deleted (usage: folded), and partitions dropped (PostgreSQL). */
export interface PruneBatch {
  rows: number;
  partitions: string[];
}

/** One kind's pruning: `lineMs` is the retention line (epoch ms); what ended or expired before it goes. */
export interface Pruner {
  /** The rows a sweep would remove now (usage: the daily rows it would fold). */
  count(lineMs: number): Promise<number>;
  /** Removes at most `limit` rows (usage: folds them into their months); rows 0 once nothing is left. */
  prune(lineMs: number, limit: number): Promise<PruneBatch>;
  /**
   * PostgreSQL: drops the monthly partitions wholly past the line (usage folded first), each in one
   * transaction, before the batches take what is left. Absent on SQLite.
   */
  dropPartitions?(lineMs: number): Promise<PruneBatch>;
}

/** The `maintenance` row of the retention sweep: who holds it, until when, when it is next due. */
export interface MaintenanceRow {
  name: string;
  owner: string | null;
  lease_until_ms: number | null;
  next_run_ms: number;
  last_run_ms: number | null;
  /** The last sweep's report, as JSON. */
  last_report: string | null;
}

/** The sweep's lease: claimed, renewed and released as every leased job (store/contracts/leases.ts). */
export interface SweepLease {
  /** Claims the sweep for `owner` until `untilMs` when no one holds it (and, unless `anyTime`, it is due). */
  claim(owner: string, nowMs: number, untilMs: number, anyTime: boolean): Promise<boolean>;
  /** Extends `owner`'s lease; false once another process holds the sweep. */
  renew(owner: string, untilMs: number): Promise<boolean>;
  /** Lets the sweep go: next due at `nextMs`, with the report of the sweep that ended. */
  release(owner: string, nowMs: number, nextMs: number, report: string): Promise<boolean>;
  /** The row as it is. */
  row(): Promise<MaintenanceRow>;
}

export interface RetentionRepo {
  pruners: Record<StoreKind, Pruner>;
  lease: SweepLease;
  /**
   * PostgreSQL: creates the monthly partitions of the growing tables up to `monthsAhead` months after
   * `nowMs` (rows that landed in a default partition move in); their names. Absent on SQLite.
   */
  preparePartitions?(nowMs: number, monthsAhead: number): Promise<string[]>;
}

/** The key of the sweep's row in `maintenance`. */
export const RETENTION_ROW = 'retention';

/** A periodic sweep: only when due and no one holds it. */
export const SWEEP_DUE: ClaimRule = { free: true, from: 'next_run_ms <= @now' };
/** `trawl prune`: whenever no one holds it. */
export const SWEEP_NOW: ClaimRule = { free: true, from: '1 = 1' };
/** The end of a sweep: when the next is due, and what this one did. */
export const SWEEP_END: ReleaseRule = {
  from: '1 = 1',
  set: 'next_run_ms = @next, last_run_ms = @now, last_report = @report',
};

const DAY_MS = 86_400_000;

/** The retention line of `days` at `nowMs` (epoch ms). */
export const lineOf = (nowMs: number, days: number): number => nowMs - days * DAY_MS;

/** `YYYY-MM` of an epoch ms (UTC). */
export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/**
 * The first day (YYYY-MM-DD) of the month holding `lineMs`: usage is folded by whole months, so the days
 * before it go (a month is folded once all of it is past the line).
 */
export const usageBefore = (lineMs: number): string => `${monthOf(lineMs)}-01`;

/** The month after `month` (YYYY-MM). */
export function nextMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
}

/** The tables PostgreSQL partitions by month, with the text column (an ISO date or time) they are ranged on. */
export const MONTHLY_TABLES = {
  spend: 'day',
  request_latency: 'day',
  agent_events: 'created_at',
} as const;
export type MonthlyTable = keyof typeof MONTHLY_TABLES;

/** The partition of `table` holding month `month` (YYYY-MM): `spend_y2026m11`. */
export const partitionOf = (table: MonthlyTable, month: string): string =>
  `${table}_y${month.slice(0, 4)}m${month.slice(5, 7)}`;

/** The month (YYYY-MM) of a partition named by `partitionOf`, or undefined for another table (the default). */
export function monthOfPartition(table: MonthlyTable, name: string): string | undefined {
  const m = new RegExp(`^${table}_y(\\d{4})m(\\d{2})$`).exec(name);
  return m ? `${m[1]}-${m[2]}` : undefined;
}

/**
 * The keys of what a kind prunes, oldest first, as SQL with `@name` parameters both dialects bind
 * (`@line`: the line as ISO-8601 text, `@line_ms`: as epoch ms, `@before`: usage's first kept day,
 * `@limit`). Open items never match: a queued or running agent run's events, a pending or running
 * monitor run, a pending delivery, a working task, an active crawl's frontier.
 */
export const PRUNE_KEYS: Record<Exclude<StoreKind, 'usage'>, { keys: string; from: string; order: string }> = {
  agentEvents: {
    keys: 'e.run_id, e.seq',
    from: `agent_runs r JOIN agent_events e ON e.run_id = r.id
      WHERE r.status NOT IN ('queued', 'running') AND r.updated_at < @line`,
    order: 'r.updated_at, e.run_id, e.seq',
  },
  monitorRuns: {
    // a monitor's newest completed runs stay: its next run deduplicates against them (core/monitors/run-search.ts)
    keys: 'r.seq',
    from: `monitor_runs r WHERE r.status NOT IN ('pending', 'running') AND r.updated_at < @line
      AND r.seq NOT IN (SELECT k.seq FROM monitor_runs k WHERE k.monitor_id = r.monitor_id AND k.status = 'completed'
        ORDER BY k.seq DESC LIMIT 5)`,
    order: 'r.seq',
  },
  deliveries: {
    keys: 'd.seq',
    from: `webhook_deliveries d WHERE d.status <> 'pending' AND d.created_at < @line`,
    order: 'd.seq',
  },
  mcpTasks: {
    keys: 't.id',
    from: `mcp_tasks t WHERE t.status NOT IN ('working', 'input_required') AND t.expires_ms < @line_ms`,
    order: 't.id',
  },
  mcpSnapshots: { keys: 's.id', from: 'mcp_snapshots s WHERE s.expires_ms < @line_ms', order: 's.id' },
  crawlFrontier: {
    keys: 'f.id',
    from: `crawl_jobs j JOIN crawl_frontier f ON f.job_id = j.id
      WHERE j.state = 'finished' AND j.updated_at < @line`,
    order: 'f.id',
  },
};

/** A batch of a kind's keys (at most `@limit`). */
export const batchOf = (kind: Exclude<StoreKind, 'usage'>): string =>
  `SELECT ${PRUNE_KEYS[kind].keys} FROM ${PRUNE_KEYS[kind].from} ORDER BY ${PRUNE_KEYS[kind].order} LIMIT @limit`;

/** How many rows of a kind are past the line. */
export const countOf = (kind: Exclude<StoreKind, 'usage'>): string =>
  `SELECT COUNT(*) AS n FROM ${PRUNE_KEYS[kind].from}`;

/** The daily usage tables and their monthly twins: what a fold reads, groups by and adds up. */
export const USAGE_TABLES = [
  { daily: 'spend', monthly: 'usage_months', key: ['key_id', 'day', 'operation'], group: ['operation'], sums: ['requests', 'micros'] },
  { daily: 'request_latency', monthly: 'latency_months', key: ['key_id', 'day', 'operation', 'bucket'], group: ['operation', 'bucket'], sums: ['requests'] },
] as const; // prettier-ignore
export type UsageTable = (typeof USAGE_TABLES)[number];

/**
 * The statement folding the rows of `rows` (a subquery or a table of `t.daily`'s rows) into `t.monthly`:
 * grouped by team, key, month and the rest of the key, added to what the month already holds.
 */
export function foldSql(t: UsageTable, rows: string): string {
  const group = ['team_id', 'key_id', 'substr(day, 1, 7)', ...t.group].join(', ');
  const sums = t.sums.map((c) => `SUM(${c})`).join(', ');
  const add = t.sums.map((c) => `${c} = ${t.monthly}.${c} + excluded.${c}`).join(', ');
  return `INSERT INTO ${t.monthly} (team_id, key_id, month, ${t.group.join(', ')}, ${t.sums.join(', ')})
    SELECT ${group}, ${sums} FROM ${rows} AS folded WHERE true GROUP BY ${group}
    ON CONFLICT (team_id, key_id, month, ${t.group.join(', ')}) DO UPDATE SET ${add}`;
}

/** A batch of `t.daily`'s rows before `@before`, in key order (the same rows when read twice in a transaction). */
export const usageBatch = (t: UsageTable, columns: string): string =>
  `SELECT ${columns} FROM ${t.daily} WHERE day < @before ORDER BY day, ${t.key.filter((k) => k !== 'day').join(', ')} LIMIT @limit`;

/** Where a kind's batch is deleted: its table, the key its batch names, and rows of other tables that go first. */
export const PRUNED_ROWS: Record<Exclude<StoreKind, 'usage'>, { table: string; key: string; children?: string }> = {
  agentEvents: { table: 'agent_events', key: '(run_id, seq)' },
  monitorRuns: { table: 'monitor_runs', key: 'seq' },
  deliveries: { table: 'webhook_deliveries', key: 'seq', children: 'webhook_attempts WHERE delivery_seq' },
  mcpTasks: { table: 'mcp_tasks', key: 'id' },
  mcpSnapshots: { table: 'mcp_snapshots', key: 'id' },
  crawlFrontier: { table: 'crawl_frontier', key: 'id' },
};

/** The parameters of a kind's statements at line `lineMs`. */
export const lineParams = (lineMs: number, limit: number) => ({
  line: new Date(lineMs).toISOString(),
  line_ms: lineMs,
  before: usageBefore(lineMs),
  limit,
});
