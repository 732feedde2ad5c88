/**
 * The in-process side of MCP tasks in one Trawl process: the work it runs, each with an AbortController,
 * a lease renewed while it works, and a frequent look at the row so that a cancel written by another
 * process (stateless HTTP behind a load balancer) aborts the work here.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { McpTasksRepo } from '../../store/contracts/mcp-tasks.js';
import { interrupted } from './objects.js';

/** How long a worker's lease lasts; a task whose lease lapsed is read as interrupted. */
export const TASK_LEASE_MS = 30_000;
/** How often a worker looks at its tasks' rows (a cancel from elsewhere aborts within this). */
export const TASK_CHECK_MS = 250;

/** What a task engine works with: the rows, the clock, and (for tests) its lease and check intervals. */
export interface TaskEngineDeps {
  repo: McpTasksRepo;
  now: () => number;
  /** Default TASK_LEASE_MS and TASK_CHECK_MS. */
  leaseMs?: number;
  checkMs?: number;
}

/** The tasks this process works on. */
export interface TaskEngine {
  /** This process's worker id (written on the rows it works). */
  readonly worker: string;
  /** The lease a new task starts with. */
  leaseUntil(): number;
  /**
   * Runs `work` for task `id` with a signal that aborts on `abort(id)` here, or when the row is no longer
   * open or no longer this worker's (a cancel from another process). Never rejects.
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

/** A task engine for one process (one per data directory and process; see `taskEngineFor`). */
export function createTaskEngine(deps: TaskEngineDeps): TaskEngine {
  const leaseMs = deps.leaseMs ?? TASK_LEASE_MS;
  const checkMs = deps.checkMs ?? TASK_CHECK_MS;
  const worker = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const active = new Map<string, { controller: AbortController; renewAt: number }>();
  const idle: (() => void)[] = [];
  let timer: NodeJS.Timeout | undefined;

  /** Renews leases that are due and aborts work whose row ended elsewhere; a closed database ends nothing. */
  const checkAll = async () => {
    const now = deps.now();
    for (const [id, entry] of [...active]) {
      try {
        const renew = now >= entry.renewAt;
        const open = renew ? await deps.repo.renewLease(id, worker, now + leaseMs) : await isOpen(deps.repo, id);
        if (renew) entry.renewAt = now + leaseMs / 3;
        if (!open) entry.controller.abort(new Error('the task ended elsewhere (cancelled)'));
      } catch {
        // the store is closing with the process: the lease lapses and a reader reports the interruption
      }
    }
  };
  // one check at a time: a slow store skips a beat rather than piling checks up
  let checking = false;
  const check = () => {
    if (checking) return;
    checking = true;
    void checkAll().finally(() => (checking = false));
  };

  const release = (id: string) => {
    active.delete(id);
    if (active.size > 0) return;
    clearInterval(timer);
    timer = undefined;
    for (const resolve of idle.splice(0)) resolve();
  };

  return {
    worker,
    leaseUntil: () => deps.now() + leaseMs,
    run(id, work) {
      const controller = new AbortController();
      active.set(id, { controller, renewAt: deps.now() + leaseMs / 3 });
      if (!timer) {
        timer = setInterval(check, checkMs);
        timer.unref();
      }
      void work(controller.signal)
        .catch(() => undefined)
        .finally(() => release(id));
    },
    abort(id, reason) {
      const entry = active.get(id);
      entry?.controller.abort(new Error(reason));
      return entry !== undefined;
    },
    has: (id) => active.has(id),
    async stop() {
      for (const [id, entry] of [...active]) {
        try {
          await deps.repo.end(id, { ...interrupted(id), nowMs: deps.now() });
        } catch {
          // the store closed first: the lease lapses and a reader reports the interruption
        }
        entry.controller.abort(new Error('the server is stopping'));
      }
    },
    drain: () => (active.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
  };
}

async function isOpen(repo: McpTasksRepo, id: string): Promise<boolean> {
  const status = await repo.statusOf(id);
  return status === 'working' || status === 'input_required';
}
