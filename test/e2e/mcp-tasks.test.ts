/**
 * MCP tasks through the SDK's real Client (in memory) on apps with a loopback model server and stored
 * pages: tools/call with `task` answering at once, tasks/get, tasks/result, tasks/list, tasks/cancel
 * stopping the work (an agent run, a deep search's model request), calls without `task` unchanged,
 * FEATURE_DISABLED inside a task where only the client's model could have answered, and work whose
 * worker's lease lapsed read as interrupted.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  type GetTaskResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/compose/app.js';
import { buildMcpServer } from '../../src/mcp/server.js';
import { createAgentRunsRepo } from '../../src/store/sqlite/agent-runs.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TOOLS = ['search', 'get_contents', 'get_code_context', 'agent_run'];
const PAGES = [
  storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', 'An undici Pool keeps sockets open to one origin and queues requests when every socket is busy.'), // prettier-ignore
  storedDoc('https://docs.example.com/undici/agent', 'The undici Agent', 'An undici Agent manages one pool per origin, so a client calling many hosts reuses connections.'), // prettier-ignore
];
const PLAN = { json: { queries: ['undici Agent per origin pools'] } };

let model: ModelServer;
let t: TestApp;
let client: Client;
const closers: (() => Promise<void>)[] = [];

/** A client of `app`'s MCP server (the local caller), offering sampling when `sample` answers it. */
async function connect(app: App, sample?: () => string): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(app, { caller: null, betas: new Set(), tools: TOOLS }).connect(serverSide);
  const c = new Client({ name: 'test', version: '1.0.0' }, { capabilities: sample ? { sampling: {} } : {} });
  if (sample) {
    c.setRequestHandler(CreateMessageRequestSchema, async () => ({ model: 'client-model', role: 'assistant', content: { type: 'text', text: sample() } })); // prettier-ignore
  }
  await c.connect(clientSide);
  closers.push(() => c.close());
  return c;
}
const startTask = (c: Client, name: string, args: Json, ttl?: number) =>
  c.request({ method: 'tools/call', params: { name, arguments: args, task: ttl ? { ttl } : {} } }, CreateTaskResultSchema); // prettier-ignore
const resultOf = async (c: Client, taskId: string) =>
  (await c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as Json;
/** Polls tasks/get (at the task's own interval) until `done`. */
async function until(c: Client, taskId: string, done: (task: GetTaskResult) => boolean): Promise<GetTaskResult> {
  for (;;) {
    const task = await c.experimental.tasks.getTask(taskId);
    if (done(task)) return task;
    await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? 100));
  }
}
/** Resolves once the model server received more than `n` requests (a request is in flight). */
async function modelAsked(n: number): Promise<void> {
  while (model.requests.length <= n) await new Promise((resolve) => setTimeout(resolve, 10));
}

beforeAll(async () => {
  model = await startModelServer({
    reply: (body) =>
      /quer/i.test(String(body.messages[0]?.content ?? '')) && /json/i.test(JSON.stringify(body))
        ? PLAN
        : 'An undici Pool keeps sockets open to one origin [1].',
  });
  t = makeTestApp({ modelBaseUrl: model.baseUrl, model: 'test-model' });
  await t.app.services.documents.upsertMany(PAGES, new Date().toISOString());
  client = await connect(t.app);
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await t.app.services.agentRuns.engine.drain();
  await t.close();
  await model.close();
});

