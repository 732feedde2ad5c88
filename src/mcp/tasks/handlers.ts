/**
 * The task methods of both protocol revisions, on one server, over the owner-bound store (task-store.ts).
 * The SDK (v2) runs no tasks itself, so the door registers them as request handlers:
 *
 * - 2025-11-25 (core tasks): `tasks/get` and `tasks/cancel` answer the task, `tasks/result` waits for
 *   its end and answers its result, `tasks/list` pages the caller's tasks.
 * - 2026-07-28 (the `io.modelcontextprotocol/tasks` extension, SEP-2663): `tasks/get` answers the task
 *   with its result (or error) inline, `tasks/update` acknowledges input responses (a Trawl task never
 *   asks for input), `tasks/cancel` acknowledges and cancels; no `tasks/list`, no `tasks/result`.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type Result,
  type Server,
  type Task,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { TaskRow } from '../../core/jobs/tasks.js';
import type { Era } from '../types.js';
import { notFound, type OwnedTaskStore } from './task-store.js';

const TaskIdParams = z.looseObject({ taskId: z.string() });
const ListParams = z.looseObject({ cursor: z.string().optional() });

const isTerminal = (status: string) => status === 'completed' || status === 'failed' || status === 'cancelled';

/** What a client's cancel leaves as the task's status message. */
export const CANCELLED_BY_CLIENT = 'Client cancelled task execution.';

/** Registers the task methods of `era` on `server`, reading `store` (one owner's tasks). */
export function installTaskHandlers(server: Server, era: Era, store: OwnedTaskStore): void {
  if (era === 'modern') return installExtension(server, store);
  server.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params) => {
    const task = await store.getTask(params.taskId);
    if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    return task;
  });
  server.setRequestHandler('tasks/result', { params: TaskIdParams }, async (params, ctx) => {
    const result = await waitForResult(store, params.taskId, ctx.mcpReq.signal);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId: params.taskId } } };
  });
  server.setRequestHandler('tasks/list', { params: ListParams }, async (params) => {
    const page = await store.listTasks(params.cursor);
    return { tasks: page.tasks, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
  server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params) => {
    const task = await store.getTask(params.taskId);
    if (!task) throw notFound(params.taskId);
    if (isTerminal(task.status)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${task.status}`);
    }
    return store.task(await store.cancelTask(params.taskId, CANCELLED_BY_CLIENT));
  });
}

/** The 2026-07-28 extension's methods. */
function installExtension(server: Server, store: OwnedTaskStore): void {
  server.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params) => {
    const row = await store.read(params.taskId);
    if (!row) throw notFound(params.taskId);
    return detailedTask(store.task(row), row);
  });
  server.setRequestHandler('tasks/update', { params: TaskIdParams }, async (params) => {
    // a Trawl task never asks for input (status input_required): responses have nothing to answer
    if (!(await store.read(params.taskId))) throw notFound(params.taskId);
    return {};
  });
  server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params) => {
    await store.cancelTask(params.taskId, CANCELLED_BY_CLIENT); // an ended task stays as it ended
    return {};
  });
}

/**
 * A task in the 2026-07-28 shape: `ttlMs` and `pollIntervalMs`, and once it ended, its tool result
 * inline. A tool that ran and reported a problem (`isError`) is `completed` with that result (the
 * extension keeps `failed` for protocol errors), where 2025-11-25 says `failed`.
 */
export function modernTask(task: Task): Result {
  const { ttl, pollInterval, ...rest } = task;
  return { ...rest, ttlMs: ttl ?? null, ...(pollInterval !== undefined ? { pollIntervalMs: pollInterval } : {}) };
}

function detailedTask(task: Task, row: TaskRow): Result {
  const wire = modernTask(task);
  if (!isTerminal(row.status) || !row.result) return wire;
  const result = JSON.parse(row.result) as CallToolResult;
  if (row.status === 'cancelled') return wire;
  return { ...wire, status: 'completed', result };
}

/** Waits (polling the store at the task's interval) until the task ends; its stored result. */
async function waitForResult(store: OwnedTaskStore, taskId: string, signal: AbortSignal): Promise<Result> {
  for (;;) {
    const row = await store.read(taskId);
    if (!row) throw notFound(taskId);
    if (isTerminal(row.status)) return store.getTaskResult(taskId);
    await sleep(Math.min(1000, Math.max(100, row.poll_interval_ms)), signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    const abort = () => {
      done();
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
