/**
 * The contract of leasing in the store, the same on SQLite (../sqlite/leases.ts) and PostgreSQL
 * (../pg/leases.ts): a leased table names its columns once, and gets its renewal, its lapsed rows, its
 * claims and its releases written once per dialect. A kind adds only what is its own (the status it
 * claims from and moves to, its fairness rule) as SQL fragments with `@name` parameters, which both
 * dialects read alike.
 */
/** A leased table: where its lease lives and when a row is open (may still be worked). */
export interface LeaseTable {
  table: string;
  /** The key column (`id`, or `seq` for deliveries). */
  key: string;
  /** An SQL condition, without parameters, true while a row is open. */
  open: string;
  /** The column naming the lease's holder, which claims write and releases clear. */
  owner?: string;
  /** Only the holder (`owner`) may renew (MCP tasks, crawls): a renewal of a row taken over fails. */
  renewsOwn?: boolean;
  /** A column a row must have reached (`<= now`) to be claimed (a delivery's `next_attempt_ms`). */
  due?: string;
}

/**
 * A kind's claim: SQL fragments with `@name` parameters (the lease's own are `@key`, `@owner`, `@until`,
 * `@now` and `@gone`; a kind's are passed with the claim).
 */
export interface ClaimRule {
  /** The condition a row meets to be claimed (its status before); default: the table's open condition. */
  from?: string;
  /** What the claim sets besides the lease (its status after, its times). */
  set?: string;
  /** The kind's fairness rule: a condition true while the row's group has room (e.g. a key's share). */
  fairness?: string;
  /**
   * Only a row no one holds: never leased, its lease lapsed, or its holder is `gone` (a process on this
   * host that no longer runs). Without it the `from` condition alone decides (a status that one process
   * at a time can leave, as queued → running).
   */
  free?: boolean;
}

/** A kind's release: the holder lets a row go (or anyone, once its lease lapsed), both lease columns cleared. */
export interface ReleaseRule {
  /** The condition a row meets to be released (its status); default: the table's open condition. */
  from?: string;
  /** What the release sets besides clearing the lease (e.g. its status back to queued). */
  set?: string;
}

/** The lease a claim gives. */
export interface LeaseGrant {
  /** The new holder, written when the table has an `owner` column (kept when absent). */
  owner?: string;
  untilMs: number;
  /** Now, for a `free` claim (a lease lapsed before it is free). */
  nowMs?: number;
  /** A holder known to be gone (its process no longer runs): its lease is free though not lapsed. */
  gone?: string;
}

/** Who releases: the holder (null: nobody in particular, so only a lapsed lease is released). */
export interface LeaseHolder {
  owner: string | null;
  nowMs: number;
}

/** A kind's own parameters of a claim or a release (`@name` in its fragments). */
export type LeaseParams = Record<string, string | number | null>;

/** Claims row `key` under a rule: the claimed row, or undefined (not in the `from` state, held, or no room). */
export type Claim<R> = (key: string | number, grant: LeaseGrant, params?: LeaseParams) => Promise<R | undefined>;

/** Releases row `key` under a rule; false when it is not the holder's (nor lapsed) or not in the `from` state. */
export type Release = (key: string | number, holder: LeaseHolder, params?: LeaseParams) => Promise<boolean>;

/** One table's leases. */
export interface TableLeases<R> {
  /** Extends an open row's lease (the holder's, when `renewsOwn`); false once it ended or was taken over. */
  renew(key: string | number, holder: string | null, untilMs: number): Promise<boolean>;
  /** Open rows whose lease lapsed before `nowMs`, at most 500. */
  lapsed(nowMs: number): Promise<R[]>;
  /** Leases an open row no one holds (or whose lease lapsed) until `untilMs`: the row, or undefined. */
  claimFree(key: string | number, nowMs: number, untilMs: number): Promise<R | undefined>;
  /** The claim of a rule, its statement prepared once. */
  claim(rule: ClaimRule): Claim<R>;
  /** The release of a rule, its statement prepared once. */
  release(rule: ReleaseRule): Release;
}