describe('tools/call with a task', () => {
  it('advertises tasks and logging, and task support on the long tools only', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ logging: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }); // prettier-ignore
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((x) => [x.name, x.execution?.taskSupport]));
    expect(support).toEqual({ search: 'optional', get_contents: 'optional', get_code_context: undefined, agent_run: 'optional' }); // prettier-ignore
  });

  it('answers a search with its task at once; tasks/get and tasks/result give its status and answer', async () => {
    const { task } = await startTask(client, 'search', { query: 'undici pool sockets' }, 120_000);
    expect(task).toMatchObject({ taskId: expect.stringMatching(/^task_/), status: 'working', ttl: 120_000 });
    const result = await resultOf(client, task.taskId);
    expect(result.isError).toBeFalsy();
    expect(result.content[0].text).toContain('Connection pooling in undici');
    expect(result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId: task.taskId });
    const done = await client.experimental.tasks.getTask(task.taskId);
    expect(done).toMatchObject({ status: 'completed', ttl: 120_000 });
    const plain = (await client.callTool({ name: 'search', arguments: { query: 'undici pool sockets' } })) as Json;
    expect(result.structuredContent.results.map((r: Json) => r.url)).toEqual(plain.structuredContent.results.map((r: Json) => r.url)); // prettier-ignore
  });

  it('lists the caller’s tasks, newest first', async () => {
    const first = await startTask(client, 'get_contents', { urls: ['https://docs.example.com/undici/agent'] });
    const second = await startTask(client, 'search', { query: 'undici agent' });
    await resultOf(client, second.task.taskId);
    const { tasks } = await client.experimental.tasks.listTasks();
    expect(tasks.slice(0, 2).map((x) => x.taskId)).toEqual([second.task.taskId, first.task.taskId]);
    expect((await resultOf(client, first.task.taskId)).content[0].text).toContain('undici Agent manages one pool');
  });

  it('refuses a task for a tool that does not run as one', async () => {
    await expect(startTask(client, 'get_code_context', { query: 'undici' })).rejects.toThrow(/does not run as a task/);
  });
});

describe('agent_run as a task', () => {
  it('follows its run to the answer; without a task the tool still waits in its window', async () => {
    const { task } = await startTask(client, 'agent_run', { query: 'how does undici pool connections', effort: 'low' }); // prettier-ignore
    const result = await resultOf(client, task.taskId);
    expect(result.content[0].text).toContain('An undici Pool keeps sockets open to one origin');
    expect(result.structuredContent).toMatchObject({ object: 'agent_run', status: 'completed' });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed' });
    const waited = (await client.callTool({ name: 'agent_run', arguments: { query: 'undici keep-alive', effort: 'low' } })) as Json; // prettier-ignore
    expect(waited.task).toBeUndefined();
    expect(waited.structuredContent).toMatchObject({ object: 'agent_run', status: 'completed' });
  });

  it('cancels the run when the task is cancelled: the run ends cancelled and its model request is aborted', async () => {
    model.enqueue({ ...PLAN, delayMs: 20_000 });
    const asked = model.requests.length;
    const { task } = await startTask(client, 'agent_run', { query: 'slow undici question', effort: 'low' });
    const working = await until(client, task.taskId, (x) => /is running/.test(x.statusMessage ?? ''));
    expect(working).toMatchObject({ status: 'working', statusMessage: expect.stringMatching(/^agent run run_\w+ is running$/) }); // prettier-ignore
    const runId = /run_\w+/.exec(working.statusMessage!)![0];
    await modelAsked(asked);
    const aborted = model.whenAborted();
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    await aborted;
    expect((await t.app.services.agentRuns.get(runId, null)).status).toBe('cancelled');
    const result = await resultOf(client, task.taskId);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: runId, status: 'cancelled' });
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/terminal status: cancelled/);
  });
});

describe('agent_run tasks and restarts', () => {
  it('follow a run by id, and report it failed when a restart’s recovery fails it', async () => {
    const id = 'run_orphan_task';
    await createAgentRunsRepo(t.app.db).insert({ id, key_id: '', team_id: 'team_default', request: '{"query":"q","effort":"low"}', owner: null, lease_until_ms: null, created_at: new Date().toISOString() }); // prettier-ignore
    // a run of the MCP client's model cannot be resumed elsewhere: recovery fails it as interrupted
    t.app.db.prepare("UPDATE agent_runs SET status = 'running', lease_until_ms = 1, progress = '{\"starts\":1,\"clientModel\":true}' WHERE id = ?").run(id); // prettier-ignore
    const { task } = await startTask(client, 'agent_run', { runId: id });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working', statusMessage: `agent run ${id} is running` }); // prettier-ignore
    await t.app.services.agentRuns.engine.tick(); // what a restarted process does with runs whose process died
    const failed = await client.experimental.tasks.getTask(task.taskId);
    expect(failed).toMatchObject({ status: 'failed', statusMessage: `agent run ${id} failed: interrupted: the run was interrupted (its process stopped) and cannot be resumed: it used the MCP client’s model, which only the process it was created in could reach` }); // prettier-ignore
    const result = await resultOf(client, task.taskId);
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/^interrupted: the run was interrupted/);
  });
});

