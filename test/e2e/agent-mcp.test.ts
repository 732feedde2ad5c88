/**
 * The `agent_run` MCP tool and the agent run resources through the SDK's real Client (in memory), on an
 * app with the loopback model server and stored pages: progress notifications, the call window and
 * resuming by run id, failed runs, cancelled calls, and `trawl://agent-runs/{id}` resources.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp } from '../helpers/mcp.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentRunsRepo } from '../../src/store/agent-runs.repo.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Json };

const PAGES = [
  storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', 'An undici Pool keeps sockets open to one origin and queues requests when every socket is busy. Set connections to bound it.'), // prettier-ignore
  storedDoc('https://docs.example.com/undici/agent', 'The undici Agent', 'An undici Agent manages one pool per origin, so a client calling many hosts reuses connections to each.'), // prettier-ignore
  storedDoc('https://blog.example.org/keepalive', 'Keep-alive in Node.js HTTP clients', 'Keep-alive reuses sockets between requests; undici enables it by default with a keepAliveTimeout.'), // prettier-ignore
];
const PLAN = { json: { queries: ['undici Agent per origin pools'] } };

let model: ModelServer;
let t: TestApp;
let client: Client;

const callAgent = async (args: Json, onprogress?: (p: Progress) => void, signal?: AbortSignal) =>
  (await client.callTool({ name: 'agent_run', arguments: args }, CallToolResultSchema, { onprogress, signal })) as ToolResult; // prettier-ignore

beforeAll(async () => {
  model = await startModelServer({
    reply: (body) => {
      // planning asks for queries as JSON; answers get a cited sentence
      if (/quer/i.test(String(body.messages[0]?.content ?? '')) && /json/i.test(JSON.stringify(body))) return PLAN;
      return 'An undici Pool keeps sockets open to one origin [1].';
    },
  });
  t = makeTestApp({ modelBaseUrl: model.baseUrl, model: 'test-model' });
  t.app.services.documents.upsertMany(PAGES, new Date().toISOString());
  client = await connectMcp(t.app);
});
afterAll(async () => {
  await client.close();
  await t.app.services.agentRuns.engine.drain();
  await t.close();
  await model.close();
});

describe('agent_run', () => {
  it('is listed beside the per-operation agent tools, taking a task or a run id', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(['agent_run', 'create_agent_run', 'get_agent_run']));
    const tool = tools.find((x) => x.name === 'agent_run')!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(['effort', 'query', 'runId', 'systemPrompt', 'waitSeconds']); // prettier-ignore
    expect(tool.outputSchema?.type).toBe('object');
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
  });

  it('starts a run, reports its events as progress, and answers with the text, sources and the run', async () => {
    const progress: Progress[] = [];
    const res = await callAgent({ query: 'how does undici pool connections', effort: 'low' }, (p) => progress.push(p));
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      object: 'agent_run',
      status: 'completed',
      request: { effort: 'low' },
    });
    const text = res.content[0]!.text;
    expect(text).toMatch(/^An undici Pool keeps sockets open to one origin/);
    expect(text).toMatch(/Sources:\n\[1\] .+ — https:\/\/(docs|blog)\.example/);
    expect(text).toContain(`trawl://agent-runs/${String(res.structuredContent!.id)}`);

    expect(progress.length).toBeGreaterThanOrEqual(5);
    const counters = progress.map((p) => p.progress);
    expect(counters).toEqual([...counters].sort((a, b) => a - b));
    expect(new Set(counters).size).toBe(counters.length);
    const messages = progress.map((p) => p.message);
    expect(messages[0]).toBe('Queued');
    expect(messages).toContain('Searching: how does undici pool connections');
    expect(messages.some((m) => /^Found: /.test(m ?? ''))).toBe(true);
    expect(messages.at(-1)).toBe('Completed');
  });

  it('answers the run id past the call window, and waits on the run when called with runId', async () => {
    model.enqueue({ ...PLAN, delayMs: 2500 });
    const started = Date.now();
    const first = await callAgent({ query: 'slow undici question', effort: 'low', waitSeconds: 1 });
    expect(Date.now() - started).toBeLessThan(2400);
    expect(first.isError).toBeFalsy();
    const id = String(first.structuredContent!.id);
    expect(first.structuredContent!.status).toBe('running');
    expect(first.content[0]!.text).toMatch(new RegExp(`Agent run ${id} is still running after 1 s`));
    expect(first.content[0]!.text).toContain(`call agent_run with {"runId": "${id}"}`);

    const progress: Progress[] = [];
    const second = await callAgent({ runId: id }, (p) => progress.push(p));
    expect(second.isError).toBeFalsy();
    expect(second.structuredContent).toMatchObject({ id, status: 'completed' });
    expect(second.content[0]!.text).toMatch(/^An undici Pool/);
    expect(progress.at(-1)?.message).toBe('Completed');
  });

  it('leaves the run going when the client cancels the call', async () => {
    model.enqueue({ ...PLAN, delayMs: 800 });
    const controller = new AbortController();
    const call = callAgent({ query: 'cancelled call, running run', effort: 'low' }, () => controller.abort(), controller.signal); // prettier-ignore
    await expect(call).rejects.toThrow();
    await t.app.services.agentRuns.engine.drain();
    const runs = t.app.services.agentRuns.list(null, { limit: 5 }).data;
    const runId = runs.find((r) => r.request.query === 'cancelled call, running run')!.id;
    expect(t.app.services.agentRuns.get(runId, null).status).toBe('completed');
  });

  it('answers a failed run as an error with its code and message', async () => {
    const repo = createAgentRunsRepo(t.app.db);
    repo.insert({ id: 'run_orphan_mcp', key_id: '', request: '{"query":"q","effort":"low"}', owner: null, lease_until_ms: null, created_at: new Date().toISOString() }); // prettier-ignore
    t.app.db.prepare("UPDATE agent_runs SET status = 'running', lease_until_ms = 1 WHERE id = 'run_orphan_mcp'").run();
    t.app.services.agentRuns.engine.tick();
    const res = await callAgent({ runId: 'run_orphan_mcp' });
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/^internal_error: the process running it stopped/);
    expect(res.content[0]!.text).toContain('run_orphan_mcp failed');
  });

  it('answers invalid arguments with an isError result naming the field', async () => {
    const effort = await callAgent({ query: 'undici', effort: 'extreme' });
    expect(effort.isError).toBe(true);
    expect(effort.content[0]!.text).toMatch(/effort/);
    const both = await callAgent({ query: 'undici', runId: 'run_x' });
    expect(both.isError).toBe(true);
    expect(both.content[0]!.text).toMatch(/^INVALID_REQUEST_BODY: query: only for starting a run/);
    const none = await callAgent({});
    expect(none.content[0]!.text).toMatch(/^INVALID_REQUEST_BODY: query: is required to start a run/);
    const window = await callAgent({ runId: 'run_x', waitSeconds: 601 });
    expect(window.isError).toBe(true);
    expect(window.content[0]!.text).toMatch(/waitSeconds/);
    const missing = await callAgent({ runId: 'run_missing' });
    expect(missing.content[0]!.text).toMatch(/^NOT_FOUND: agent run run_missing not found/);
  });
});

describe('agent runs as resources', () => {
  it('lists the template and the caller’s recent runs, and reads a run as JSON and as text', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toContainEqual(
      expect.objectContaining({
        name: 'agent-run',
        uriTemplate: 'trawl://agent-runs/{id}',
        mimeType: 'application/json',
      }),
    );
    const done = await callAgent({ query: 'undici keep-alive', effort: 'minimal' });
    const id = String(done.structuredContent!.id);
    const uri = `trawl://agent-runs/${id}`;

    const { resources } = await client.listResources();
    expect(resources.length).toBeLessThanOrEqual(20);
    expect(resources[0]).toMatchObject({ uri, name: id, title: 'completed: undici keep-alive' });

    const { contents } = await client.readResource({ uri });
    const [json, text] = contents as { uri: string; mimeType: string; text: string }[];
    expect(json).toMatchObject({ uri, mimeType: 'application/json' });
    expect(JSON.parse(json!.text)).toMatchObject({ id, object: 'agent_run', status: 'completed', output: { text: expect.any(String) } }); // prettier-ignore
    expect(text).toMatchObject({ uri, mimeType: 'text/plain' });
    expect(text!.text).toContain(`Agent run ${id}: completed, effort minimal`);
  });

  it('answers an unknown run with a resource-not-found error', async () => {
    await expect(client.readResource({ uri: 'trawl://agent-runs/run_nope' })).rejects.toThrow(
      /NOT_FOUND: agent run run_nope not found/,
    );
  });
});
