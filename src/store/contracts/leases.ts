/**
 * The contract of leasing in the store, the same on SQLite (../sqlite/leases.ts) and PostgreSQL
 * (../pg/leases.ts): a leased table names its columns once, and gets its renewal, its lapsed rows and
 * the claim of a free row written once per dialect.
 */
/** A leased table: where its lease lives and when a row is open (may still be worked). */
export interface LeaseTable {
  table: string;
  /** The key column (`id`, or `seq` for deliveries). */
  key: string;
  /** An SQL condition, without parameters, true while a row is open. */
  open: string;
  /** The column naming the lease's holder, when only the holder may renew (MCP tasks' `worker`). */
  holder?: string;
  /** A column a row must have reached (`<= now`) to be claimed (a delivery's `next_attempt_ms`). */
  due?: string;
}

/** One table's leases. */
export interface TableLeases<R> {
  /** Extends an open row's lease (the holder's, when the table has one); false once it ended. */
  renew(key: string | number, holder: string | null, untilMs: number): Promise<boolean>;
  /** Open rows whose lease lapsed before `nowMs`, at most 500. */
  lapsed(nowMs: number): Promise<R[]>;
  /** Leases an open row no one holds (or whose lease lapsed) until `untilMs`: the row, or undefined. */
  claimFree(key: string | number, nowMs: number, untilMs: number): Promise<R | undefined>;
}

/** The leased tables, named once for both dialects. */
export const LEASED = {
  agentRuns: { table: 'agent_runs', key: 'id', open: "status IN ('queued', 'running')" },
  monitorRuns: { table: 'monitor_runs', key: 'id', open: "status IN ('pending', 'running')" },
  deliveries: { table: 'webhook_deliveries', key: 'seq', open: "status = 'pending'", due: 'next_attempt_ms' },
  mcpTasks: { table: 'mcp_tasks', key: 'id', open: "status IN ('working', 'input_required')", holder: 'worker' },
} as const satisfies Record<string, LeaseTable>;
