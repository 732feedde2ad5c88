/**
 * Tasks as a kind of job: a tool call that runs on after its request (the MCP door presents them as MCP
 * tasks, src/mcp/tasks/). Each task is a row of `mcp_tasks` read only through its owner; one worked in
 * this process holds a lease (the lease engine, looked at every `checkMs` so that a cancel written by
 * another process aborts the work here), and one whose worker's lease lapsed is read as interrupted.
 * A task that follows an agent run holds no lease: the run is the job (core/agent/agent-runs.engine.ts).
 */
import { randomBytes } from 'node:crypto';
import { createLeaseEngine } from './lease-engine.js';
import type {
  McpTaskStatus,
  McpTasksRepo,
  McpTaskEnd,
  McpTaskEndStatus,
  McpTaskRow,
} from '../../store/contracts/mcp-tasks.js';

export type { McpTaskEndStatus as TaskEndStatus, McpTaskRow as TaskRow, McpTaskStatus as TaskStatus };

/** How long a worker's lease lasts; a task whose lease lapsed is read as interrupted. */
export const TASK_LEASE_MS = 30_000;
/** How often a worker looks at its tasks' rows (a cancel from elsewhere aborts within this). */
export const TASK_CHECK_MS = 250;
/** A task unfinished this long past its expiry is abandoned: deleted whatever its status. */
const ABANDONED_MS = 24 * 60 * 60_000;

/** The status message of a task whose worker stopped before it finished. */
export const INTERRUPTED =
  'interrupted by a restart: the Trawl process working on it stopped before it finished; call the tool again';

/** A tool result of one text, as a task stores it (MCP's CallToolResult shape). */
export type TextResult = {
  content: { type: 'text'; text: string }[];
  isError?: true;
};

/** A tool result of one text. */
export function textResult(text: string, isError = false): TextResult {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true as const } : {}) };
}

/** How a task ends: its status, message and tool result (JSON). */
export type TaskEnd = Omit<McpTaskEnd, 'nowMs'>;

/** The end of a task `id` interrupted so. */
export function interrupted(id: string): TaskEnd {
  const result = textResult(`INTERNAL_ERROR: task ${id} was ${INTERRUPTED}`, true);
  return { status: 'failed', statusMessage: INTERRUPTED, result: JSON.stringify(result) };
}

/** A new task id: `task_` and 24 hex digits. */
export function newTaskId(): string {
  return `task_${randomBytes(12).toString('hex')}`;
}

/** A task to open: whose, which tool, its TTL and poll interval, and whether this process works it. */
export interface TaskOpening {
  owner: string;
  tool: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** Worked in this process (a lease is held); false for a task that follows an agent run. */
  inProcess: boolean;
}

/** What the tasks are built on: the rows, the clock, and (for tests) the lease and check intervals. */
export interface TaskJobsDeps {
  repo: McpTasksRepo;
  now: () => number;
  /** Default TASK_LEASE_MS and TASK_CHECK_MS. */
  leaseMs?: number;
  checkMs?: number;
}

