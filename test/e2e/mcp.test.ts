/**
 * The MCP door through the SDK's real Client: in memory, a spawned `trawl mcp` over stdio, and HTTP.
 * Each serves the default tools unless more are enabled (`--tools`, `TRAWL_TOOLS`, `/mcp?tools=`), as
 * the catalog advertises them, and validates calls like the REST door.
 */
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FENCE_NOTICE } from '../../src/mcp/reply/fence.js';
import { ALL_TOOLS, TOOL_SPECS } from '../../src/mcp/catalog.js';
import { buildMcpServer } from '../../src/mcp/server.js';
import { CLI, makeTestApp, postJson, startTestServer, tempDir, type TestApp, type TestServer } from '../helpers/app.js'; // prettier-ignore
import { connectMcp, postMcp, textOf, type ToolResult } from '../helpers/mcp.js';

const DEFAULT_TOOLS = ['search', 'get_contents', 'get_code_context'];
const EVERY_TOOL = ['search', 'get_contents', 'get_code_context', 'find_similar', 'monitors', 'agent_run', 'agent_runs']; // prettier-ignore
const OLD_TOOLS = ['create_agent_run', 'list_agent_runs', 'get_agent_run', 'get_agent_run_events', 'cancel_agent_run', 'delete_agent_run', 'get_monitor']; // prettier-ignore
const namesOf = (tools: { name: string }[]) => tools.map((x) => x.name);

describe('MCP in memory', () => {
  let t: TestApp;
  let client: Client;
  let all: Client;
  beforeAll(async () => {
    t = makeTestApp();
    client = await connectMcp(t.app);
    all = await connectMcp(t.app, { tools: ALL_TOOLS });
  });
  afterAll(async () => {
    await Promise.all([client.close(), all.close()]);
    await t.close();
  });

  it('lists only the default tools with no setting, each exactly as the catalog advertises it', async () => {
    const { tools } = await client.listTools();
    expect(namesOf(tools)).toEqual(DEFAULT_TOOLS);
    expect(tools).toEqual(TOOL_SPECS.filter((s) => DEFAULT_TOOLS.includes(s.name)));
  });

  it('lists every tool when all are enabled: no output schemas, one tool with an action per family', async () => {
    const { tools } = await all.listTools();
    expect(namesOf(tools)).toEqual(EVERY_TOOL);
    expect(tools).toEqual([...TOOL_SPECS]);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema, tool.name).toBeUndefined();
      expect(tool.description!.length, tool.name).toBeGreaterThan(20);
    }
    for (const name of ['search', 'get_contents', 'get_code_context', 'find_similar', 'agent_run']) {
      expect(tools.find((x) => x.name === name)!.description, name).toContain(FENCE_NOTICE);
    }
    const search = tools.find((x) => x.name === 'search')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['contents', 'cursor', 'maxTokens'])); // prettier-ignore
    expect(search.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
    // the monitor operations are one tool with an action, not nine tools; the agent run operations likewise
    const action = (name: string) => {
      const tool = tools.find((x) => x.name === name)!;
      expect(tool.inputSchema.required, name).toEqual(['action']);
      return (tool.inputSchema.properties as Record<string, { enum?: string[] }>).action!.enum;
    };
    expect(action('monitors')).toEqual(['create', 'list', 'get', 'update', 'delete', 'trigger', 'list_runs', 'get_run', 'list_deliveries']); // prettier-ignore
    expect(action('agent_runs')).toEqual(['create', 'list', 'get', 'events', 'cancel', 'delete']);
    for (const name of ['monitors', 'agent_runs']) {
      expect(tools.find((x) => x.name === name)!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true }); // prettier-ignore
    }
    for (const old of OLD_TOOLS) expect(namesOf(tools)).not.toContain(old);
  });

  it('answers invalid arguments with an isError result that names the field', async () => {
    const res = (await client.callTool({ name: 'search', arguments: { query: 'x', numResults: 500 } })) as ToolResult;
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/numResults/);
    expect(res.content[0]!.text).toMatch(/at most 100/);
    for (const maxTokens of [499, 25001]) {
      const budget = (await client.callTool({ name: 'search', arguments: { query: 'x', maxTokens } })) as ToolResult;
      expect(budget.isError).toBe(true);
      expect(budget.content[0]!.text).toMatch(/^INVALID_REQUEST_BODY: .*maxTokens/);
    }
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
    const betaClient = await connectMcp(t.app, { betas: ['dynamic-highlights-2026-08-28'] });
    const res = (await betaClient.callTool({
      name: 'get_contents',
      arguments: { urls: ['https://a.example'], highlights: { dynamic: true }, maxAgeHours: -1 },
    })) as ToolResult;
    expect(res.isError).toBeFalsy();
    expect(res.content[0]!.text).toMatch(/^0 of 1 pages read\n/);
    expect(res.content[0]!.text).toMatch(/\n- https:\/\/a\.example: SOURCE_NOT_AVAILABLE/);
    await betaClient.close();
  });

  it('refuses a tool the server does not serve, naming those it does', async () => {
    await expect(client.callTool({ name: 'find_similar', arguments: { url: 'https://a.example' } })).rejects.toThrow(
      /Tool find_similar not found; this server serves search, get_contents, get_code_context\./,
    );
    await expect(all.callTool({ name: 'create_agent_run', arguments: { query: 'x' } })).rejects.toThrow(
      /Tool create_agent_run not found/,
    );
  });
});

