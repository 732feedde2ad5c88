/**
 * `trawl mcp` answers the handshake before it loads the door (src/mcp/stdio.ts): through the SDK's real
 * client over stdio against the built CLI, the handshake equals the door's own, the door opens at the
 * first call (with the client's `initialize`, so sampling works) or by itself once the client is quiet,
 * and a door that cannot open is reported.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CreateMessageRequestSchema,
  ListToolsResultSchema,
  type CreateMessageRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { buildMcpServer } from '../../src/mcp/server.js';
import { CLI, makeTestApp, tempDir } from '../helpers/app.js';
import { connectModernMcp } from '../helpers/mcp.js';
import { modernEraClient } from '../helpers/mcp-eras.js';
import { FETCHED_AT, storedDoc } from '../helpers/documents.js';

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: unknown };

const DOCS = [
  storedDoc('https://docs.example.com/undici/pool', 'Pooling in undici', 'An undici Pool keeps sockets open to one origin. Requests queue when every socket is busy.'), // prettier-ignore
  storedDoc('https://blog.example.com/undici-agent', 'The undici Agent', 'The undici Agent holds one Pool per origin and is the dispatcher of fetch in Node.js.'), // prettier-ignore
];

interface Spawned {
  client: Client;
  stderr(): string;
  /** Resolves when the server process has gone. */
  gone: Promise<void>;
}

const spawned: Spawned[] = [];

/** `trawl mcp` on `dataDir` through the SDK's stdio client; `sampling` makes the client offer its model. */
async function spawnMcp(
  dataDir: string,
  options: { args?: string[]; sampling?: CreateMessageRequest['params'][] } = {},
): Promise<Spawned> {
  // prettier-ignore
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--data-dir', dataDir, '--log-level', 'info', ...(options.args ?? [])],
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const sampling = options.sampling;
  const client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: sampling ? { sampling: {} } : {} });
  if (sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      sampling.push(request.params);
      const text = 'The undici Agent keeps one Pool per origin [2].';
      return { model: 'client-model-1', role: 'assistant', content: { type: 'text', text }, stopReason: 'endTurn' };
    });
  }
  const gone = new Promise<void>((resolve) => (client.onclose = resolve));
  await client.connect(transport);
  const s = { client, stderr: () => stderr, gone };
  spawned.push(s);
  return s;
}

/** Polls `check` every 20 ms until it is true or `ms` pass. */
async function eventually(check: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return check();
}

let dataDir: string;
let cleanup: () => void;
beforeAll(async () => {
  ({ dir: dataDir, cleanup } = tempDir());
  const config = loadConfig({}, { dataDir, logLevel: 'silent' });
  const app = createApp(config, { logger: createLogger('silent') });
  await app.services.documents.upsertMany(DOCS, FETCHED_AT);
  await app.close();
});
afterEach(async () => {
  await Promise.all(spawned.splice(0).map((s) => s.client.close()));
});
afterAll(() => cleanup());