describe('cancelling in-process work', () => {
  it('aborts a deep search’s model request and ends the task cancelled', async () => {
    model.enqueue({ ...PLAN, delayMs: 20_000 });
    const asked = model.requests.length;
    const { task } = await startTask(client, 'search', { query: 'undici pools in depth', type: 'deep' });
    await modelAsked(asked);
    const aborted = model.whenAborted();
    await client.experimental.tasks.cancelTask(task.taskId);
    await aborted;
    const ended = await client.experimental.tasks.getTask(task.taskId);
    expect(ended).toMatchObject({ status: 'cancelled', statusMessage: 'Client cancelled task execution.' });
    expect((await resultOf(client, task.taskId)).content[0].text).toMatch(/was cancelled .*its work stopped/);
  });

  it('reads a task as failed, interrupted, once its worker’s lease lapsed (as after a crash)', async () => {
    model.enqueue({ ...PLAN, delayMs: 20_000 });
    const asked = model.requests.length;
    const { task } = await startTask(client, 'search', { query: 'undici after a crash', type: 'deep' });
    await modelAsked(asked);
    // another process on the same data directory, a minute later: the worker renewed no lease since
    const later = makeTestApp({ dataDir: t.dataDir }, { clock: { now: () => new Date(Date.now() + 60_000) } });
    closers.push(() => later.close());
    const reader = await connect(later.app);
    const aborted = model.whenAborted();
    const failed = await reader.experimental.tasks.getTask(task.taskId);
    expect(failed).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/^interrupted by a restart/) }); // prettier-ignore
    expect((await resultOf(reader, task.taskId)).isError).toBe(true);
    await aborted; // the worker saw its task end and stopped
  });
});

describe('a closing app', () => {
  it('ends its in-process tasks at once, interrupted, before its model client waits on them', async () => {
    const own = makeTestApp({ modelBaseUrl: model.baseUrl, model: 'test-model' });
    await own.app.services.documents.upsertMany(PAGES, PAGES[0]!.fetchedAt);
    const c = await connect(own.app);
    // the model answers after 60 s and the lease lasts 30 s, both past the test's own 20 s time-out: the
    // close can only end in time by interrupting the task and aborting the model call
    model.enqueue({ ...PLAN, delayMs: 60_000 });
    const asked = model.requests.length;
    const { task } = await startTask(c, 'search', { query: 'undici while closing', type: 'deep' });
    await modelAsked(asked);
    const aborted = model.whenAborted();
    closers.push(() => own.close()); // its data directory; the close itself is below
    await own.app.close();
    await aborted;
    const reader = makeTestApp({ dataDir: own.dataDir });
    closers.push(() => reader.close());
    const ended = await (await connect(reader.app)).experimental.tasks.getTask(task.taskId);
    expect(ended).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/^interrupted/) });
  });
});

describe('tasks and the client’s model', () => {
  it('answers FEATURE_DISABLED inside a task where only sampling could have answered, and why', async () => {
    const bare = makeTestApp();
    closers.push(() => bare.close());
    await bare.app.services.documents.upsertMany(PAGES, new Date().toISOString());
    let sampled = 0;
    const c = await connect(bare.app, () => (sampled++, JSON.stringify({ content: { pool: 'Pool' }, citations: { pool: [1] } }))); // prettier-ignore
    const args = { query: 'undici pool', outputSchema: { type: 'object', properties: { pool: { type: 'string' } } } };
    const direct = (await c.callTool({ name: 'search', arguments: args })) as Json;
    expect(direct.isError).toBeFalsy();
    expect(sampled).toBe(1);

    for (const [name, input] of [
      ['search', args],
      ['agent_run', { query: 'undici', effort: 'high' }],
    ] as const) {
      const { task } = await startTask(c, name, input);
      const result = await resultOf(c, task.taskId);
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/^FEATURE_DISABLED: this call runs as an MCP task, which outlives the client's request/); // prettier-ignore
      expect(result.content[0].text).toContain('TRAWL_MODEL_BASE_URL');
      expect(await c.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/^FEATURE_DISABLED/) }); // prettier-ignore
    }
    expect(sampled).toBe(1);
  });
});
