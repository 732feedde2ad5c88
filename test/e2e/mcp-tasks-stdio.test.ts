/**
 * MCP tasks over stdio against the built CLI (`npm run build` first): a task started, polled, listed and
 * read through the SDK's real client on a spawned `trawl mcp`; then the process is killed mid-task, and
 * a process started later on the same data directory reads the finished task as it was and the unfinished
 * one as failed, interrupted (its worker's lease lapsed).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMcpServer } from '../../src/mcp/server.js';
import { CLI, makeTestApp, tempDir } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PLAN = { json: { queries: ['undici pools'] } };
const data = tempDir('trawl-tasks-stdio-');
let model: ModelServer;
let transport: StdioClientTransport;
let client: Client;

const startTask = (c: Client, name: string, args: Json) =>
  c.request({ method: 'tools/call', params: { name, arguments: args, task: {} } }, CreateTaskResultSchema);
const resultOf = async (c: Client, taskId: string) =>
  (await c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as Json;

beforeAll(async () => {
  model = await startModelServer({ reply: PLAN });
  const seed = makeTestApp({ dataDir: data.dir });
  await seed.app.services.documents.upsertMany(
    [storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', 'An undici Pool keeps sockets open to one origin.')], // prettier-ignore
    new Date().toISOString(),
  );
  await seed.close();
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--tools', 'search,get_contents,agent_run'],
    env: { ...(process.env as Record<string, string>), TRAWL_DATA_DIR: data.dir, TRAWL_MODEL_BASE_URL: model.baseUrl, TRAWL_MODEL: 'm', TRAWL_LOG_LEVEL: 'silent' }, // prettier-ignore
    stderr: 'ignore',
  });
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(async () => {
  await client.close().catch(() => undefined);
  await model.close();
  data.cleanup();
});

describe('tasks over stdio', () => {
  let finished: string;
  let result: Json;

  it('start at once, and are polled, listed and read', async () => {
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { task } = await startTask(client, 'search', { query: 'undici pool' });
    expect(task.status).toBe('working');
    result = await resultOf(client, task.taskId);
    expect(result.content[0].text).toContain('Connection pooling in undici');
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed' });
    expect((await client.experimental.tasks.listTasks()).tasks.map((x) => x.taskId)).toEqual([task.taskId]);
    finished = task.taskId;
  });

  it('outlive a killed process: the finished one as it was, the unfinished one interrupted', async () => {
    model.enqueue({ ...PLAN, delayMs: 20_000 });
    const asked = model.requests.length;
    const { task } = await startTask(client, 'search', { query: 'undici in depth', type: 'deep' });
    while (model.requests.length <= asked) await new Promise((resolve) => setTimeout(resolve, 10));
    process.kill(transport.pid!, 'SIGKILL');

    // the restarted process, after the dead worker's lease (30 s) has lapsed
    const later = makeTestApp({ dataDir: data.dir }, { clock: { now: () => new Date(Date.now() + 60_000) } });
    try {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await buildMcpServer(later.app, { caller: null, betas: new Set(), tools: ['search'] }).connect(serverSide);
      const reader = new Client({ name: 'test', version: '1.0.0' });
      await reader.connect(clientSide);
      expect(await reader.experimental.tasks.getTask(finished)).toMatchObject({ status: 'completed' });
      expect((await resultOf(reader, finished)).content).toEqual(result.content);
      const interrupted = await reader.experimental.tasks.getTask(task.taskId);
      expect(interrupted).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/^interrupted by a restart/) }); // prettier-ignore
      expect((await resultOf(reader, task.taskId)).isError).toBe(true);
      await reader.close();
    } finally {
      await later.close();
    }
  });
});
