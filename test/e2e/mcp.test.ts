/** The MCP door through the SDK's real Client: in-memory, a spawned `trawl mcp` over stdio, and HTTP. */
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMcpServer } from '../../src/mcp/server.js';
import { OPERATIONS, TOOL_NAMES } from '../../src/ops/registry.js';
import { CLI, makeTestApp, startTestServer, tempDir, type TestApp, type TestServer } from '../helpers/app.js';

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: unknown };

async function inMemoryClient(t: TestApp, betas: string[] = []): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = buildMcpServer(t.app, { caller: null, betas: new Set(betas) });
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

describe('MCP in memory', () => {
  let t: TestApp;
  let client: Client;
  beforeAll(async () => {
    t = makeTestApp();
    client = await inMemoryClient(t);
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  it('lists one tool per operation, with annotations and input/output schemas', async () => {
    const { tools } = await client.listTools();
    // agent_run is registered beside create_agent_run; it is not a registry operation (docs/mcp.md)
    expect(tools.map((x) => x.name).sort()).toEqual([...TOOL_NAMES, 'agent_run'].sort());
    for (const tool of tools) {
      const op = OPERATIONS.find((o) => o.tool === tool.name);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description!.length).toBeGreaterThan(20);
      if (!op) continue; // a tool group, below
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(op.annotations.readOnlyHint);
      expect(tool.annotations?.openWorldHint).toBe(op.annotations.openWorldHint);
    }
    const search = tools.find((x) => x.name === 'search')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect(Object.keys(search.inputSchema.properties ?? {})).toContain('contents');
    // the monitor operations are one tool with an action, not nine tools
    const monitors = tools.find((x) => x.name === 'monitors')!;
    expect(monitors.inputSchema.required).toEqual(['action']);
    const action = (monitors.inputSchema.properties as Record<string, { enum?: string[] }>).action!;
    expect(action.enum).toEqual(['create', 'list', 'get', 'update', 'delete', 'trigger', 'list_runs', 'get_run', 'list_deliveries']); // prettier-ignore
    expect(monitors.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    expect(tools.some((x) => x.name === 'get_monitor')).toBe(false);
  });

  it('answers invalid arguments with an isError result that names the field', async () => {
    const res = (await client.callTool({ name: 'search', arguments: { query: 'x', numResults: 500 } })) as ToolResult;
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/numResults/);
    expect(res.content[0]!.text).toMatch(/at most 100/);
  });

  it('enforces cross-field rules and beta gates like REST does', async () => {
    const both = (await client.callTool({
      name: 'get_contents',
      arguments: { urls: ['https://a.example'], ids: ['x'] },
    })) as ToolResult;
    expect(both.isError).toBe(true);
    expect(both.content[0]!.text).toMatch(/exactly one of ids or urls/);
    const beta = (await client.callTool({
      name: 'get_contents',
      arguments: { urls: ['https://a.example'], highlights: { dynamic: true } },
    })) as ToolResult;
    expect(beta.isError).toBe(true);
    expect(beta.content[0]!.text).toMatch(/INVALID_REQUEST_BODY: highlights\.dynamic: .*Svc-Beta/);
  });

  it('runs with configured beta tokens', async () => {
    const betaClient = await inMemoryClient(t, ['dynamic-highlights-2026-08-28']);
    const res = (await betaClient.callTool({
      name: 'get_contents',
      arguments: { urls: ['https://a.example'], highlights: { dynamic: true }, maxAgeHours: -1 },
    })) as ToolResult;
    expect(res.isError).toBeFalsy();
    expect(res.content[0]!.text).toMatch(/https:\/\/a\.example: SOURCE_NOT_AVAILABLE/);
    await betaClient.close();
  });
});

describe('MCP tool selection', () => {
  it('exposes only the configured tools', async () => {
    const t = makeTestApp({ tools: 'search,get_contents' });
    const client = await inMemoryClient(t);
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(['get_contents', 'search']);
    await client.close();
    await t.close();
  });

  it('refuses unknown tool names', () => {
    const t = makeTestApp({ tools: 'search,serch' });
    expect(() => buildMcpServer(t.app, { caller: null, betas: new Set() })).toThrow(
      /Unknown MCP tool name\(s\).*serch/,
    );
    return t.close();
  });
});

describe('MCP over stdio (trawl mcp)', () => {
  it('initializes, lists tools and answers calls, with logs kept off stdout', async () => {
    const { dir, cleanup } = tempDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--log-level', 'debug'],
      env: { ...(process.env as Record<string, string>), TRAWL_DATA_DIR: dir },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('trawl');
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(TOOL_NAMES.length + 1);
    const res = (await client.callTool({ name: 'search', arguments: { query: 'x', numResults: 0 } })) as ToolResult;
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/numResults/);
    await client.close();
    expect(stderr).toMatch(/mcp stdio ready/);
    cleanup();
  });
});

describe('MCP over streamable HTTP (/mcp)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves the same tools to an authenticated client', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${t.key}` } },
    });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(TOOL_NAMES.length + 1);
    const res = (await client.callTool({ name: 'find_similar', arguments: { url: 'ftp://x' } })) as ToolResult;
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/url/);
    await client.close();
  });

  it('takes beta tokens from the Svc-Beta header', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { 'x-api-key': t.key, 'svc-beta': 'agent-max-effort-2026-07-27' } },
    });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    const res = (await client.callTool({
      name: 'create_agent_run',
      arguments: { query: 'x', effort: 'max' },
    })) as ToolResult;
    // past the beta gate: refused only because no model is configured
    expect(res.content[0]!.text).toMatch(/^FEATURE_DISABLED: effort: "max" needs a language model/);
    await client.close();
  });

  it('works for a client that keeps no session (stateless)', async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': t.key,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const text = await res.text();
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { id: number; result: { tools: unknown[] } });
    expect(data[0]!.id).toBe(7);
    expect(data[0]!.result.tools).toHaveLength(TOOL_NAMES.length + 1);
  });

  it('needs the API key', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)))).rejects.toThrow(
      /401|API key/,
    );
  });

  it('refuses a foreign Origin and a foreign Host (DNS rebinding)', async () => {
    const origin = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example', 'x-api-key': t.key },
      body: '{}',
    });
    expect(origin.status).toBe(403);
    expect(((await origin.json()) as { tag: string }).tag).toBe('FORBIDDEN_ORIGIN');
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${t.url}/mcp`,
        {
          method: 'POST',
          headers: { host: 'evil.example:80', 'x-api-key': t.key, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });

  it('answers GET with 405 (no session stream in stateless mode)', async () => {
    const res = await fetch(`${t.url}/mcp`, { headers: { 'x-api-key': t.key, accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