/** The tasks of one process: their rows (always through their owner) and the work this process does. */
export interface TaskJobs {
  /** This process's worker id (written on the rows it works). */
  readonly worker: string;
  /** Opens a `working` task; its id. */
  open(task: TaskOpening): Promise<string>;
  /** The owner's task as stored; undefined for an unknown id or another owner's. */
  get(id: string, owner: string): Promise<McpTaskRow | undefined>;
  /**
   * An open in-process task whose worker's lease lapsed (its process died) and that this process does
   * not work on, ended failed, interrupted; any other row as it is.
   */
  settleLapsed(row: McpTaskRow): Promise<McpTaskRow>;
  /** The owner's tasks with `seq < before`, newest first. */
  page(owner: string, before: number, limit: number): Promise<McpTaskRow[]>;
  /** Links the agent run an open task follows; false when the task ended meanwhile (a cancel). */
  linkRun(id: string, runId: string): Promise<boolean>;
  /** Sets an open task's status message; false once it ended. */
  note(id: string, message: string): Promise<boolean>;
  /** Ends an open task; false when it had ended already (the first end wins). */
  end(id: string, end: TaskEnd): Promise<boolean>;
  /** Ends an open task as cancelled and aborts its work here (elsewhere, its worker sees the row). */
  cancel(id: string, end: TaskEnd): Promise<boolean>;
  /** The owner's open tasks not abandoned by a dead worker (what TRAWL_MCP_MAX_TASKS caps). */
  countOpen(owner: string): Promise<number>;
  /** Deletes expired tasks of every owner, and open ones a day past their expiry (abandoned). */
  sweep(): Promise<void>;
  /**
   * Runs `work` for task `id` under this process's lease, with a signal that aborts on a cancel here or
   * when the row is no longer open or no longer this worker's (a cancel from another process). Never rejects.
   */
  run(id: string, work: (signal: AbortSignal) => Promise<void>): void;
  /** Aborts task `id` if this process works on it; true when it did. */
  abort(id: string, reason: string): boolean;
  /** Whether this process works on task `id`. */
  has(id: string): boolean;
  /**
   * Stops all work of this process (it is shutting down): each task ends failed, interrupted, at once
   * rather than when its lease lapses, and its work is aborted.
   */
  stop(): Promise<void>;
  /** Resolves when this process works on nothing. */
  drain(): Promise<void>;
}

const isOpen = (status: McpTaskStatus | undefined) => status === 'working' || status === 'input_required';

/** The tasks of one process (one per app). */
export function createTaskJobs(deps: TaskJobsDeps): TaskJobs {
  const { repo, now } = deps;
  const leaseMs = deps.leaseMs ?? TASK_LEASE_MS;
  const leases = createLeaseEngine({
    store: {
      renew: (id, worker, untilMs) => repo.renewLease(id, worker, untilMs),
      isOpen: async (id) => isOpen(await repo.statusOf(id)),
    },
    now,
    leaseMs,
    checkMs: deps.checkMs ?? TASK_CHECK_MS,
    lostReason: 'the task ended elsewhere (cancelled)',
    // the store is closing with the process: the lease lapses and a reader reports the interruption
  });
  const end = (id: string, e: TaskEnd) => repo.end(id, { ...e, nowMs: now() });

  return {
    worker: leases.owner,
    async open(task) {
      const id = newTaskId();
      await repo.insert({
        id,
        owner: task.owner,
        tool: task.tool,
        ttlMs: task.ttlMs,
        pollIntervalMs: task.pollIntervalMs,
        nowMs: now(),
        worker: task.inProcess ? leases.owner : null,
        leaseUntilMs: task.inProcess ? leases.leaseUntil() : null,
      });
      return id;
    },
    get: (id, owner) => repo.get(id, owner),
    async settleLapsed(row) {
      if (!isOpen(row.status) || row.run_id || !row.worker) return row;
      if ((row.lease_until_ms ?? Infinity) >= now() || leases.has(row.id)) return row;
      await end(row.id, interrupted(row.id));
      return (await repo.get(row.id, row.owner))!;
    },
    page: (owner, before, limit) => repo.page(owner, before, limit),
    linkRun: (id, runId) => repo.linkRun(id, runId, now()),
    note: (id, message) => repo.note(id, message, now()),
    end,
    async cancel(id, e) {
      if (!(await end(id, e))) return false;
      leases.abort(id, 'cancelled'); // elsewhere, the worker sees the row at its next check
      return true;
    },
    countOpen: (owner) => repo.countOpen(owner, now()),
    sweep: async () => void (await repo.deleteExpired(now(), ABANDONED_MS)),
    run(id, work) {
      const held = leases.hold(id);
      void work(held.signal)
        .catch(() => undefined)
        .finally(() => {
          held.release();
          leases.settle();
        });
    },
    abort: (id, reason) => leases.abort(id, reason),
    has: (id) => leases.has(id),
    async stop() {
      for (const id of leases.ids()) {
        try {
          await end(id, interrupted(id));
        } catch {
          // the store closed first: the lease lapses and a reader reports the interruption
        }
        leases.abort(id, 'the server is stopping');
      }
    },
    drain: () => leases.idle(),
  };
}