describe('trawl mcp start-up', () => {
  it.each([[[]], [['--tools', 'all']]])(
    'answers initialize and tools/list exactly as the door does (%j)',
    async (args) => {
      const { client } = await spawnMcp(dataDir, { args });
      const t = makeTestApp(args.length ? { tools: 'all' } : {});
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await buildMcpServer(t.app, { caller: null, betas: new Set() }).connect(serverSide);
      const door = new Client({ name: 'test', version: '1.0.0' });
      await door.connect(clientSide);
      try {
        expect(client.getServerCapabilities()).toEqual(door.getServerCapabilities());
        expect(client.getServerVersion()).toEqual(door.getServerVersion());
        expect(client.getInstructions()).toEqual(door.getInstructions());
        const list = await client.request({ method: 'tools/list' }, ListToolsResultSchema);
        expect(list).toEqual(await door.request({ method: 'tools/list' }, ListToolsResultSchema));
        expect(list.tools.length).toBeGreaterThanOrEqual(args.length ? 5 : 3);
        await client.ping();
      } finally {
        await door.close();
        await t.close();
      }
    },
  );

  it.each([[[]], [['--tools', 'all']]])(
    'answers server/discover and tools/list of 2026-07-28 exactly as the door does (%j)',
    async (args) => {
      const front = await modernEraClient({ kind: 'stdio', dataDir, args });
      const t = makeTestApp(args.length ? { tools: 'all' } : {});
      const door = await connectModernMcp(t.app);
      try {
        expect(front.raw.getNegotiatedProtocolVersion()).toBe('2026-07-28');
        expect(front.raw.getServerCapabilities()).toEqual(door.getServerCapabilities());
        expect(front.raw.getInstructions()).toEqual(door.getInstructions());
        expect(await front.raw.listTools()).toEqual(await door.listTools());
        const list = await front.listTools(); // the raw result: its cache fields
        expect(list).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
        // then the door opens at the first call and answers it in the same era
        const res = (await front.callTool('search', { query: 'undici pool', type: 'instant' })) as ToolResult;
        expect(res.isError).toBeFalsy();
        expect(res.content[0]!.text).toContain('Pooling in undici');
      } finally {
        await front.close();
        await door.close();
        await t.close();
      }
    },
  );

  it('answers the handshake without its data directory, then reports the door that cannot open', async () => {
    const file = path.join(dataDir, 'not-a-directory');
    fs.writeFileSync(file, 'x');
    const s = await spawnMcp(file);
    const { tools } = await s.client.request({ method: 'tools/list' }, ListToolsResultSchema);
    expect(tools.map((x) => x.name)).toEqual(['search', 'get_contents', 'get_code_context']);
    // the door opens once the client is quiet, fails on the file, and the process says why and exits
    await s.gone;
    expect(s.stderr()).toMatch(/^trawl: .*not-a-directory/m);
    expect(s.stderr()).not.toMatch(/mcp stdio ready/);
  });

  it('opens the door at the first call, which it hands the client capabilities (sampling answers)', async () => {
    const sampled: CreateMessageRequest['params'][] = [];
    const { client, stderr } = await spawnMcp(dataDir, { sampling: sampled });
    const res = (await client.callTool({
      name: 'search',
      arguments: { query: 'undici agent pool per origin', type: 'instant', outputSchema: { type: 'text' } },
    })) as ToolResult;
    expect(res.isError).toBeFalsy();
    expect(sampled).toHaveLength(1); // the door knew the client offers sampling: the replayed initialize
    expect(res.content[0]!.text).toMatch(/^Answer:\n.*\nThe undici Agent keeps one Pool per origin\./m);
    expect(stderr()).toMatch(/mcp stdio ready/);
  });

  it('opens the door by itself once the client is quiet after the handshake', async () => {
    const { client, stderr } = await spawnMcp(dataDir);
    await client.request({ method: 'tools/list' }, ListToolsResultSchema);
    expect(await eventually(() => /mcp stdio ready/.test(stderr())), stderr()).toBe(true);
    const res = (await client.callTool({ name: 'search', arguments: { query: 'undici pool', type: 'instant' } })) as ToolResult; // prettier-ignore
    expect(res.isError).toBeFalsy();
    expect(res.content[0]!.text).toContain('Pooling in undici');
    // the code model is read at the first code query, not when the door opens (the bundle finds the shipped file)
    expect(stderr()).not.toMatch(/code model/);
    const code = (await client.callTool({ name: 'get_code_context', arguments: { query: 'undici pool' } })) as ToolResult; // prettier-ignore
    expect(code.isError).toBeFalsy();
    const loaded = /"version":"trawl-code-[0-9a-f]{12}".*"msg":"code model loaded"/;
    expect(await eventually(() => loaded.test(stderr())), stderr()).toBe(true);
  });

  it('answers every message that came while the door was opening, each its own', async () => {
    const { client } = await spawnMcp(dataDir);
    const call = (args: Record<string, unknown>) => client.callTool({ name: 'search', arguments: args }) as Promise<ToolResult>; // prettier-ignore
    const [bad, pool, agent, list] = await Promise.all([
      call({ query: 'x', numResults: 0 }),
      call({ query: 'undici pool sockets', type: 'instant', numResults: 1 }),
      call({ query: 'undici agent dispatcher', type: 'instant', numResults: 1 }),
      client.request({ method: 'tools/list' }, ListToolsResultSchema),
      client.ping(),
    ]);
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/numResults/);
    expect(pool.content[0]!.text).toContain('Pooling in undici');
    expect(agent.content[0]!.text).toContain('The undici Agent');
    expect(list.tools).toHaveLength(3);
  });

  it("loads neither the app, nor the door, nor the registry, nor the MCP SDK before the handshake (the bundle's split points)", () => {
    type Meta = { outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string; external?: boolean }[]; inputs: Record<string, unknown> }> }; // prettier-ignore
    const meta = JSON.parse(fs.readFileSync(path.join(path.dirname(CLI), 'meta.json'), 'utf8')) as Meta;
    const entry = (source: string) => Object.keys(meta.outputs).find((o) => meta.outputs[o]!.entryPoint === source)!;
    // what `trawl mcp` imports before it answers: cli.js, then config and mcp.command, each with its static imports
    const loaded = new Set<string>();
    const visit = (output: string) => {
      if (loaded.has(output)) return;
      loaded.add(output);
      for (const i of meta.outputs[output]?.imports ?? []) if (i.kind === 'import-statement') visit(i.path);
    };
    ['src/cli/main.ts', 'src/config/config.ts', 'src/cli/mcp.command.ts'].forEach((source) => visit(entry(source)));
    const inputs = [...loaded].flatMap((o) => Object.keys(meta.outputs[o]?.inputs ?? {}));
    expect(inputs).toContain('src/mcp/stdio.ts');
    expect(inputs).toContain('src/mcp/catalog.ts');
    for (const heavy of [
      'src/compose/app.ts',
      'src/mcp/server.ts',
      'src/mcp/tools.ts',
      'src/ops/registry.ts',
      'src/store/sqlite/database.ts',
    ]) {
      expect(inputs, heavy).not.toContain(heavy);
    }
    // nor the MCP SDK: importing @modelcontextprotocol/server 2.x takes longer than the rest of the opening
    expect(inputs.filter((i) => i.includes('node_modules/@modelcontextprotocol/'))).toEqual([]);
    const externals = [...loaded].flatMap((o) => meta.outputs[o]?.imports.filter((i) => i.external).map((i) => i.path) ?? []); // prettier-ignore
    for (const pkg of ['better-sqlite3', 'ajv', 'keyv']) expect(externals, pkg).not.toContain(pkg);
  });

  it('exits when the client closes before the door opened', async () => {
    const s = await spawnMcp(dataDir);
    await s.client.close();
    await s.gone;
    expect(s.stderr()).not.toMatch(/trawl: /);
  });
});
