/**
 * The contract of the MCP tasks store: one row per task, read only through its owner; a task ends once
 * (sqlite/mcp-tasks.ts, pg/mcp.ts).
 */

/** A task's status (the spec's five). */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The statuses a task ends in. */
export type McpTaskEndStatus = 'completed' | 'failed' | 'cancelled';

/** A task as stored. */
export interface McpTaskRow {
  seq: number;
  id: string;
  owner: string;
  tool: string;
  status: McpTaskStatus;
  status_message: string | null;
  ttl_ms: number;
  poll_interval_ms: number;
  created_at: string;
  last_updated_at: string;
  updated_ms: number;
  /** When the row may be deleted: creation + TTL while open, end + TTL once ended. */
  expires_ms: number;
  /** The CallToolResult as JSON, once ended. */
  result: string | null;
  run_id: string | null;
  worker: string | null;
  lease_until_ms: number | null;
}

/** A new task, `working` from its creation. */
export interface NewMcpTask {
  id: string;
  owner: string;
  tool: string;
  ttlMs: number;
  pollIntervalMs: number;
  nowMs: number;
  /** The process doing the work in-process, with its first lease; null for a task that follows an agent run. */
  worker: string | null;
  leaseUntilMs: number | null;
}

/** How a task ended. */
export interface McpTaskEnd {
  status: McpTaskEndStatus;
  statusMessage: string | null;
  /** The CallToolResult as JSON. */
  result: string;
  nowMs: number;
}

/** The store of MCP tasks; every method is one atomic statement. */
export interface McpTasksRepo {
  insert(task: NewMcpTask): Promise<void>;
  /** The owner's task; undefined for an unknown id or another owner's task. */
  get(id: string, owner: string): Promise<McpTaskRow | undefined>;
  /** The owner's tasks with `seq < before`, newest first. */
  page(owner: string, before: number, limit: number): Promise<McpTaskRow[]>;
  /** Links the agent run an open task follows; false when the task ended meanwhile (a cancel). */
  linkRun(id: string, runId: string, nowMs: number): Promise<boolean>;
  /** Sets an open task's status message (its latest step); false once it ended. */
  note(id: string, message: string, nowMs: number): Promise<boolean>;
  /** Ends an open task; false when it had ended already (the first end wins). */
  end(id: string, end: McpTaskEnd): Promise<boolean>;
  /** Renews the lease of an open task this worker runs; false when it ended (a cancel) or is not its. */
  renewLease(id: string, worker: string, untilMs: number): Promise<boolean>;
  /** A task's status, whoever owns it (the worker's check for a cancel from another process). */
  statusOf(id: string): Promise<McpTaskStatus | undefined>;
  /**
   * How many of the owner's tasks are open (working or input_required) and not abandoned by a dead worker
   * (a lease lapsed before `nowMs`): what `TRAWL_MCP_MAX_TASKS` caps.
   */
  countOpen(owner: string, nowMs: number): Promise<number>;
  /** Deletes ended tasks past their expiry, and open ones `graceMs` past it (abandoned); returns the count. */
  deleteExpired(nowMs: number, graceMs: number): Promise<number>;
}
