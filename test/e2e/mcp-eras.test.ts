/**
 * Both protocol revisions on one door, through the SDK's real clients: the v1 client (2025-11-25,
 * `initialize`) and the v2 client (2026-07-28, `server/discover`, `_meta` on every request), over
 * streamable HTTP (`trawl serve`'s door on 127.0.0.1:0) and stdio (`trawl mcp`, the built CLI), on one
 * data directory with stored pages and a loopback model server: tools/list (2026-07-28: deterministic
 * order, `ttlMs`/`cacheScope`, no `execution`), a call cut by its budget and continued by cursor, and an
 * agent run as a task started, polled and cancelled (2026-07-28: the `io.modelcontextprotocol/tasks`
 * extension, a task the server chose to make; tasks/get with the result inline).
 */
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, makeTestApp, startTestServer, tempDir, type TestServer } from '../helpers/app.js';
import { connectModernMcp } from '../helpers/mcp.js';
import { storedDoc } from '../helpers/documents.js';
import { legacyClient, modernEraClient, pollTask, type EraClient, type Target } from '../helpers/mcp-eras.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TOOLS = 'search,get_contents,agent_run';
const PLAN = { json: { queries: ['undici pools per origin'] } };
const LONG = Array.from({ length: 400 }, (_, i) => `Sentence ${i}: an undici Pool keeps sockets open to one origin.`).join(' '); // prettier-ignore
const shared = tempDir('trawl-eras-');
let model: ModelServer;
let server: TestServer;
const clients: EraClient[] = [];

const targets = (): Record<'http' | 'stdio', Target> => ({
  http: { kind: 'http', url: server.url, key: server.key },
  stdio: {
    kind: 'stdio',
    dataDir: shared.dir,
    args: ['--tools', TOOLS],
    env: { TRAWL_MODEL_BASE_URL: model.baseUrl, TRAWL_MODEL: 'm' },
  },
});
const connect = async (era: 'legacy' | 'modern', target: Target) => {
  const c = era === 'legacy' ? await legacyClient(target) : await modernEraClient(target);
  clients.push(c);
  return c;
};

