/**
 * Test helpers for the two protocol revisions through the SDK's real clients: the v1 client
 * (`@modelcontextprotocol/sdk` 1.32, 2025-11-25) and the v2 client (`@modelcontextprotocol/client`,
 * 2026-07-28), over streamable HTTP or stdio, with the same few verbs (list tools, call, start a task,
 * poll it, cancel it) so one test reads both eras.
 *
 * The v2 client has no tasks runtime: a `tools/call` answered with a task (`resultType: "task"`) is
 * refused by its typed API (UNSUPPORTED_RESULT_TYPE), so its transport is wrapped to keep the raw
 * results it receives, and the task methods are sent with explicit result schemas.
 */
import {
  type Client as ModernClient,
  type OAuthClientProvider,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { CLI } from './app.js';
import { modernClient } from './mcp.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One connected client of either era, as the era tests drive it. */
export interface EraClient {
  era: 'legacy' | 'modern';
  /** tools/list as the client receives it (2026-07-28: the raw result, with its cache fields). */
  listTools(): Promise<Json>;
  callTool(name: string, args: Json): Promise<Json>;
  /** Starts `name` as a task; the task as its era shapes it (taskId, status, …). */
  startTask(name: string, args: Json): Promise<Json>;
  /** tasks/get (2026-07-28: with the result inline once it ended). */
  getTask(taskId: string): Promise<Json>;
  /** tasks/cancel: the cancelled task (2025-11-25) or an empty acknowledgement (2026-07-28). */
  cancelTask(taskId: string): Promise<Json>;
  close(): Promise<void>;
}

/**
 * Where a client connects: an HTTP door (with a key; or, key empty, the v2 client signed in by an OAuth
 * provider holding its tokens), or `trawl mcp` spawned on a data directory.
 */
export type Target =
  | { kind: 'http'; url: string; key: string; fetch?: typeof fetch; authProvider?: OAuthClientProvider }
  | { kind: 'stdio'; dataDir: string; env?: Record<string, string>; args?: string[] };

const stdioParams = (t: Extract<Target, { kind: 'stdio' }>) => ({
  command: process.execPath,
  args: [CLI, 'mcp', '--data-dir', t.dataDir, '--log-level', 'warn', ...(t.args ?? [])],
  env: { PATH: process.env.PATH ?? '', ...t.env },
  stderr: 'pipe' as const,
});

/** A v1 client (2025-11-25, `initialize`) connected to `target`. */
export async function legacyClient(target: Target): Promise<EraClient> {
  const transport =
    target.kind === 'http'
      ? new StreamableHTTPClientTransport(new URL(`${target.url}/mcp`), { requestInit: { headers: { 'x-api-key': target.key } }, ...(target.fetch ? { fetch: target.fetch } : {}) }) // prettier-ignore
      : new StdioClientTransport(stdioParams(target));
  const client = new Client({ name: 'test-v1', version: '1.0.0' });
  await client.connect(transport);
  return {
    era: 'legacy',
    listTools: () => client.listTools(),
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as Json,
    startTask: async (name, args) =>
      (await client.request({ method: 'tools/call', params: { name, arguments: args, task: {} } }, CreateTaskResultSchema)).task, // prettier-ignore
    getTask: (taskId) => client.experimental.tasks.getTask(taskId),
    cancelTask: (taskId) => client.experimental.tasks.cancelTask(taskId),
    close: () => client.close(),
  };
}

/** The raw results a v2 client's transport received, by request id (what its typed API may not show). */
export interface Recorder {
  results: Map<string | number, Json>;
}

/**
 * `transport` with the results it delivers recorded (a Proxy: the client sees the transport itself,
 * every method and property of its own).
 */
function recorded<T extends object>(transport: T): { transport: T; recorder: Recorder } {
  const recorder: Recorder = { results: new Map() };
  const proxy = new Proxy(transport, {
    set(target, prop, value: unknown) {
      if (prop === 'onmessage' && typeof value === 'function') {
        const deliver = value as (message: Json, extra?: unknown) => void;
        Reflect.set(target, prop, (message: Json, extra?: unknown) => {
          if ('result' in message && message.id !== undefined) recorder.results.set(message.id, message.result);
          deliver(message, extra);
        });
        return true;
      }
      return Reflect.set(target, prop, value);
    },
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { transport: proxy, recorder };
}

const AnyResult = z.looseObject({});

/** A v2 client (2026-07-28, `server/discover`; it declares the Tasks extension) connected to `target`. */
export async function modernEraClient(target: Target): Promise<EraClient & { raw: ModernClient; recorder: Recorder }> {
  const inner =
    target.kind === 'http'
      ? new ModernHttp(new URL(`${target.url}/mcp`), { ...(target.key ? { requestInit: { headers: { 'x-api-key': target.key } } } : {}), ...(target.fetch ? { fetch: target.fetch } : {}), ...(target.authProvider ? { authProvider: target.authProvider } : {}) }) // prettier-ignore
      : new ModernStdio(stdioParams(target));
  const { transport, recorder } = recorded(inner);
  const client = modernClient(true);
  await client.connect(transport);
  /** The raw result of the latest request whose result matches `pick`. */
  const latest = (pick: (r: Json) => boolean) => [...recorder.results.values()].reverse().find(pick);
  return {
    era: 'modern',
    raw: client,
    recorder,
    listTools: async () => {
      await client.listTools();
      return latest((r) => Array.isArray(r.tools))!;
    },
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as Json,
    async startTask(name, args) {
      // the v2 client's typed API refuses a task result: the task is read from what its transport received
      const refused = await client.callTool({ name, arguments: args }).then(
        () => new Error('the call was answered without a task'),
        (err: unknown) => err,
      );
      if ((refused as { code?: string }).code !== 'UNSUPPORTED_RESULT_TYPE') throw refused;
      return latest((r) => r.resultType === 'task')!;
    },
    getTask: (taskId) => client.request({ method: 'tasks/get', params: { taskId } }, AnyResult),
    cancelTask: (taskId) => client.request({ method: 'tasks/cancel', params: { taskId } }, AnyResult),
    close: () => client.close(),
  };
}

/** Polls tasks/get (at the task's own interval) until `done`, for at most `ms`. */
export async function pollTask(
  c: EraClient,
  taskId: string,
  done: (task: Json) => boolean,
  ms = 75_000,
): Promise<Json> {
  const deadline = Date.now() + ms;
  for (;;) {
    const task = await c.getTask(taskId);
    if (done(task) || Date.now() > deadline) return task;
    const interval = (task.pollIntervalMs ?? task.pollInterval ?? 100) as number;
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, 200)));
  }
}
