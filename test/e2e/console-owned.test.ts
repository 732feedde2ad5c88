/**
 * The console's routes on what a team or a key owns, through the real HTTP door on SQLite and PostgreSQL:
 * a failed webhook delivery queued again and delivered (a delivered one refused), the caller's own MCP
 * tasks paged, and an agent run's events followed live while it runs (its web search held by a loopback
 * search engine) until it ends, resumed from Last-Event-ID. A key of team B gets 404 for team A's monitor and run and none of its tasks; a key
 * without the scope gets 403.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BACKENDS, startServerOn } from '../helpers/backend-server.js';
import { callJson, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The events of a `text/event-stream` response, read to its end as a client parses them (each told to `seen`). */
async function eventsOf(res: Response, seen?: (e: EventSourceMessage) => void): Promise<EventSourceMessage[]> {
  const out: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (e) => {
      out.push(e);
      seen?.(e);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true })); // prettier-ignore
  return out;
}

/** A SearXNG stand-in that answers no results at once, or holds its answers while `hold` is on. */
async function startSearxng() {
  const held: (() => void)[] = [];
  const state = { hold: false, asked: 0 };
  const server = http.createServer((_req, res) => {
    state.asked++;
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"results": []}');
    if (state.hold) held.push(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    release() {
      state.hold = false;
      for (const answer of held.splice(0)) answer();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(BACKENDS)("the console's owned routes on %s", (backend) => {
  let t: TestServer;
  let receiver: Receiver;
  let searxng: Awaited<ReturnType<typeof startSearxng>>;
  const keys = { owner: '', teammate: '', otherTeam: '', searchOnly: '' };
  const clients: Client[] = [];
  const api = (key: string, method: string, path: string, body?: unknown) => callJson(t.url, key, method, path, body);

  beforeAll(async () => {
    receiver = await startReceiver();
    searxng = await startSearxng();
    t = await startServerOn(backend, { allowInsecureWebhooks: true, webhookTimeoutMs: 2000, searxngUrl: searxng.url, privateAllowlist: '127.0.0.1/32' }); // prettier-ignore
    const { teams } = t.app.services.accounts;
    const [a, b] = [await teams.create('owned-a', {}, null), await teams.create('owned-b', {}, null)];
    const make = async (name: string, teamId: string, scopes?: string[]) =>
      (await t.app.services.keys.create(name, { teamId, scopes: scopes as never }, null)).key;
    keys.owner = await make('owner', a.id);
    keys.teammate = await make('teammate', a.id);
    keys.otherTeam = await make('other team', b.id);
    keys.searchOnly = await make('search only', a.id, ['search']);
    await t.app.services.documents.upsertMany(
      [storedDoc('https://docs.example.com/owned/pool', 'Pooling', 'Connection pooling keeps sockets open.')],
      new Date().toISOString(),
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
    await receiver?.close();
    await searxng?.close();
  });

  it('queues a failed delivery of a monitor again, delivers it, and refuses one delivered', async () => {
    receiver.failNext(1, 503);
    const made = await api(keys.owner, 'POST', '/monitors', { search: { query: 'pooling' }, webhook: { url: receiver.url } }); // prettier-ignore
    expect(made.status).toBe(201);
    await t.app.services.monitors.engine.flush(); // the first attempt: 503
    const [failed] = (await api(keys.owner, 'GET', `/monitors/${made.body.id}/deliveries`)).body.data as Json[];
    expect(failed).toMatchObject({ type: 'monitor.created', status: 'pending', lastError: 'HTTP 503' });
    expect(Date.parse(failed!.nextAttemptAt)).toBeGreaterThan(Date.now() + 10_000); // its backoff: not soon
    const retry = `/console/api/monitors/${made.body.id}/deliveries/${failed!.eventId}/retry`;
    // another team's key: as if neither existed; a key without `monitors`: 403
    expect((await api(keys.otherTeam, 'POST', retry)).body).toMatchObject({ tag: 'NOT_FOUND' });
    expect((await api(keys.otherTeam, 'POST', retry)).status).toBe(404);
    expect((await api(keys.searchOnly, 'POST', retry)).body).toMatchObject({ tag: 'INSUFFICIENT_SCOPE' });
    const unknown = `/console/api/monitors/${made.body.id}/deliveries/evt_none/retry`;
    expect((await api(keys.owner, 'POST', unknown)).status).toBe(404);
    const queued = await api(keys.teammate, 'POST', retry); // any key of the team
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ eventId: failed!.eventId, status: 'pending', attempts: [expect.objectContaining({ status: 503 })] }); // prettier-ignore
    expect(Date.parse(queued.body.nextAttemptAt)).toBeLessThanOrEqual(Date.now());
    expect(await t.app.services.monitors.engine.flush()).toBe(1);
    const [delivered] = (await api(keys.owner, 'GET', `/monitors/${made.body.id}/deliveries`)).body.data as Json[];
    expect(delivered).toMatchObject({ status: 'delivered', lastError: null });
    expect(delivered!.attempts).toHaveLength(2);
    const again = await api(keys.owner, 'POST', retry);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ tag: 'INVALID_REQUEST' });
    expect(again.body.error).toMatch(/delivered already/);
  });

  it("lists the caller's own MCP tasks, newest first, a page at a time", async () => {
    const connect = async (key: string) => {
      const client = new Client({ name: 'console-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } })); // prettier-ignore
      clients.push(client);
      return client;
    };
    const owner = await connect(keys.owner);
    const started: string[] = [];
    for (const query of ['pooling', 'sockets', 'connections']) {
      const params = { name: 'search', arguments: { query }, task: {} };
      started.push((await owner.request({ method: 'tools/call', params }, CreateTaskResultSchema)).task.taskId);
    }
    await (await connect(keys.teammate)).request({ method: 'tools/call', params: { name: 'search', arguments: { query: 'x' }, task: {} } }, CreateTaskResultSchema); // prettier-ignore
    const first = await api(keys.owner, 'GET', '/console/api/tasks?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.map((task: Json) => task.taskId)).toEqual([started[2], started[1]]);
    expect(first.body.data[0]).toMatchObject({ tool: 'search', runId: null });
    expect(['working', 'completed']).toContain(first.body.data[0].status);
    expect(first.body.hasMore).toBe(true);
    const rest = await api(keys.owner, 'GET', `/console/api/tasks?limit=2&cursor=${first.body.nextCursor}`);
    expect(rest.body).toMatchObject({ data: [expect.objectContaining({ taskId: started[0] })], hasMore: false, nextCursor: null }); // prettier-ignore
    // another key's tasks are its own: the teammate's one, another team's none, whatever scopes they hold
    expect((await api(keys.teammate, 'GET', '/console/api/tasks')).body.data).toHaveLength(1);
    expect((await api(keys.otherTeam, 'GET', '/console/api/tasks')).body.data).toEqual([]);
    expect((await api(keys.searchOnly, 'GET', '/console/api/tasks')).body.data).toEqual([]);
    expect((await api(keys.owner, 'GET', '/console/api/tasks?cursor=zzz')).body).toMatchObject({ tag: 'INVALID_REQUEST_QUERY' }); // prettier-ignore
    expect((await fetch(`${t.url}/console/api/tasks`)).status).toBe(401);
  });

  it("follows an agent run's events live until it ends, and resumes from Last-Event-ID", async () => {
    // the run waits on its web search until the test lets the search engine answer
    searxng.state.hold = true;
    const asked = searxng.state.asked;
    const made = await api(keys.owner, 'POST', '/agent/runs', { query: 'connection pooling', effort: 'minimal' });
    expect(made.status).toBe(201);
    const path = `/console/api/agent/runs/${made.body.id}/events`;
    expect((await api(keys.teammate, 'GET', path)).status).toBe(404); // a run is its key's alone
    expect((await api(keys.otherTeam, 'GET', path)).status).toBe(404);
    expect((await api(keys.searchOnly, 'GET', path)).body).toMatchObject({ tag: 'INSUFFICIENT_SCOPE' });
    // followed while it runs: the stream sends what is stored, then waits for what comes
    await vi.waitFor(() => expect(searxng.state.asked).toBeGreaterThan(asked), { timeout: 10_000, interval: 50 });
    const res = await fetch(t.url + path, { headers: { 'x-api-key': keys.owner } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    let firstSeen!: () => void;
    const first = new Promise<void>((resolve) => (firstSeen = resolve));
    const following = eventsOf(res, () => firstSeen());
    await first; // the client holds the run's first event: a replay of what is stored would end soon after
    expect((await api(keys.owner, 'GET', `/agent/runs/${made.body.id}`)).body.status).toBe('running');
    searxng.release();
    const events = await following;
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('agent_run.created');
    expect(names).toContain('agent_run.started');
    expect(names.at(-1)).toBe('agent_run.completed');
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    const last = JSON.parse(events.at(-1)!.data) as Json;
    expect(last).toMatchObject({ id: made.body.id, status: 'completed' });
    const resumed = await fetch(t.url + path, {
      headers: { 'x-api-key': keys.owner, 'last-event-id': String(ids[1]) },
    });
    expect((await eventsOf(resumed)).map((e) => Number(e.id))).toEqual(ids.slice(2));
  });
});