beforeAll(async () => {
  model = await startModelServer({ reply: (body) => (/json/i.test(JSON.stringify(body)) ? PLAN : 'Pools are per origin [1].') }); // prettier-ignore
  server = await startTestServer({ dataDir: shared.dir, tools: TOOLS, modelBaseUrl: model.baseUrl, model: 'm' });
  await server.app.services.documents.upsertMany(
    [storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', LONG)],
    new Date().toISOString(),
  );
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.app.services.agentRuns.engine.drain();
  await server.close();
  await model.close();
  shared.cleanup();
});

describe.each(['http', 'stdio'] as const)('over %s', (transport) => {
  describe.each(['legacy', 'modern'] as const)('a %s client', (era) => {
    it('lists the tools in the catalog’s order, in its era’s shape', async () => {
      const c = await connect(era, targets()[transport]);
      const list = await c.listTools();
      expect(list.tools.map((t: Json) => t.name)).toEqual(['search', 'get_contents', 'agent_run']);
      if (era === 'modern') {
        // the catalog is static per selection and the same for every caller
        expect(list).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
        expect(list.tools.some((t: Json) => 'execution' in t)).toBe(false);
      } else {
        expect(list.tools[0].execution).toEqual({ taskSupport: 'optional' });
      }
    });

    it('continues an answer cut by its budget with the cursor it gave', async () => {
      const c = await connect(era, targets()[transport]);
      const args = { query: 'undici pool sockets', type: 'instant', maxTokens: 500 };
      const first = await c.callTool('search', args);
      expect(first.isError, first.content[0].text).toBeFalsy();
      const cursor = first.structuredContent?.nextCursor as string;
      expect(cursor).toMatch(/^ans\./);
      const second = await c.callTool('search', { ...args, cursor });
      expect(second.isError, second.content[0].text).toBeFalsy();
      expect(second.content[0].text).not.toEqual(first.content[0].text);
      expect(second.content[0].text).toMatch(/Sentence \d+/);
    });

    // a busy machine slows the run: the poll waits for it (pollTask), within a timeout load does not reach
    it(
      'starts an agent run as a task, polls it, and cancels it (the run ends cancelled)',
      { timeout: 90_000 },
      async () => {
        const c = await connect(era, targets()[transport]);
        model.enqueue({ ...PLAN, delayMs: 20_000 });
        const task = await c.startTask('agent_run', { query: `a slow question over ${transport}`, effort: 'low' });
        expect(task).toMatchObject({ taskId: expect.any(String), status: 'working' });
        if (era === 'modern') expect(task).toMatchObject({ resultType: 'task', ttlMs: expect.any(Number), pollIntervalMs: expect.any(Number) }); // prettier-ignore
        const working = await pollTask(c, task.taskId, (t) => /is running/.test(t.statusMessage ?? ''));
        expect(working).toMatchObject({ status: 'working', statusMessage: expect.stringMatching(/^agent run run_\w+ is running$/) }); // prettier-ignore
        const runId = /run_\w+/.exec(working.statusMessage)![0];
        const aborted = model.whenAborted();
        const cancelled = await c.cancelTask(task.taskId);
        if (era === 'legacy') expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
        else expect(Object.keys(cancelled).filter((k) => k !== '_meta')).toEqual([]); // an acknowledgement
        await aborted;
        // the run's owner reads it: the key over HTTP, the local user over stdio
        const run =
          transport === 'http'
            ? (await callJson(server.url, server.key, 'GET', `/agent/runs/${runId}`)).body
            : await server.app.services.agentRuns.get(runId, null);
        expect(run.status).toBe('cancelled');
        expect(await c.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
      },
    );
  });
});

describe('2026-07-28 tasks over HTTP', () => {
  it('answers a finished task with its result inline; another key finds no task', { timeout: 90_000 }, async () => {
    const c = await connect('modern', targets().http);
    const task = await c.startTask('agent_run', { query: 'how do undici pools work', effort: 'low' });
    const done = await pollTask(c, task.taskId, (t) => t.status !== 'working');
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text' }] } });
    expect(done.result.structuredContent).toMatchObject({ status: 'completed' });
    const other = await connect('modern', {
      kind: 'http',
      url: server.url,
      key: (await server.app.services.keys.create('other', {}, null)).key,
    });
    await expect(other.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    await expect(other.cancelTask(task.taskId)).rejects.toThrow(/Task not found/);
  });

  it('makes no task for a zero-retention key (its results may not wait in the store): agent_run answers in its call', async () => {
    const team = await server.app.services.accounts.teams.create('private', { zeroRetention: true }, null);
    const key = (await server.app.services.keys.create('zr', { teamId: team.id }, null)).key;
    const c = await connect('modern', { kind: 'http', url: server.url, key });
    const res = await c.callTool('agent_run', { query: 'undici pools, privately', effort: 'low', waitSeconds: 5 });
    expect(res.isError, res.content[0].text).toBeFalsy();
    expect(res.structuredContent).toMatchObject({ id: expect.stringMatching(/^run_/) });
  });

  it('answers a call without a task to a client that does not declare the extension', async () => {
    const c = await connect('legacy', targets().http);
    const res = await c.callTool('agent_run', { query: 'undici pools', effort: 'low', waitSeconds: 5 });
    expect(res.isError, res.content[0].text).toBeFalsy();
  });
});

describe('2026-07-28 requests at the HTTP door', () => {
  /** A 2026-07-28 request as the v2 client sends it, with `headers` overriding. */
  const postModern = async (method: string, params: Json, headers: Record<string, string> = {}, pad = '') => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }; // prettier-ignore
    const res = await fetch(`${server.url}/mcp?tools=search`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': server.key,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: meta } }) + pad,
    });
    return { res, body: (await res.json()) as Json };
  };

  it('serves the ?tools= selection, with the request id', async () => {
    const { res, body } = await postModern('tools/list', {});
    expect(res.status).toBe(200);
    expect(body.result.tools.map((t: Json) => t.name)).toEqual(['search']);
    expect(body.result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses headers that disagree with the body, naming the request id and a tag', async () => {
    const { res, body } = await postModern('tools/call', { name: 'search', arguments: { query: 'x' } }, { 'mcp-name': 'get_contents' }); // prettier-ignore
    expect(res.status).toBe(400);
    expect(body.error.data).toMatchObject({ requestId: res.headers.get('x-request-id'), tag: 'INVALID_REQUEST_BODY' });
  });

  it('refuses a body over TRAWL_MAX_BODY_BYTES with 413 before any server is built', async () => {
    const over = ' '.repeat(4 * 1024 * 1024); // past the default 4 MiB (whitespace: the JSON stays valid)
    const { res, body } = await postModern('tools/call', { name: 'search', arguments: { query: 'x' } }, { 'mcp-name': 'search' }, over); // prettier-ignore
    expect(res.status).toBe(413);
    expect(body).toMatchObject({ tag: 'PAYLOAD_TOO_LARGE', requestId: res.headers.get('x-request-id') });
  });
});

describe('the client’s model in 2026-07-28 (input_required)', () => {
  it('asks the local client’s model by input_required and answers with what it wrote', async () => {
    const t = makeTestApp(); // no model configured: only the client's can write the answer
    await t.app.services.documents.upsertMany(
      [storedDoc('https://blog.example.com/undici-agent', 'The undici Agent', 'The undici Agent holds one Pool per origin and is the dispatcher of fetch.')], // prettier-ignore
      new Date().toISOString(),
    );
    const asked: Json[] = [];
    const client = await connectModernMcp(t.app, {
      sample: (params) => (asked.push(params), 'The undici Agent keeps one Pool per origin [1].'),
    });
    try {
      const res = (await client.callTool({
        name: 'search',
        arguments: { query: 'undici agent pool per origin', type: 'instant', outputSchema: { type: 'text' } },
      })) as Json;
      expect(res.isError, res.content[0].text).toBeFalsy();
      expect(asked).toHaveLength(1);
      expect(res.content[0].text).toMatch(/^Answer:\n.*\nThe undici Agent keeps one Pool per origin\./m);
    } finally {
      await client.close();
      await t.close();
    }
  });

  it('takes as many rounds as the work asks the model (a deep search plans, then answers)', async () => {
    const t = makeTestApp();
    await t.app.services.documents.upsertMany(
      [storedDoc('https://docs.example.com/undici/pool', 'Pooling in undici', 'An undici Pool keeps sockets open to one origin.')], // prettier-ignore
      new Date().toISOString(),
    );
    const asked: Json[] = [];
    const client = await connectModernMcp(t.app, {
      sample: (params) => {
        asked.push(params);
        return /json/i.test(String(params.systemPrompt)) ? JSON.stringify({ queries: ['undici pool sockets'] }) : 'A Pool keeps sockets open [1].'; // prettier-ignore
      },
    });
    try {
      const res = (await client.callTool({ name: 'search', arguments: { query: 'how do undici pools work', type: 'deep', outputSchema: { type: 'text' } } })) as Json; // prettier-ignore
      expect(res.isError, res.content[0].text).toBeFalsy();
      expect(asked.length).toBeGreaterThanOrEqual(2);
      expect(res.content[0].text).toMatch(/A Pool keeps sockets open\./);
    } finally {
      await client.close();
      await t.close();
    }
  });

  it('uses no client model for a client that does not offer one: the answer is extractive', async () => {
    const t = makeTestApp();
    const client = await connectModernMcp(t.app);
    try {
      const res = (await client.callTool({ name: 'search', arguments: { query: 'undici', outputSchema: { type: 'text' } } })) as Json; // prettier-ignore
      expect(res.isError, res.content[0].text).toBeFalsy();
    } finally {
      await client.close();
      await t.close();
    }
  });
});

describe('progress in both eras', () => {
  it.each(['legacy', 'modern'] as const)(
    'reports a deep search’s steps to a %s client that asks for progress',
    async (era) => {
      const messages: string[] = [];
      const onprogress = (p: { message?: string }) => void (p.message && messages.push(p.message));
      const args = { query: `undici pools in depth (${era})`, type: 'deep' };
      if (era === 'modern') {
        const c = await modernEraClient(targets().http);
        clients.push(c);
        await c.raw.callTool({ name: 'search', arguments: args }, { onprogress });
      } else {
        const c = new LegacyClient({ name: 'test-v1', version: '1.0.0' });
        await c.connect(new LegacyHttp(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'x-api-key': server.key } } })); // prettier-ignore
        await c.callTool({ name: 'search', arguments: args }, undefined, { onprogress });
        await c.close();
      }
      expect(messages.length).toBeGreaterThan(0);
    },
  );
});
