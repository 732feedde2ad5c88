/**
 * The owner-bound MCP task store and the task engine on a real app's SQLite (a clock the test moves):
 * ownership, interrupted work, a cancel written by another process stopping the work, expiry, paging,
 * and the TTL and wording rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src/core/context.js';
import { createMcpTasksRepo } from '../../../src/store/sqlite/mcp-tasks.js';
import { createTaskJobs, type TaskJobs as TaskEngine } from '../../../src/core/jobs/tasks.js';
import { MIN_TTL_MS, endOf, pollFor, ttlFor } from '../../../src/mcp/tasks/objects.js';
import { createTaskStore, INTERRUPTED, type OwnedTaskStore } from '../../../src/mcp/tasks/task-store.js';
import { TASK_NO_SAMPLING, withTaskReason } from '../../../src/mcp/tasks/tasks.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import type { McpTasksRepo } from '../../../src/store/contracts/mcp-tasks.js';

let nowMs = Date.parse('2026-03-01T12:00:00Z');
const now = () => nowMs;
let t: TestApp;
let repo: McpTasksRepo;
const engines: TaskEngine[] = [];

const caller = (keyId: string): Caller => ({ keyId, keyName: keyId, teamId: 'team', scopes: null, qps: null, enterprise: false, zeroRetention: false }); // prettier-ignore
const render = () => ({ content: [{ type: 'text' as const, text: 'run ended' }] });
/** The settings' defaults: 10 min TTL, at most 1 h, 32 open tasks per owner. */
const rules = { defaultTtlMs: 600_000, maxTtlMs: 3_600_000, maxOpen: 32 };

/** A store for `keyId` with its own engine (a process of its own, as far as leases go). */
function storeFor(keyId: string | null): { store: OwnedTaskStore; engine: TaskEngine } {
  const engine = createTaskJobs({ repo, now, checkMs: 20 });
  engines.push(engine);
  const deps = { tasks: engine, agentRuns: t.app.services.agentRuns, runResult: render, rules };
  return { store: createTaskStore(deps, keyId === null ? null : caller(keyId)), engine };
}
/** Opens a task of `store`'s owner, as a task-augmented call does (its work is not run here). */
async function create(store: OwnedTaskStore, ttl?: number) {
  const engine = engines.at(-1)!;
  const id = await engine.open({ owner: store.owner, tool: 'search', ttlMs: ttlFor(ttl, rules), pollIntervalMs: pollFor(undefined), inProcess: false }); // prettier-ignore
  return (await store.getTask(id))!;
}
/** Ends an open task with `result`, as its work does. */
const finish = (taskId: string, result: { content: { type: 'text'; text: string }[] }) =>
  engines.at(-1)!.end(taskId, { ...endOf(result), result: JSON.stringify(result) });

beforeAll(() => {
  t = makeTestApp({}, { clock: { now: () => new Date(nowMs) } });
  repo = createMcpTasksRepo(t.app.db);
});
afterAll(async () => {
  await Promise.all(engines.map((e) => e.drain()));
  await t.close();
});

