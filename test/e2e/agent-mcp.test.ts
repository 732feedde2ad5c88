/**
 * The `agent_run` and `agent_runs` MCP tools and the agent run resources through the SDK's real Client
 * (in memory, every tool enabled), on an app with the loopback model server and stored pages: progress
 * notifications, the answer fenced in the text and the run (without it) as structuredContent, the call
 * window and resuming by run id, failed runs, cancelled calls, the run operations as actions of one
 * tool, and `trawl://agent-runs/{id}` resources.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ALL_TOOLS } from '../../src/mcp/catalog.js';
import { createAgentRunsRepo } from '../../src/store/sqlite/agent-runs.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { connectMcp, fenced, outsideFences, recordOf, textOf, type ToolResult } from '../helpers/mcp.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

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
  await t.app.services.documents.upsertMany(PAGES, new Date().toISOString());
  client = await connectMcp(t.app, { tools: ALL_TOOLS });
});
afterAll(async () => {
  await client.close();
  await t.app.services.agentRuns.engine.drain();
  await t.close();
  await model.close();
});

/** The run as the store has it, without its output (which the text carries, fenced). */
async function stored(id: string): Promise<Json> {
  const { output: _output, ...run } = (await t.app.services.agentRuns.get(id, null)) as Json;
  return run;
}

describe('agent_run', () => {
  it('is listed beside agent_runs, taking a task or a run id', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(['agent_run', 'agent_runs']));
    for (const old of ['create_agent_run', 'list_agent_runs', 'get_agent_run', 'get_agent_run_events', 'cancel_agent_run', 'delete_agent_run']) expect(names).not.toContain(old); // prettier-ignore
    const tool = tools.find((x) => x.name === 'agent_run')!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(['effort', 'query', 'runId', 'waitSeconds']); // prettier-ignore
    expect(tool.outputSchema).toBeUndefined();
    expect(tool.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true }); // prettier-ignore
  });

  it('starts a run, reports its events as progress, and answers with the text and sources fenced and the run', async () => {
    const progress: Progress[] = [];
    const res = await callAgent({ query: 'how does undici pool connections', effort: 'low' }, (p) => progress.push(p));
    expect(res.isError).toBeFalsy();
    const id = String(res.structuredContent!.id);
    const run = await stored(id);
    expect(recordOf(res)).toEqual(run);
    expect(run).toMatchObject({ object: 'agent_run', status: 'completed', request: { effort: 'low' } });
    const text = textOf(res);
    expect(outsideFences(text)).toBe(
      `Agent run ${id}: completed, effort low, cost $${run.costDollars.total}. Resource: trawl://agent-runs/${id}\n\nAnswer:\n<fence>`, // prettier-ignore
    );
    const [answer, ...others] = fenced(text);
    expect(others).toEqual([]);
    expect(answer!.source).toBe('agent run output');
    expect(answer!.content).toMatch(/^An undici Pool keeps sockets open to one origin/);
    expect(answer!.content.startsWith(String((await t.app.services.agentRuns.get(id, null)).output!.text))).toBe(true);
    expect(answer!.content).toMatch(/\n\nSources:\n\[1\] .+ — https:\/\/(docs|blog)\.example/);

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
    // the model takes 2.5 s: an answer saying "running" came before the run ended, however loaded
    model.enqueue({ ...PLAN, delayMs: 2500 });
    const first = await callAgent({ query: 'slow undici question', effort: 'low', waitSeconds: 1 });
    expect(first.isError).toBeFalsy();
    const id = String(first.structuredContent!.id);
    expect(first.structuredContent).toMatchObject({ id, object: 'agent_run', status: 'running' });
    expect(first.structuredContent).not.toHaveProperty('output');
    expect(first.content[0]!.text).toMatch(new RegExp(`Agent run ${id} is still running after 1 s`));
    expect(first.content[0]!.text).toContain(`call agent_run with {"runId": "${id}"}`);

    const progress: Progress[] = [];
    const second = await callAgent({ runId: id }, (p) => progress.push(p));
    expect(second.isError).toBeFalsy();
    expect(recordOf(second)).toEqual(await stored(id));
    expect(second.structuredContent).toMatchObject({ id, status: 'completed' });
    expect(outsideFences(textOf(second))).toMatch(new RegExp(`^Agent run ${id}: completed, effort low, .*\\n\\nAnswer:\\n<fence>$`)); // prettier-ignore
    expect(fenced(textOf(second))[0]!.content).toMatch(/^An undici Pool/);
    expect(progress.at(-1)?.message).toBe('Completed');
  });

  it('leaves the run going when the client cancels the call', async () => {
    model.enqueue({ ...PLAN, delayMs: 800 });
    const controller = new AbortController();
    const call = callAgent({ query: 'cancelled call, running run', effort: 'low' }, () => controller.abort(), controller.signal); // prettier-ignore
    await expect(call).rejects.toThrow();
    await t.app.services.agentRuns.engine.drain();
    const runs = (await t.app.services.agentRuns.list(null, { limit: 5 })).data;
    const runId = runs.find((r) => r.request.query === 'cancelled call, running run')!.id;
    expect((await t.app.services.agentRuns.get(runId, null)).status).toBe('completed');
  });

  it('answers a failed run as an error with its code and message', async () => {
    const repo = createAgentRunsRepo(t.app.db);
    await repo.insert({ id: 'run_orphan_mcp', key_id: '', team_id: 'team_default', request: '{"query":"q","effort":"low"}', owner: null, lease_until_ms: null, created_at: new Date().toISOString() }); // prettier-ignore
    t.app.db.prepare("UPDATE agent_runs SET status = 'running', lease_until_ms = 1, progress = '{\"starts\":1,\"clientModel\":true}' WHERE id = 'run_orphan_mcp'").run(); // prettier-ignore
    await t.app.services.agentRuns.engine.tick();
    const res = await callAgent({ runId: 'run_orphan_mcp' });
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/^interrupted: the run was interrupted/);
    expect(res.content[0]!.text).toContain('run_orphan_mcp failed');
    expect(res.structuredContent).toEqual(await stored('run_orphan_mcp'));
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
    const budget = await callAgent({ runId: 'run_x', maxTokens: 100 });
    expect(budget.isError).toBe(true);
    expect(budget.content[0]!.text).toMatch(/^INVALID_REQUEST_BODY: .*maxTokens/);
    const missing = await callAgent({ runId: 'run_missing' });
    expect(missing.content[0]!.text).toMatch(/^NOT_FOUND: agent run run_missing not found/);
  });
});

