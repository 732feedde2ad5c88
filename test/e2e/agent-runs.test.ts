/**
 * Agent runs end to end through the real HTTP door: created, queued, run by the research loop over the
 * local index (with the loopback model server, or none), their events as JSON and as SSE (live, and
 * replayed from Last-Event-ID), cancellation, deletion, per-key concurrency, restart recovery, and
 * exa-js's agent.runs client.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Exa } from 'exa-js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/mcp/catalog.js';
import { createAgentRunsRepo } from '../../src/store/sqlite/agent-runs.js';
import { makeTestApp, startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { connectMcp } from '../helpers/mcp.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PAGES = [
  storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', 'An undici Pool keeps sockets open to one origin and queues requests when every socket is busy. Set connections to bound it. Questions: pools@docs.example.com.'), // prettier-ignore
  storedDoc('https://docs.example.com/undici/agent', 'The undici Agent', 'An undici Agent manages one pool per origin, so a client calling many hosts reuses connections to each.'), // prettier-ignore
  storedDoc('https://blog.example.org/keepalive', 'Keep-alive in Node.js HTTP clients', 'Keep-alive reuses sockets between requests; undici enables it by default with a keepAliveTimeout.'), // prettier-ignore
];

const SCHEMA = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    contactEmail: { type: ['string', 'null'], format: 'email' },
    phone: { type: ['string', 'null'], format: 'phone' },
  },
  required: ['summary'],
};

let plain: TestServer; // no model: only minimal and low efforts
let withModel: TestServer;
let model: ModelServer;

async function call(t: TestServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  // prettier-ignore
  const res = await fetch(t.url + path, {
    method,
    headers: { 'x-api-key': t.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function waitFor(t: TestServer, id: string): Promise<Json> {
  await t.app.services.agentRuns.engine.drain();
  return (await call(t, 'GET', `/agent/runs/${id}`)).body;
}

/** The SSE frames of a response, parsed as a client would (comments ignored). */
async function frames(res: Response): Promise<EventSourceMessage[]> {
  const out: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => out.push(e) });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true })); // prettier-ignore
  return out;
}

beforeAll(async () => {
  model = await startModelServer({
    reply: (body) => {
      const last = String(body.messages.at(-1)?.content ?? '');
      if (JSON.stringify(body).includes('"name":"answer"')) {
        // a structured answer: one email the pages show, one phone number they do not
        return { json: { content: { summary: 'An undici Pool keeps sockets open to one origin.', contactEmail: 'pools@docs.example.com', phone: '+1 555 0100 999' }, citations: { summary: [1], contactEmail: [1] } } }; // prettier-ignore
      }
      // planning asks for queries as JSON; answers get a cited sentence
      if (/quer/i.test(String(body.messages[0]?.content ?? '')) && /json/i.test(JSON.stringify(body)))
        return { json: { queries: ['undici Agent per origin pools'] } };
      return last.includes('[1]') || last.length > 0 ? 'An undici Pool keeps sockets open to one origin [1].' : 'ok';
    },
  });
  plain = await startTestServer();
  withModel = await startTestServer({ modelBaseUrl: model.baseUrl, model: 'test-model' });
  for (const t of [plain, withModel]) await t.app.services.documents.upsertMany(PAGES, new Date().toISOString());
});
afterAll(async () => {
  await plain.close();
  await withModel.close();
  await model.close();
});

