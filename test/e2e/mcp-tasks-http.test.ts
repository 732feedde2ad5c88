/**
 * MCP tasks over stateless streamable HTTP (the real server on 127.0.0.1:0, the SDK's real Client, every
 * request a fresh server): a task belongs to the key that started it, a cancel sent to another instance on
 * the same data directory stops the work where it runs, and a finished task is read after a restart.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDir, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PLAN = { json: { queries: ['undici pools'] } };
const shared = tempDir('trawl-tasks-http-');
let model: ModelServer;
let first: TestServer;
const clients: Client[] = [];

/** A server on the shared data directory, serving the task-capable tools. */
const serve = () =>
  startTestServer({ dataDir: shared.dir, tools: 'search,get_contents,agent_run', modelBaseUrl: model.baseUrl, model: 'm' }); // prettier-ignore

async function connect(server: TestServer, key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { 'x-api-key': key } },
  });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}
const startTask = (c: Client, name: string, args: Json) =>
  c.request({ method: 'tools/call', params: { name, arguments: args, task: {} } }, CreateTaskResultSchema);
const resultOf = async (c: Client, taskId: string) =>
  (await c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as Json;

beforeAll(async () => {
  model = await startModelServer({ reply: (body) => (/json/i.test(JSON.stringify(body)) ? PLAN : 'An answer [1].') });
  first = await serve();
  await first.app.services.documents.upsertMany(
    [storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', 'An undici Pool keeps sockets open to one origin.')], // prettier-ignore
    new Date().toISOString(),
  );
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await first.close();
  await model.close();
  shared.cleanup();
});

describe('tasks over stateless HTTP', () => {
  it('belong to the key that started them: another key cannot read, wait on, cancel or list them', async () => {
    const owner = await connect(first, first.key);
    const other = await connect(first, (await first.app.services.keys.create('other', {}, null)).key);
    const { task } = await startTask(owner, 'search', { query: 'undici pool' });
    expect((await resultOf(owner, task.taskId)).content[0].text).toContain('Connection pooling in undici');

    await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    await expect(resultOf(other, task.taskId)).rejects.toThrow(/Task not found/);
    await expect(other.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/Task not found/);
    expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
    const mine = await owner.experimental.tasks.listTasks();
    expect(mine.tasks.map((x) => x.taskId)).toContain(task.taskId);
    expect(await owner.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed' });
  });

  it('are refused to a zero-retention key, whose results may not wait in the store', async () => {
    const team = await first.app.services.accounts.teams.create('private', { zeroRetention: true }, null);
    const zr = await connect(first, (await first.app.services.keys.create('zr', { teamId: team.id }, null)).key);
    await expect(startTask(zr, 'search', { query: 'undici pool' })).rejects.toThrow(/FEATURE_DISABLED: a task keeps its result in the store.*zero data retention/); // prettier-ignore
    expect((await zr.callTool({ name: 'search', arguments: { query: 'undici pool' } })).isError).toBeFalsy();
  });

  it('stop where they run when another instance on the same data directory is asked to cancel', async () => {
    const second = await serve();
    try {
      model.enqueue({ ...PLAN, delayMs: 20_000 });
      const asked = model.requests.length;
      const { task } = await startTask(await connect(first, first.key), 'search', { query: 'undici deep', type: 'deep' }); // prettier-ignore
      while (model.requests.length <= asked) await new Promise((resolve) => setTimeout(resolve, 10));
      const aborted = model.whenAborted();
      const elsewhere = await connect(second, first.key);
      expect(await elsewhere.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ status: 'cancelled' });
      await aborted; // the first instance saw the cancelled row and aborted its model request
      const here = await connect(first, first.key);
      expect(await here.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    } finally {
      await second.close();
    }
  });

  it('stay readable after a restart: a new app on the same data directory answers a finished task', async () => {
    const key = first.key;
    const before = await connect(first, key);
    const { task } = await startTask(before, 'get_contents', { urls: ['https://docs.example.com/undici/pool'] });
    const result = await resultOf(before, task.taskId);
    await before.close();
    await first.close();
    first = await serve(); // the restart: same data directory, so the same keys and tasks
    const after = await connect(first, key);
    expect(await after.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed', taskId: task.taskId }); // prettier-ignore
    const again = await resultOf(after, task.taskId);
    expect(again.content).toEqual(result.content);
  });
});
