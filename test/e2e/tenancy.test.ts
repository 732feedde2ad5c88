/**
 * One team cannot touch another's work (issue 32, rows 1, 2 and 8), tried as the attacker tried it: over
 * the real HTTP door and /mcp, with keys made by the admin routes and by `trawl keys create` (the built CLI
 * on the same data directory). Every call is one that any version of Trawl answers, so each case also
 * shows what the code before owners did (it let all of them through).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, CLI, startTestServer, teamWithKey as makeTeamWithKey, type TestServer } from '../helpers/app.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTestServer({ allowInsecureWebhooks: true, tools: 'all' });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

/** A REST call with `key`; the status and the parsed body. */
const call = (key: string, method: string, path: string, body?: unknown) => callJson(t.url, key, method, path, body);

/** A team made with the operator's key, and a key of it with `scopes`. */
const teamWithKey = (name: string, scopes: string[]) => makeTeamWithKey(t.url, t.key, name, scopes);

async function mcp(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
    requestInit: { headers: { 'x-api-key': key } },
  });
  const client = new Client({ name: 'tenancy', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe('a key of another team', () => {
  it("finds none of a team's monitors: not listed, not read, changed, triggered or deleted, over REST and MCP (row 1)", async () => {
    const keyA = await teamWithKey('row1-a', ['monitors']);
    const keyB = await teamWithKey('row1-b', ['monitors']);
    const hook = 'http://127.0.0.1:9/hook?token=team-a-secret';
    const created = await call(keyA, 'POST', '/monitors', { search: { query: 'pooling' }, webhook: { url: hook } });
    expect(created.status).toBe(201);
    const id = String(created.body.id);

    const listed = await call(keyB, 'GET', '/monitors');
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(id);
    expect(JSON.stringify(listed.body)).not.toContain('team-a-secret');
    const attempts = [
      await call(keyB, 'GET', `/monitors/${id}`),
      await call(keyB, 'PATCH', `/monitors/${id}`, { webhook: { url: 'http://127.0.0.1:9/team-b' } }),
      await call(keyB, 'POST', `/monitors/${id}/trigger`),
      await call(keyB, 'GET', `/monitors/${id}/runs`),
      await call(keyB, 'GET', `/monitors/${id}/deliveries`),
      await call(keyB, 'DELETE', `/monitors/${id}`),
    ];
    // 404 with the monitor routes' {error} body, as for a monitor that does not exist
    expect(attempts.map((a) => a.status)).toEqual([404, 404, 404, 404, 404, 404]);
    for (const a of attempts) expect(a.body).toEqual({ error: `monitor ${id} not found` });

    const tool = await mcp(keyB);
    const asB = async (args: Json) => (await tool.callTool({ name: 'monitors', arguments: args })) as Json;
    expect(JSON.stringify((await asB({ action: 'list' })).structuredContent)).not.toContain(id);
    for (const action of ['get', 'delete', 'trigger', 'list_runs', 'list_deliveries']) {
      const res = await asB({ action, id });
      expect(res.isError, action).toBe(true);
      expect(res.content[0].text, action).toMatch(/^NOT_FOUND: monitor \S+ not found/);
    }
    expect((await asB({ action: 'update', id, webhook: { url: 'http://127.0.0.1:9/b' } })).content[0].text).toMatch(/^NOT_FOUND/); // prettier-ignore

    // team A's monitor is as it was: its webhook not re-pointed, never run, still there
    const mine = await call(keyA, 'GET', `/monitors/${id}`);
    expect(mine.status).toBe(200);
    expect(mine.body.webhook.url).toBe(hook);
    expect((await call(keyA, 'GET', `/monitors/${id}/runs`)).body.data).toEqual([]);
  });
});

describe('a key made with `trawl keys create --team T` and no --scopes', () => {
  it('holds every scope but admin: it makes no keys and adds no credits, in its team or another (row 2)', async () => {
    await teamWithKey('row2-a', ['search']);
    await teamWithKey('row2-b', ['search']);
    // not spawnSync: a blocked event loop lets the door's idle keep-alive sockets expire under the next call
    const made = await promisify(execFile)(process.execPath, [CLI, 'keys', 'create', '--name', 'a', '--team', 'row2-a', '--data-dir', t.dataDir], { encoding: 'utf8', env: { ...process.env, TRAWL_DATA_DIR: '' } }); // prettier-ignore
    const key = made.stdout.trim();
    expect(made.stderr).not.toMatch(/admin/);

    const keyInB = await call(key, 'POST', '/admin/keys', { name: 'mine now', team: 'row2-b' });
    const credits = await call(key, 'POST', '/admin/teams/row2-a/credits', { amount: 1_000_000 });
    const teams = await call(key, 'GET', '/admin/teams');
    for (const refused of [keyInB, credits, teams]) {
      expect(refused.status).toBe(403);
      expect(refused.body.tag).toBe('INSUFFICIENT_SCOPE');
    }
    // what it may do, it does
    expect((await call(key, 'POST', '/search', { query: 'pooling' })).status).toBe(200);
  });
});

describe("a blocked team's key", () => {
  it('is refused on every route and every MCP method, its tasks included (row 8)', async () => {
    const key = await teamWithKey('row8', ['search', 'monitors']);
    const client = await mcp(key);
    const { task } = await client.request(
      { method: 'tools/call', params: { name: 'search', arguments: { query: 'pooling' }, task: {} } },
      CreateTaskResultSchema,
    );
    expect((await call(t.key, 'PATCH', '/admin/teams/row8', { blocked: true })).status).toBe(200);

    const rpc = async (method: string, params: Json) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    for (const [method, params] of [
      ['tasks/list', {}],
      ['tasks/result', { taskId: task.taskId }],
      ['tasks/get', { taskId: task.taskId }],
      ['tools/list', {}],
    ] as const) {
      const res = await rpc(method, params);
      expect(res.status, method).toBe(403);
      expect(((await res.json()) as Json).tag, method).toBe('TEAM_BLOCKED');
    }
    const monitors = await call(key, 'GET', '/monitors');
    expect(monitors.status).toBe(403);
    expect(monitors.body.error).toMatch(/Team "row8" is blocked/);
    expect((await call(key, 'POST', '/search', { query: 'pooling' })).body.tag).toBe('TEAM_BLOCKED');
  });
});