describe('agent runs without a model', () => {
  it('refuses efforts that need a model, naming the setting', async () => {
    const res = await call(plain, 'POST', '/agent/runs', { query: 'undici pooling', effort: 'medium' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ tag: 'FEATURE_DISABLED' });
    expect(res.body.error).toMatch(/TRAWL_MODEL_BASE_URL/);
  });

  it('researches at effort minimal and answers from the sources, with grounding, events and a fixed price', async () => {
    const created = await call(plain, 'POST', '/agent/runs', { query: 'how does undici pool connections', effort: 'minimal' }); // prettier-ignore
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'agent_run', request: { query: 'how does undici pool connections' } });
    expect(['queued', 'running']).toContain(created.body.status);
    const run = await waitFor(plain, created.body.id as string);
    expect(run.status).toBe('completed');
    expect(run.output.text.length).toBeGreaterThan(20);
    expect(run.output.grounding[0].citations[0].url).toMatch(/^https:\/\/(docs|blog)\.example/);
    expect(run.costDollars.total).toBe(0.012);
    expect(run.usage.searches).toBe(1);
    const events = (await call(plain, 'GET', `/agent/runs/${run.id}/events`)).body.data as Json[];
    expect(events.map((e) => e.id)).toEqual(events.map((_e, i) => i + 1));
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('agent_run.created');
    expect(names[1]).toBe('agent_run.started');
    expect(names.at(-1)).toBe('agent_run.completed');
    expect(names).toContain('agent_run.source.added');
    const search = events.find((e) => e.event === 'agent_run.search')!;
    const progress = events.find((e) => e.event === 'agent_run.tool.progress')!;
    expect(progress.data.callId).toBe(search.data.callId);
    expect(progress.data.item.call_id).toBe(search.data.callId);
    expect(events.at(-1)!.data).toMatchObject({ id: run.id, status: 'completed', output: { text: run.output.text } });
  });

  it('searches for each row of input.data and never surfaces input.exclusion entries', async () => {
    const created = await call(plain, 'POST', '/agent/runs', {
      query: 'keep-alive',
      effort: 'minimal',
      input: { data: [{ name: 'undici Agent' }], exclusion: [{ domain: 'blog.example.org' }] },
    });
    const run = await waitFor(plain, created.body.id as string);
    expect(run.status).toBe('completed');
    const events = (await call(plain, 'GET', `/agent/runs/${run.id}/events`)).body.data as Json[];
    const queries = events.filter((e) => e.event === 'agent_run.search').map((e) => e.data.query);
    expect(queries).toEqual(['keep-alive', 'keep-alive undici Agent']);
    const sources = events.filter((e) => e.event === 'agent_run.source.added').map((e) => e.data.url as string);
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.some((u) => u.includes('blog.example.org'))).toBe(false); // the keep-alive post is excluded
    const structured = await call(plain, 'POST', '/agent/runs', {
      query: 'q',
      effort: 'minimal',
      outputSchema: SCHEMA,
    });
    expect(structured.status).toBe(403);
    expect(structured.body.error).toMatch(/outputSchema: structured output needs a language model/);
  });

  it('searches only the dataSources named, and refuses unknown ones', async () => {
    let asked = 0;
    const searx = http.createServer((_req, res) => {
      asked++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"results": []}');
    });
    await new Promise<void>((resolve) => searx.listen(0, '127.0.0.1', resolve));
    const t = await startTestServer({ searxngUrl: `http://127.0.0.1:${(searx.address() as AddressInfo).port}` });
    try {
      await t.app.services.documents.upsertMany(PAGES, new Date().toISOString());
      const local = await call(t, 'POST', '/agent/runs', { query: 'undici pool', effort: 'minimal', dataSources: [{ provider: 'trawl' }] }); // prettier-ignore
      expect((await waitFor(t, local.body.id as string)).status).toBe('completed');
      expect(asked).toBe(0); // the index alone
      const both = await call(t, 'POST', '/agent/runs', { query: 'undici pool', effort: 'minimal', dataSources: [{ provider: 'searxng' }] }); // prettier-ignore
      await waitFor(t, both.body.id as string);
      expect(asked).toBeGreaterThan(0);
      const unknown = await call(t, 'POST', '/agent/runs', { query: 'q', effort: 'minimal', dataSources: [{ provider: 'brave' }] }); // prettier-ignore
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatch(
        /dataSources\[0\]\.provider: unknown data source "brave"; this Trawl offers trawl, searxng/,
      );
    } finally {
      await t.close();
      searx.close();
    }
  });

  it('continues a completed run with previousRunId, starting from its sources', async () => {
    const first = await call(plain, 'POST', '/agent/runs', { query: 'undici pool sockets', effort: 'minimal' });
    await waitFor(plain, first.body.id as string);
    const next = await call(plain, 'POST', '/agent/runs', { query: 'undici agent origins', effort: 'minimal', previousRunId: first.body.id }); // prettier-ignore
    expect(next.status).toBe(201);
    const run = await waitFor(plain, next.body.id as string);
    expect(run).toMatchObject({ status: 'completed', request: { previousRunId: first.body.id } });
    const missing = await call(plain, 'POST', '/agent/runs', {
      query: 'q',
      effort: 'minimal',
      previousRunId: 'run_nope',
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/previousRunId/);
  });
});

