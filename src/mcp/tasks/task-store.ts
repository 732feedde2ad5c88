/**
 * The door's task store over the core's tasks (core/jobs/tasks.ts), bound to one owner (an API key, or
 * the local stdio user): another owner's task is "not found" for every method, whatever session asks
 * (stateless HTTP has none). Every read settles an open task first: one that follows an agent run takes
 * the run's end; one worked in-process whose worker's lease lapsed (its process died) ends `failed`,
 * interrupted. The protocol methods of both eras read it (tasks/handlers.ts).
 */
import { ProtocolError, ProtocolErrorCode, type Result, type Task } from '@modelcontextprotocol/server';
import type { Caller } from '../../core/context.js';
import { decodeCursor, encodeCursor } from '../../core/cursors.js';
import type { TaskJobs, TaskRow, TaskStatus } from '../../core/jobs/tasks.js';
import { followRuns, type RunResult, type RunsOfTasks } from './agent-run-task.js';
import { LIST_PAGE, ownerOf, textResult, toTask, ttlFor } from './objects.js';
import type { TaskRules } from './objects.js';

export { INTERRUPTED } from './objects.js';

/** What a task store reads and acts on. */
export interface TaskStoreDeps {
  /** The tasks of this process: their rows and its in-process work (a task it works on is never read as interrupted). */
  tasks: TaskJobs;
  agentRuns: RunsOfTasks;
  /** The tool result of an ended agent run. */
  runResult: RunResult;
  /** The TTL granted and the cap on open tasks (TRAWL_MCP_TASK_TTL_MS, TRAWL_MCP_TASK_MAX_TTL_MS, TRAWL_MCP_MAX_TASKS). */
  rules: TaskRules;
}

/** The task store of `caller`'s tasks, with its owner and the settling read the door uses. */
export interface OwnedTaskStore {
  readonly owner: string;
  /** The owner's task as the wire shows it (2025-11-25 shape); undefined for another owner's or an unknown id. */
  getTask(taskId: string): Promise<Task | undefined>;
  /**
   * The stored result of an ended task.
   * @throws ProtocolError InvalidParams (not found), InvalidRequest (not ended yet).
   */
  getTaskResult(taskId: string): Promise<Result>;
  /**
   * Cancels an open task (its agent run, or its work wherever it runs); a task that has ended stays as it is.
   * @throws ProtocolError InvalidParams for a task not found.
   */
  cancelTask(taskId: string, statusMessage: string): Promise<TaskRow>;
  /** A page of the owner's tasks (newest first), continued by `nextCursor`. */
  listTasks(cursor: string | undefined): Promise<{ tasks: Task[]; nextCursor?: string }>;
  /** The wire task of a settled row (an open one's status message may be its agent run's). */
  task(row: TaskRow): Task;
  /** The owner's task row, settled (see the module comment); undefined for another owner's or an unknown id. */
  read(taskId: string): Promise<TaskRow | undefined>;
  /** Deletes expired tasks of every owner (see TaskJobs.sweep). */
  sweep(): Promise<void>;
  /**
   * Checks that the owner may open one more task.
   * @throws ProtocolError InvalidRequest naming TRAWL_MCP_MAX_TASKS when `rules.maxOpen` of its tasks are open.
   */
  requireRoom(): Promise<void>;
  /** The TTL a new task gets for the one asked (see `ttlFor`). */
  ttlFor(asked: number | null | undefined): number;
}

const isOpen = (status: TaskStatus) => status === 'working' || status === 'input_required';
/** The error for a task another owner's, expired, or never made. */
export const notFound = (taskId: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId}`);

/** The task store of `caller` (owner: its key id, or 'local'). */
export function createTaskStore(deps: TaskStoreDeps, caller: Caller | null): OwnedTaskStore {
  const { tasks } = deps;
  const owner = ownerOf(caller);
  /** Working status messages computed at read time (an agent run's status), by task id. */
  const live = new Map<string, string>();
  const runs = followRuns(deps.agentRuns, caller, deps.runResult);

  const settle = async (row: TaskRow): Promise<TaskRow> => {
    if (!isOpen(row.status) || !row.run_id) return tasks.settleLapsed(row);
    const state = await runs.state(row.run_id);
    if (state.open) {
      live.set(row.id, state.statusMessage);
      return row;
    }
    await tasks.end(row.id, state.end);
    return (await tasks.get(row.id, owner))!;
  };

  const read = async (taskId: string) => {
    const row = await tasks.get(taskId, owner);
    return row && settle(row);
  };
  const task = (row: TaskRow) =>
    toTask(row, isOpen(row.status) ? (live.get(row.id) ?? row.status_message) : row.status_message);

  /** Ends an open task as cancelled, stopping its work: the agent run it follows, or the work in any process. */
  const cancel = async (row: TaskRow, statusMessage: string) => {
    if (row.run_id) {
      await tasks.end(row.id, await runs.cancel(row.run_id));
      return;
    }
    const result = textResult(`Task ${row.id} was cancelled (${statusMessage}); its work stopped before it finished.`);
    await tasks.cancel(row.id, { status: 'cancelled', statusMessage, result: JSON.stringify(result) });
  };

  const requireRoom = async () => {
    const open = await tasks.countOpen(owner);
    if (open < deps.rules.maxOpen) return;
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `RATE_LIMIT_EXCEEDED: ${owner === 'local' ? 'this server' : `API key ${owner}`} has ${open} MCP tasks open, ` +
        `the most it may (TRAWL_MCP_MAX_TASKS=${deps.rules.maxOpen}); wait for one to end (tasks/result) or ` +
        'cancel one (tasks/cancel), or call the tool without task',
    );
  };

  return {
    owner,
    read,
    sweep: () => tasks.sweep(),
    requireRoom,
    ttlFor: (asked) => ttlFor(asked, deps.rules),
    task,
    async getTask(taskId) {
      const row = await read(taskId);
      return row ? task(row) : undefined;
    },
    async getTaskResult(taskId) {
      const row = await read(taskId);
      if (!row) throw notFound(taskId);
      if (!row.result) {
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Task ${taskId} is ${row.status}: no result yet`);
      }
      return JSON.parse(row.result) as Result;
    },
    async cancelTask(taskId, statusMessage) {
      const row = await read(taskId);
      if (!row) throw notFound(taskId);
      if (isOpen(row.status)) await cancel(row, statusMessage);
      return (await read(taskId)) ?? row;
    },
    async listTasks(cursor) {
      await tasks.sweep();
      const rows = await tasks.page(owner, decodeCursor('t', cursor), LIST_PAGE + 1);
      const kept = await Promise.all(rows.slice(0, LIST_PAGE).map(settle));
      const more = rows.length > LIST_PAGE;
      return { tasks: kept.map(task), ...(more ? { nextCursor: encodeCursor('t', kept.at(-1)!.seq) } : {}) };
    },
  };
}