describe('MCP tool selection', () => {
  const listed = async (flags: Record<string, unknown>, tools?: readonly string[]) => {
    const t = makeTestApp(flags);
    try {
      const client = await connectMcp(t.app, tools ? { tools } : {});
      const names = namesOf((await client.listTools()).tools);
      await client.close();
      return names;
    } finally {
      await t.close();
    }
  };

  it('exposes the configured tools and groups, in the catalog’s order; old per-operation names name their tool', async () => {
    expect(await listed({ tools: 'get_contents,search' })).toEqual(['search', 'get_contents']);
    expect(await listed({ tools: 'agent,web' })).toEqual(['search', 'get_contents', 'find_similar', 'agent_run', 'agent_runs']); // prettier-ignore
    expect(await listed({ tools: 'code,monitors,create_agent_run,get_agent_run' })).toEqual(['get_code_context', 'monitors', 'agent_runs']); // prettier-ignore
    expect(await listed({ tools: 'all' })).toEqual(EVERY_TOOL);
    expect(await listed({ tools: '' })).toEqual(DEFAULT_TOOLS);
  });

  it('serves the tools buildMcpServer is given, whatever the setting', async () => {
    expect(await listed({ tools: 'search' }, ['monitors', 'agent_run'])).toEqual(['monitors', 'agent_run']);
  });

  it('refuses unknown tool names, naming the valid tools and groups', async () => {
    const t = makeTestApp({ tools: 'search,serch' });
    expect(() => buildMcpServer(t.app, { caller: null, betas: new Set() })).toThrow(
      `Unknown MCP tool or group name(s): serch. Tools: ${EVERY_TOOL.join(', ')}. Groups: default, web, code, monitors, agent, all.`, // prettier-ignore
    );
    await t.close();
  });
});