describe('agent runs with a model', () => {
  it('plans more searches at effort medium and is priced at the medium effort', async () => {
    const created = await call(withModel, 'POST', '/agent/runs', {
      query: 'undici connection reuse',
      effort: 'medium',
    });
    const run = await waitFor(withModel, created.body.id as string);
    expect(run.status).toBe('completed');
    expect(run.output.text).toMatch(/undici Pool/);
    expect(run.usage.searches).toBeGreaterThanOrEqual(2);
    expect(run.usage.agentComputeUnits).toBeGreaterThan(0);
    expect(run.costDollars.total).toBe(0.1);
  });

  it('fills outputSchema from the sources, keeping only contact fields the pages show, and prices them', async () => {
    const created = await call(withModel, 'POST', '/agent/runs', { query: 'undici pool support contact', effort: 'low', outputSchema: SCHEMA }); // prettier-ignore
    const run = await waitFor(withModel, created.body.id as string);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.output.structured).toEqual({
      summary: 'An undici Pool keeps sockets open to one origin.',
      contactEmail: 'pools@docs.example.com',
      phone: null, // no page shows it: not invented
    });
    expect(run.output.text).toMatch(/contactEmail: pools@docs\.example\.com/);
    expect(run.output.grounding.map((g: Json) => g.field)).toContain('structured.summary');
    expect(run.usage).toMatchObject({ emails: 1, phoneNumbers: 0 });
    expect(run.costDollars).toMatchObject({ emails: 0.02, phoneNumbers: 0, total: 0.045 });
  });

  it('fails a structured run clearly when an unverified contact field is required', async () => {
    const strict = { ...SCHEMA, required: ['summary', 'phone'], properties: { ...SCHEMA.properties, phone: { type: 'string', format: 'phone' } } }; // prettier-ignore
    const created = await call(withModel, 'POST', '/agent/runs', { query: 'undici phone', effort: 'low', outputSchema: strict }); // prettier-ignore
    const run = await waitFor(withModel, created.body.id as string);
    expect(run.status).toBe('failed');
    expect(run.error.message).toMatch(/nullable and not required/);
  });

  it('streams a run’s events live with Accept: text/event-stream, and replays them from Last-Event-ID', async () => {
    const res = await fetch(`${withModel.url}/agent/runs`, {
      method: 'POST',
      headers: { 'x-api-key': withModel.key, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'undici keep-alive', effort: 'low' }),
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const live = await frames(res);
    expect(live[0]).toMatchObject({ event: 'agent_run.created', id: '1' });
    expect(live.at(-1)!.event).toBe('agent_run.completed');
    const runId = JSON.parse(live[0]!.data).id as string;

    const replay = await fetch(`${withModel.url}/agent/runs/${runId}/events`, {
      headers: { 'x-api-key': withModel.key, accept: 'text/event-stream', 'last-event-id': '2' },
    });
    const rest = await frames(replay);
    expect(rest.map((f) => f.id)).toEqual(live.slice(2).map((f) => f.id));
    expect(rest.map((f) => f.event)).toEqual(live.slice(2).map((f) => f.event));
  });

  it('keeps a run going when the client of its create stream goes away', async () => {
    const aborter = new AbortController();
    const res = await fetch(`${withModel.url}/agent/runs`, {
      method: 'POST',
      headers: { 'x-api-key': withModel.key, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'undici pool sizing', effort: 'low' }),
      signal: aborter.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const id = /"id":"(run_[0-9a-f]+)"/.exec(first)![1]!;
    aborter.abort(); // the client hangs up after the first frame
    const run = await waitFor(withModel, id);
    expect(run.status).toBe('completed');
  });

  it('cancels a running run, keeps it cancelled, and deletes it', async () => {
    model.enqueue({ delayMs: 1500, content: 'late answer [1]' });
    const created = await call(withModel, 'POST', '/agent/runs', { query: 'slow undici question', effort: 'low' });
    const id = created.body.id as string;
    const cancelled = await call(withModel, 'POST', `/agent/runs/${id}/cancel`);
    expect(cancelled.body).toMatchObject({ id, status: 'cancelled', stopReason: 'cancelled' });
    const after = await waitFor(withModel, id);
    expect(after.status).toBe('cancelled');
    const events = (await call(withModel, 'GET', `/agent/runs/${id}/events`)).body.data as Json[];
    expect(events.at(-1)).toMatchObject({ event: 'agent_run.cancelled', data: { id, status: 'cancelled' } });
    expect(await call(withModel, 'DELETE', `/agent/runs/${id}`)).toMatchObject({ body: { id, deleted: true } });
    expect((await call(withModel, 'GET', `/agent/runs/${id}`)).status).toBe(404);
  });
});

describe('agent run engine', () => {
  it('runs a fifth of a key’s request rate at once; the rest wait queued', async () => {
    const key = await withModel.app.services.keys.create('slow lane', { qps: 5 }, null); // one run at a time
    // the first run waits on a slow model, so it is still running when the second comes (a run without
    // one can end before the next request arrives, and the second would rightly start at once)
    for (let i = 0; i < 2; i++) model.enqueue({ delayMs: 400, content: 'late answer [1]' });
    const post = () =>
      fetch(`${withModel.url}/agent/runs`, {
        method: 'POST',
        headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'undici agent', effort: 'low' }),
      }).then(async (r) => (await r.json()) as Json);
    const [a, b] = [await post(), await post()];
    expect(a.status).toBe('running');
    expect(b.status).toBe('queued');
    await withModel.app.services.agentRuns.engine.drain();
    model.reset();
    const repo = createAgentRunsRepo(withModel.app.db);
    expect((await repo.get(a.id as string))!.status).toBe('completed');
    expect((await repo.get(b.id as string))!.status).toBe('completed');
    expect(Date.parse((await repo.get(b.id as string))!.started_at!)).toBeGreaterThanOrEqual(Date.parse((await repo.get(a.id as string))!.completed_at!)); // prettier-ignore
  });

  it('runs two of a key’s runs at once by default, whatever the rate limit (TRAWL_AGENT_CONCURRENCY)', async () => {
    // the server has no rate limit and the key none of its own; each run waits on a slow model
    const key = await withModel.app.services.keys.create('default lane', {}, null);
    for (let i = 0; i < 3; i++) model.enqueue({ delayMs: 1500, content: 'late answer [1]' });
    const post = () =>
      fetch(`${withModel.url}/agent/runs`, {
        method: 'POST',
        headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'slow undici question', effort: 'low' }),
      }).then(async (r) => (await r.json()) as Json);
    const runs = [await post(), await post(), await post()];
    expect(runs.map((r) => r.status)).toEqual(['running', 'running', 'queued']);
    for (const r of runs) await call(withModel, 'POST', `/agent/runs/${String(r.id)}/cancel`);
    await withModel.app.services.agentRuns.engine.drain();
    model.reset(); // no slow reply left for the next test
  });

  it('resumes a run whose process died (test/e2e/agent-resume.test.ts has the steps)', async () => {
    const repo = createAgentRunsRepo(plain.app.db);
    const keyId = (await plain.app.services.keys.verify(plain.key))!.keyId;
    await repo.insert({ id: 'run_orphan', key_id: keyId, team_id: 'team_default', request: '{"query":"undici pool","effort":"minimal"}', owner: null, lease_until_ms: null, created_at: new Date().toISOString() }); // prettier-ignore
    plain.app.db.prepare("UPDATE agent_runs SET status = 'running', lease_until_ms = 1 WHERE id = 'run_orphan'").run();
    await plain.app.services.agentRuns.engine.tick();
    const run = await waitFor(plain, 'run_orphan');
    expect(run).toMatchObject({ status: 'completed', error: null });
  });

  it('works with exa-js agent.runs: create, get, list and events', async () => {
    const exa = new Exa(plain.key, plain.url);
    const created = await exa.agent.runs.create({ query: 'undici pools', effort: 'minimal' });
    await plain.app.services.agentRuns.engine.drain();
    const run = await exa.agent.runs.get(created.id);
    expect(run.status).toBe('completed');
    expect(run.output?.text).toBeTruthy();
    expect((await exa.agent.runs.list({ limit: 2 })).data.map((r) => r.id)).toContain(created.id);
    const events = await exa.agent.runs.events.list(created.id);
    expect(events.data[0]!.event).toBe('agent_run.created');
  });
});

