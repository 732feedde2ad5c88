/**
 * Tokens keep teams apart on both backends: a person of team beta signed in through an external issuer
 * (oidc-provider in its own process) makes a monitor and an MCP task; a person of team alpha, with a
 * token of the same issuer, gets 404 for the monitor at REST and through the MCP tool, and no task.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, type TestServer } from '../helpers/app.js';
import { BACKENDS, startServerOn } from '../helpers/backend-server.js';
import { startExternalIssuer, type ExternalIssuer, type IssuerClient } from '../helpers/external-issuer.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SCOPE = 'search contents context monitors agent';
const ALPHA: IssuerClient = { id: 'tenancy-alpha', secret: 'alpha-secret-0123456789abcdef0123', team: 'alpha' };
const BETA: IssuerClient = { id: 'tenancy-beta', secret: 'beta-secret-0123456789abcdef01234', team: 'beta' };

let issuer: ExternalIssuer;
beforeAll(async () => {
  issuer = await startExternalIssuer([ALPHA, BETA]);
});
afterAll(async () => {
  await issuer?.close();
});

describe.each(BACKENDS)('OAuth tokens and team ownership on %s', (backend) => {
  let t: TestServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startServerOn(backend, { authIssuer: issuer.issuer, allowInsecureWebhooks: true, tools: 'all' });
    for (const name of ['alpha', 'beta']) {
      expect((await postJson(t.url, '/admin/teams', { name }, { 'x-api-key': t.key })).status).toBe(201);
    }
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  const token = (client: IssuerClient, path: string) => issuer.token(client, `${t.url}${path}`, SCOPE);
  const rest = async (bearer: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(t.url + path, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, // prettier-ignore
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
  };
  const mcp = async (bearer: string) => {
    const client = new Client({ name: 'oauth-tenancy', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', t.url), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }), // prettier-ignore
    );
    clients.push(client);
    return client;
  };

  it("gives a token of team alpha 404 for team beta's monitor, at REST and through the tool, and no task of beta's", async () => {
    const created = await rest(await token(BETA, '/'), 'POST', '/monitors', { search: { query: 'pooling' }, webhook: { url: 'http://127.0.0.1:9/hook' } }); // prettier-ignore
    expect(created.status).toBe(201);
    const beta = await mcp(await token(BETA, '/mcp'));
    const { task } = await beta.request(
      { method: 'tools/call', params: { name: 'search', arguments: { query: 'pooling' }, task: {} } },
      CreateTaskResultSchema,
    );
    expect((await beta.experimental.tasks.getTask(task.taskId)).taskId).toBe(task.taskId);

    expect((await rest(await token(ALPHA, '/'), 'GET', `/monitors/${created.body.id}`)).status).toBe(404);
    const alpha = await mcp(await token(ALPHA, '/mcp'));
    await expect(alpha.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
    const viaTool = (await alpha.callTool({ name: 'monitors', arguments: { action: 'get', id: created.body.id } })) as Json; // prettier-ignore
    expect(viaTool.isError).toBe(true);
    expect(viaTool.content[0].text).toMatch(/NOT_FOUND/);
  });
});