describe('agent_runs', () => {
  const runs = async (args: Json) => (await client.callTool({ name: 'agent_runs', arguments: args })) as ToolResult;

  it('creates, gets, lists and reads the events of runs through one tool with an action', async () => {
    const created = await runs({ action: 'create', query: 'undici agent origins', effort: 'minimal' });
    expect(created.isError, textOf(created)).toBeFalsy();
    const id = String(created.structuredContent!.id);
    // answered at once: the new run, not its end
    expect(recordOf(created)).toMatchObject({ id, object: 'agent_run', request: { query: 'undici agent origins', effort: 'minimal' } }); // prettier-ignore
    expect(created.structuredContent).not.toHaveProperty('output');
    expect(textOf(created)).toMatch(new RegExp(`^Agent run ${id} \\((queued|running)\\)\\nid: ${id}\\n`));
    await t.app.services.agentRuns.engine.drain();

    const got = await runs({ action: 'get', id });
    const run = await stored(id);
    expect(run.status).toBe('completed');
    expect(recordOf(got)).toEqual(run);
    expect(outsideFences(textOf(got))).toMatch(new RegExp(`^Agent run ${id} \\(completed\\)\\nid: ${id}\\n[^]*\\n\\noutput:\\n<fence>$`)); // prettier-ignore
    const output = (await t.app.services.agentRuns.get(id, null)).output;
    expect(fenced(textOf(got))).toEqual([{ source: 'agent run output', content: JSON.stringify(output, null, 1) }]);

    const listed = await runs({ action: 'list', limit: 100 });
    // each run's record without its output (read one with get), and a line saying so
    const records = (await t.app.services.agentRuns.list(null, { limit: 100 })).data.map(
      ({ output: _o, ...run }) => run,
    );
    expect(listed.structuredContent).toEqual({ hasMore: false, nextCursor: null, data: records });
    expect(textOf(listed)).toContain('Outputs are left out of lists: read one with the get action.');
    expect(textOf(listed)).toContain(`\n\n${id}  completed  created ${run.createdAt}`);

    const events = await runs({ action: 'events', id });
    const data = events.structuredContent!.data as Json[];
    expect(data.map((e) => e.id)).toEqual(data.map((_e, i) => i + 1));
    expect([data[0]!.event, data.at(-1)!.event]).toEqual(['agent_run.created', 'agent_run.completed']);
    expect(textOf(events)).toBe(['Events:', ...data.map((e) => `#${e.id} ${e.event}`)].join('\n\n'));
  });

  it('cancels a running run and deletes it', async () => {
    const asked = model.requests.length;
    model.enqueue({ ...PLAN, delayMs: 1000 });
    const created = await runs({ action: 'create', query: 'undici run to cancel', effort: 'low' });
    const id = String(created.structuredContent!.id);
    // running: waiting on its (slow) model call
    await vi.waitFor(() => expect(model.requests.length).toBeGreaterThan(asked));
    const cancelled = await runs({ action: 'cancel', id });
    expect(cancelled.isError, textOf(cancelled)).toBeFalsy();
    expect(recordOf(cancelled)).toMatchObject({ id, status: 'cancelled' });
    expect(cancelled.structuredContent).not.toHaveProperty('output');
    // it stays cancelled when its model call comes back
    await t.app.services.agentRuns.engine.drain();
    expect((await t.app.services.agentRuns.get(id, null)).status).toBe('cancelled');
    const deleted = await runs({ action: 'delete', id });
    expect(recordOf(deleted)).toEqual({ id, object: 'agent_run', deleted: true });
    expect(textOf(deleted)).toBe(`Agent run ${id} deleted.`);
    const gone = await runs({ action: 'get', id });
    expect(gone.isError).toBe(true);
    expect(textOf(gone)).toMatch(new RegExp(`^NOT_FOUND: agent run ${id} not found`));
  });

  it("answers an unknown action, or an action's foreign arguments, with an error naming what it takes", async () => {
    const unknown = await runs({ action: 'pause', id: 'run_x' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe('INVALID_REQUEST_BODY: action: must be one of create, list, get, events, cancel, delete'); // prettier-ignore
    const stray = await runs({ action: 'get', id: 'run_x', query: 'x' });
    expect(stray.isError).toBe(true);
    expect(textOf(stray)).toMatch(/^INVALID_REQUEST_BODY: query: not an argument of action "get" \(it takes: id\b/);
    const missing = await runs({ action: 'get', id: 'run_nope' });
    expect(textOf(missing)).toMatch(/^NOT_FOUND: agent run run_nope not found/);
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
    // systemPrompt is not advertised, but accepted (the create endpoint's field)
    const done = await callAgent({ query: 'undici keep-alive', effort: 'minimal', systemPrompt: 'Be brief.' });
    const id = String(done.structuredContent!.id);
    expect(done.structuredContent!.request).toMatchObject({ query: 'undici keep-alive', systemPrompt: 'Be brief.' });
    const uri = `trawl://agent-runs/${id}`;

    const runs = (await client.listResources()).resources.filter((r) => r.uri.startsWith('trawl://agent-runs/'));
    expect(runs.length).toBeLessThanOrEqual(20);
    expect(runs[0]).toMatchObject({ uri, name: id, title: 'completed: undici keep-alive' });

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