describe('task store', () => {
  it('keeps each owner’s tasks to that owner: another key finds nothing to read, list or cancel', async () => {
    const a = storeFor('key_a').store;
    const b = storeFor('key_b').store;
    const task = await create(a);
    expect(task).toMatchObject({ status: 'working', ttl: rules.defaultTtlMs, pollInterval: 500 });
    expect(await b.getTask(task.taskId)).toBeUndefined();
    await expect(b.getTaskResult(task.taskId)).rejects.toThrow(/Task not found/);
    await expect(b.cancelTask(task.taskId, 'cancelled')).rejects.toThrow(/Task not found/);
    expect((await b.listTasks(undefined)).tasks.map((x) => x.taskId)).not.toContain(task.taskId);
    expect((await a.listTasks(undefined)).tasks.map((x) => x.taskId)).toContain(task.taskId);
    expect(await storeFor(null).store.getTask(task.taskId)).toBeUndefined(); // the local stdio user is an owner too
    await finish(task.taskId, { content: [{ type: 'text', text: 'done' }] });
    expect(await a.getTaskResult(task.taskId)).toEqual({ content: [{ type: 'text', text: 'done' }] });
  });

  it('reads work whose worker’s lease lapsed as failed, interrupted, unless this process still works on it', async () => {
    const { store, engine } = storeFor('key_c');
    await repo.insert({ id: 'task_dead', owner: 'key_c', tool: 'search', ttlMs: MIN_TTL_MS, pollIntervalMs: 500, nowMs, worker: 'gone:1', leaseUntilMs: nowMs - 1 }); // prettier-ignore
    const dead = await store.getTask('task_dead');
    expect(dead).toMatchObject({ status: 'failed', statusMessage: INTERRUPTED });
    expect(INTERRUPTED).toMatch(/^interrupted by a restart/);
    expect(await store.getTaskResult('task_dead')).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('interrupted by a restart') }] }); // prettier-ignore

    await repo.insert({ id: 'task_mine', owner: 'key_c', tool: 'search', ttlMs: MIN_TTL_MS, pollIntervalMs: 500, nowMs, worker: engine.worker, leaseUntilMs: nowMs - 1 }); // prettier-ignore
    let release!: () => void;
    engine.run('task_mine', () => new Promise<void>((resolve) => (release = resolve)));
    expect(await store.getTask('task_mine')).toMatchObject({ status: 'working' });
    release();
  });

  it('stops work in one process when another process cancels its task', async () => {
    const worker = storeFor('key_d');
    const other = storeFor('key_d');
    await repo.insert({ id: 'task_far', owner: 'key_d', tool: 'search', ttlMs: MIN_TTL_MS, pollIntervalMs: 500, nowMs, worker: worker.engine.worker, leaseUntilMs: nowMs + 30_000 }); // prettier-ignore
    const aborted = new Promise<string>((resolve) => {
      worker.engine.run('task_far', (signal) => new Promise<void>((done) => signal.addEventListener('abort', () => (resolve(String(signal.reason)), done())))); // prettier-ignore
    });
    await other.store.cancelTask('task_far', 'Client cancelled task execution.');
    expect(other.engine.has('task_far')).toBe(false);
    expect(await aborted).toMatch(/cancelled/);
    expect(await worker.store.getTask('task_far')).toMatchObject({ status: 'cancelled', statusMessage: 'Client cancelled task execution.' }); // prettier-ignore
    await worker.engine.drain();
  });

  it('ends the work of a stopping process at once, as interrupted, and aborts it', async () => {
    const { store, engine } = storeFor('key_f');
    await repo.insert({ id: 'task_stop', owner: 'key_f', tool: 'search', ttlMs: MIN_TTL_MS, pollIntervalMs: 500, nowMs, worker: engine.worker, leaseUntilMs: nowMs + 30_000 }); // prettier-ignore
    const aborted = new Promise<string>((resolve) => {
      engine.run('task_stop', (signal) => new Promise<void>((done) => signal.addEventListener('abort', () => (resolve(String(signal.reason)), done())))); // prettier-ignore
    });
    await engine.stop();
    expect(await aborted).toMatch(/stopping/);
    expect(await store.getTask('task_stop')).toMatchObject({ status: 'failed', statusMessage: INTERRUPTED });
    await engine.drain();
  });

  it('deletes an ended task once its TTL has passed since it ended, and pages the list newest first', async () => {
    const { store } = storeFor('key_e');
    const ended = await create(store, 1000);
    expect(ended.ttl).toBe(MIN_TTL_MS);
    await finish(ended.taskId, { content: [] });
    nowMs += MIN_TTL_MS - 1000;
    expect(await store.getTask(ended.taskId)).toBeDefined();
    for (let i = 0; i < 22; i++) await create(store);
    nowMs += 2000;
    const first = await store.listTasks(undefined);
    expect(await store.getTask(ended.taskId)).toBeUndefined();
    expect(first.tasks).toHaveLength(20);
    const second = await store.listTasks(first.nextCursor);
    expect(second.tasks).toHaveLength(2);
    expect(second.nextCursor).toBeUndefined();
    const ids = [...first.tasks, ...second.tasks].map((x) => x.taskId);
    expect(new Set(ids).size).toBe(22);
    await expect(store.listTasks('bm90LWEtY3Vyc29y')).rejects.toThrow(/cursor/);
  });
});

describe('task rules', () => {
  it('grants a TTL between a minute and the configured cap, the configured default when none, and bounds the poll interval', () => {
    expect(ttlFor(undefined, rules)).toBe(600_000);
    expect(ttlFor(5, rules)).toBe(MIN_TTL_MS);
    expect(ttlFor(86_400_000, rules)).toBe(3_600_000);
    expect(ttlFor(30 * 60_000, rules)).toBe(30 * 60_000);
    expect(ttlFor(undefined, { defaultTtlMs: 7_200_000, maxTtlMs: 3_600_000 })).toBe(3_600_000); // the default stays under the cap
    expect(pollFor(1)).toBe(100);
    expect(pollFor(undefined)).toBe(500);
  });

  it('ends a task failed for an error result, with its first line', () => {
    expect(endOf({ content: [{ type: 'text', text: 'ok' }] })).toEqual({ status: 'completed', statusMessage: null });
    expect(endOf({ isError: true, content: [{ type: 'text', text: 'NOT_FOUND: x\nmore' }] })).toEqual({ status: 'failed', statusMessage: 'NOT_FOUND: x' }); // prettier-ignore
  });

  it('says why a task cannot use the client’s model when a model was missing, and leaves other errors alone', () => {
    const missing = { isError: true, content: [{ type: 'text' as const, text: 'FEATURE_DISABLED: summary.schema needs a language model' }] }; // prettier-ignore
    const text = (withTaskReason(missing).content[0] as { text: string }).text;
    expect(text.startsWith(`FEATURE_DISABLED: ${TASK_NO_SAMPLING}`)).toBe(true);
    expect(text).toContain('(summary.schema needs a language model)');
    const other = { isError: true, content: [{ type: 'text' as const, text: 'FEATURE_DISABLED: events are not kept' }] }; // prettier-ignore
    expect(withTaskReason(other)).toBe(other);
  });
});