/** The leased tables, named once for both dialects. */
export const LEASED = {
  agentRuns: { table: 'agent_runs', key: 'id', open: "status IN ('queued', 'running')", owner: 'owner' },
  monitorRuns: { table: 'monitor_runs', key: 'id', open: "status IN ('pending', 'running')", owner: 'owner' },
  deliveries: { table: 'webhook_deliveries', key: 'seq', open: "status = 'pending'", due: 'next_attempt_ms' },
  mcpTasks: {
    table: 'mcp_tasks',
    key: 'id',
    open: "status IN ('working', 'input_required')",
    owner: 'worker',
    renewsOwn: true,
  },
  crawlJobs: { table: 'crawl_jobs', key: 'id', open: "state = 'active'", owner: 'owner', renewsOwn: true },
  operatorJobs: { table: 'operator_jobs', key: 'id', open: "state = 'running'", owner: 'owner', renewsOwn: true },
  // a maintenance row (the retention sweep) is always there to be claimed: its claim rules say when
  maintenance: { table: 'maintenance', key: 'name', open: '1 = 1', owner: 'owner', renewsOwn: true },
} as const satisfies Record<string, LeaseTable>;

/** The SQL of a rule's statements, with `@name` parameters (each dialect binds them its own way). */
export const leaseSql = {
  renew: (t: LeaseTable) =>
    `UPDATE ${t.table} SET lease_until_ms = @until
     WHERE ${t.key} = @key${t.renewsOwn ? ` AND ${t.owner} = @owner` : ''} AND ${t.open}`,
  lapsed: (t: LeaseTable) => `SELECT * FROM ${t.table} WHERE ${t.open} AND lease_until_ms < @now LIMIT 500`,
  claim(t: LeaseTable, rule: ClaimRule): string {
    const set = [
      'lease_until_ms = @until',
      ...(t.owner ? [`${t.owner} = COALESCE(@owner, ${t.owner})`] : []),
      ...(rule.set ? [rule.set] : []),
    ];
    const gone = t.owner ? ` OR ${t.owner} = @gone` : '';
    const where = [
      `${t.key} = @key`,
      rule.from ?? t.open,
      ...(t.due ? [`${t.due} <= @now`] : []),
      ...(rule.free ? [`(lease_until_ms IS NULL OR lease_until_ms < @now${gone})`] : []),
      ...(rule.fairness ? [rule.fairness] : []),
    ];
    return `UPDATE ${t.table} SET ${set.join(', ')} WHERE ${where.join(' AND ')} RETURNING *`;
  },
  release(t: LeaseTable, rule: ReleaseRule): string {
    const set = ['lease_until_ms = NULL', ...(t.owner ? [`${t.owner} = NULL`] : []), ...(rule.set ? [rule.set] : [])];
    const held = t.owner ? `(${t.owner} = @owner OR lease_until_ms < @now)` : 'lease_until_ms < @now';
    return `UPDATE ${t.table} SET ${set.join(', ')} WHERE ${t.key} = @key AND ${rule.from ?? t.open} AND ${held}`;
  },
  /** The values of a claim's parameters, by name: the lease's and the kind's. */
  claimValues: (key: string | number, grant: LeaseGrant, params: LeaseParams = {}): LeaseParams => ({
    ...params,
    key,
    owner: grant.owner ?? null,
    until: grant.untilMs,
    now: grant.nowMs ?? null,
    gone: grant.gone ?? null,
  }),
  /** The values of a release's parameters, by name. */
  releaseValues: (key: string | number, holder: LeaseHolder, params: LeaseParams = {}): LeaseParams => ({
    ...params,
    key,
    owner: holder.owner,
    now: holder.nowMs,
  }),
};