describe('MCP over stdio (trawl mcp)', () => {
  /** `trawl mcp` with `args` and `env`, a client connected, and its stderr so far. */
  async function spawnMcp(args: string[], env: Record<string, string> = {}) {
    const { dir, cleanup } = tempDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', ...args],
      env: { ...(process.env as Record<string, string>), TRAWL_DATA_DIR: dir, ...env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    return {
      client,
      stderr: () => stderr,
      close: async () => {
        await client.close();
        cleanup();
      },
    };
  }

  it('initializes, lists the default tools and answers calls, with logs kept off stdout', async () => {
    const mcp = await spawnMcp(['--log-level', 'debug']);
    expect(mcp.client.getServerVersion()?.name).toBe('trawl');
    const { tools } = await mcp.client.listTools();
    expect(tools).toEqual(TOOL_SPECS.filter((s) => DEFAULT_TOOLS.includes(s.name)));
    const res = (await mcp.client.callTool({ name: 'search', arguments: { query: 'x', numResults: 0 } })) as ToolResult; // prettier-ignore
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/numResults/);
    await mcp.close();
    expect(mcp.stderr()).toMatch(/mcp stdio ready/);
  });

  it('serves the tools --tools or TRAWL_TOOLS enable', async () => {
    const flag = await spawnMcp(['--tools', 'all']);
    expect(namesOf((await flag.client.listTools()).tools)).toEqual(EVERY_TOOL);
    const runs = (await flag.client.callTool({ name: 'agent_runs', arguments: { action: 'list' } })) as ToolResult;
    expect(runs.isError, textOf(runs)).toBeFalsy();
    expect(runs.structuredContent).toEqual({ hasMore: false, nextCursor: null, data: [] });
    expect(textOf(runs)).toBe('Agent runs:\n(none)');
    await flag.close();

    const env = await spawnMcp([], { TRAWL_TOOLS: 'monitors,code' });
    expect(namesOf((await env.client.listTools()).tools)).toEqual(['get_code_context', 'monitors']);
    await env.close();
  });
});

describe('MCP over streamable HTTP (/mcp)', () => {
  let t: TestServer;
  let plain: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ tools: ['all'] });
    plain = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
    await plain.close();
  });

  const connect = async (server: TestServer, query = '', headers: Record<string, string> = {}) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${server.key}`, ...headers } },
    });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };

  it('serves the configured tools to an authenticated client', async () => {
    const client = await connect(t);
    expect(namesOf((await client.listTools()).tools)).toEqual(EVERY_TOOL);
    const res = (await client.callTool({ name: 'find_similar', arguments: { url: 'ftp://x' } })) as ToolResult;
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/url/);
    await client.close();
  });

  it('serves the default tools when none are configured', async () => {
    const client = await connect(plain);
    expect(namesOf((await client.listTools()).tools)).toEqual(DEFAULT_TOOLS);
    await expect(client.callTool({ name: 'monitors', arguments: { action: 'list' } })).rejects.toThrow(
      /Tool monitors not found/,
    );
    await client.close();
  });

  it('chooses within the server’s tools with ?tools= (repeated, comma-separated, old names)', async () => {
    const client = await connect(t, '?tools=agent&tools=search,get_agent_run_events');
    expect(namesOf((await client.listTools()).tools)).toEqual(['search', 'agent_run', 'agent_runs']);
    await client.close();
    const refused = await postJson(plain.url, '/mcp?tools=cancel_agent_run', {}, { 'x-api-key': plain.key });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ tag: 'INVALID_REQUEST_QUERY' });
    expect(refused.body.error).toMatch(/tools: not enabled on this server: agent_runs \(it serves search, get_contents, get_code_context;/); // prettier-ignore
  });

  it('takes beta tokens from the Svc-Beta header', async () => {
    const client = await connect(t, '', { 'svc-beta': 'agent-max-effort-2026-07-27' });
    const res = (await client.callTool({
      name: 'agent_runs',
      arguments: { action: 'create', query: 'x', effort: 'max' },
    })) as ToolResult;
    // past the beta gate: refused only because no model is configured
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/^FEATURE_DISABLED: effort: "max" needs a language model/);
    await client.close();
  });

  it('works for a client that keeps no session (stateless)', async () => {
    const list = async (query: string) => {
      const res = await postMcp(t.url, t.key, { id: 7, method: 'tools/list', params: {} }, query);
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      const text = await res.text();
      const data = text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as { id: number; result: { tools: { name: string }[] } });
      expect(data[0]!.id).toBe(7);
      return namesOf(data[0]!.result.tools);
    };
    expect(await list('')).toEqual(EVERY_TOOL);
    expect(await list('?tools=default')).toEqual(DEFAULT_TOOLS);
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