describe('zero data retention', () => {
  it('keeps no request, no replayable events, and the output only for 10 minutes of polling', async () => {
    const clock = { t: Date.now(), now: () => new Date(clock.t) };
    const t = await startTestServer({}, { clock });
    try {
      await t.app.services.documents.upsertMany(PAGES, new Date().toISOString());
      await t.app.services.accounts.teams.create('private', { zeroRetention: true }, null);
      const key = (
        await t.app.services.keys.create(
          'zdr',
          { teamId: await t.app.services.accounts.teams.idOf('private', null) },
          null,
        )
      ).key;
      const post = (body: Json, headers: Record<string, string> = {}) =>
        fetch(`${t.url}/agent/runs`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const refused = await post({ query: 'q', effort: 'minimal', dataSources: [{ provider: 'trawl' }] });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as Json).error).toMatch(/dataSources: not available with zero data retention/);

      // streamed live: the whole run arrives
      const live = await frames(await post({ query: 'private undici question', effort: 'minimal' }, { accept: 'text/event-stream' })); // prettier-ignore
      expect(live.at(-1)!.event).toBe('agent_run.completed');
      const id = JSON.parse(live[0]!.data).id as string;
      const get = async () => {
        const res = await fetch(`${t.url}/agent/runs/${id}`, { headers: { 'x-api-key': key } });
        return (await res.json()) as Json;
      };
      const polled = await get();
      expect(polled.request).toEqual({}); // the query is not kept
      expect(polled.output.text.length).toBeGreaterThan(0); // held for polling
      const replay = await fetch(`${t.url}/agent/runs/${id}/events`, { headers: { 'x-api-key': key } });
      expect(replay.status).toBe(403);

      clock.t += 11 * 60_000;
      await t.app.services.agentRuns.engine.tick();
      expect((await get()).output).toBeNull();
      const rows = t.app.db.prepare('SELECT COUNT(*) AS n FROM agent_events WHERE run_id = ?').get(id) as { n: number };
      expect(rows.n).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('budgets, pagination and restarts', () => {
  it('stops a metered run at its budget with what it found, and refuses budgets above the server’s maximum', async () => {
    // searches priced at $0.40, so a $1 budget affords two
    const t = await startTestServer({ modelBaseUrl: model.baseUrl, model: 'test-model', prices: '{"agentSearchCall": 0.4}', agentMaxCost: 5 }); // prettier-ignore
    try {
      await t.app.services.documents.upsertMany(PAGES, new Date().toISOString());
      const created = await call(t, 'POST', '/agent/runs', { query: 'undici pools', effort: 'auto', budget: { maxCostDollars: 1 } }); // prettier-ignore
      const run = await waitFor(t, created.body.id as string);
      expect(run).toMatchObject({ status: 'completed', stopReason: 'budget_reached' });
      expect(run.usage.searches).toBe(2);
      expect(run.costDollars.total).toBeLessThanOrEqual(1);
      expect(run.output.text.length).toBeGreaterThan(0);
      const tooMuch = await call(t, 'POST', '/agent/runs', {
        query: 'q',
        effort: 'auto',
        budget: { maxCostDollars: 10 },
      });
      expect(tooMuch.status).toBe(400);
      expect(tooMuch.body.error).toMatch(/budget\.maxCostDollars: must be at most 5/);
    } finally {
      await t.close();
    }
  });

  it('pages the list newest first with a cursor', async () => {
    const key = await plain.app.services.keys.create('lister', {}, null);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${plain.url}/agent/runs`, {
        method: 'POST',
        headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `undici ${i}`, effort: 'minimal' }),
      });
      ids.push(((await res.json()) as Json).id as string);
    }
    await plain.app.services.agentRuns.engine.drain();
    const get = async (q: string) =>
      (await (await fetch(`${plain.url}/agent/runs${q}`, { headers: { 'x-api-key': key.key } })).json()) as Json;
    const first = await get('?limit=2');
    expect(first.data.map((r: Json) => r.id)).toEqual([ids[2], ids[1]]);
    expect(first.hasMore).toBe(true);
    const second = await get(`?limit=2&cursor=${first.nextCursor}`);
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
    expect(second.data.map((r: Json) => r.id)).toEqual([ids[0]]);
  });

  it('starts runs left queued by a process that stopped', async () => {
    const repo = createAgentRunsRepo(plain.app.db);
    const keyId = (await plain.app.services.keys.verify(plain.key))!.keyId;
    await repo.insert({ id: 'run_leftqueued', key_id: keyId, team_id: 'team_default', request: '{"query":"undici pool","effort":"minimal"}', owner: null, lease_until_ms: null, created_at: new Date().toISOString() }); // prettier-ignore
    await plain.app.services.agentRuns.engine.tick();
    await plain.app.services.agentRuns.engine.drain();
    expect((await repo.get('run_leftqueued'))!.status).toBe('completed');
  });
});

describe('runs created over MCP without an operator model', () => {
  it("plan and write with the client's own model through sampling", async () => {
    const t = makeTestApp();
    const sampled: string[] = [];
    try {
      await t.app.services.documents.upsertMany(PAGES, new Date().toISOString());
      const client = await connectMcp(t.app, { sampling: true, tools: ALL_TOOLS });
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        const system = request.params.systemPrompt ?? '';
        sampled.push(system.slice(0, 40));
        const text = /quer/i.test(system) && /json/i.test(system) ? JSON.stringify({ queries: ['undici Agent origins'] }) : 'An undici Pool keeps sockets open to one origin [1].'; // prettier-ignore
        return { model: 'client-model', role: 'assistant', content: { type: 'text', text }, stopReason: 'endTurn' };
      });
      const res = (await client.callTool({ name: 'agent_runs', arguments: { action: 'create', query: 'undici pooling', effort: 'medium' } })) as { isError?: boolean; structuredContent: Json }; // prettier-ignore
      expect(res.isError).toBeFalsy(); // medium needs a model: the client's counts
      await t.app.services.agentRuns.engine.drain();
      const run = await t.app.services.agentRuns.get(res.structuredContent.id as string, null);
      expect(run.status).toBe('completed');
      expect(run.output!.text).toMatch(/undici Pool keeps sockets/);
      expect(sampled.length).toBeGreaterThanOrEqual(2); // planning and the answer
      await client.close();
    } finally {
      await t.close();
    }
  });
});
