/**
 * exa-js 2.23's clients for the spec's agent runs (`agent.runs`, with its events) and search monitors
 * (`monitors`, with its runs) against Trawl by changing only the base URL: every method of both, the
 * paginating helpers and the waiting ones included; `agent.runs.stop`, which the spec does not have,
 * is a clear 404. Agent runs use the `minimal` effort, which needs no model.
 */
import { Exa } from 'exa-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let t: TestServer;
let exa: Exa;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ allowInsecureWebhooks: true });
  await t.app.services.documents.upsertMany(
    [
      storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', 'An undici Pool keeps sockets open to one origin and queues requests when every socket is busy.'), // prettier-ignore
      storedDoc('https://docs.example.com/undici/agent', 'The undici Agent', 'An undici Agent manages one pool per origin.'), // prettier-ignore
    ],
    '2026-11-20T10:00:00.000Z',
  );
  exa = new Exa(t.key, t.url);
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const WAIT = { pollInterval: 20, timeoutMs: 20_000 };

describe('exa-js agent.runs', () => {
  it('creates and waits: create + pollUntilFinished, createAndWait', async () => {
    const created = await exa.agent.runs.create({ query: 'undici pools', effort: 'minimal' });
    expect(created).toMatchObject({ id: expect.any(String), object: 'agent_run' });
    const finished = await exa.agent.runs.pollUntilFinished(created.id, WAIT);
    expect(finished.status).toBe('completed');
    expect(finished.output?.text).toContain('undici');
    const waited = await exa.agent.runs.createAndWait({ query: 'undici agent per origin', effort: 'minimal' }, WAIT);
    expect(waited.status).toBe('completed');
    expect(waited.output?.text).toBeTruthy();
    expect(waited.costDollars?.total).toBeGreaterThan(0);
  });

  it('streams a run: create with stream: true yields its events to the end', async () => {
    const stream = await exa.agent.runs.create({ query: 'undici pool sockets', effort: 'minimal', stream: true });
    const names: string[] = [];
    for await (const event of stream) names.push(event.event);
    expect(names[0]).toBe('agent_run.created');
    expect(names.at(-1)).toBe('agent_run.completed');
  });

  it('gets, lists (one page, listAll, getAll), reads events, cancels and deletes', async () => {
    const run = await exa.agent.runs.createAndWait({ query: 'undici keep-alive', effort: 'minimal' }, WAIT);
    expect((await exa.agent.runs.get(run.id)).status).toBe('completed');
    const page = await exa.agent.runs.list({ limit: 1 });
    expect(page).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
    const all = await exa.agent.runs.getAll({ limit: 1 }); // pages through nextCursor
    expect(all.map((r) => r.id)).toContain(run.id);
    const listed: string[] = [];
    for await (const r of exa.agent.runs.listAll({ limit: 2 })) listed.push(r.id);
    expect(listed.sort()).toEqual(all.map((r) => r.id).sort());
    const events = await exa.agent.runs.events.list(run.id, { limit: 100 });
    expect(events.data.map((e) => e.event)).toContain('agent_run.completed');
    // cancelling a finished run returns it as it is (docs/api.md)
    expect((await exa.agent.runs.cancel(run.id)).status).toBe('completed');
    expect(await exa.agent.runs.delete(run.id)).toEqual({ id: run.id, object: 'agent_run', deleted: true });
    await expect(exa.agent.runs.get(run.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('answers stop, which the spec does not have, with 404', async () => {
    const run = await exa.agent.runs.createAndWait({ query: 'undici', effort: 'minimal' }, WAIT);
    await expect(exa.agent.runs.stop(run.id)).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('exa-js monitors', () => {
  it('creates, gets, updates, triggers, lists runs (one page, listAll, getAll) and monitors, and deletes', async () => {
    const created = await exa.monitors.create({
      name: 'undici releases',
      search: { query: 'undici pool', numResults: 2 },
      trigger: { type: 'interval', period: '1d' },
      webhook: { url: receiver.url },
    });
    expect(created.webhookSecret).toMatch(/^whsec_/);
    expect((await exa.monitors.get(created.id)).name).toBe('undici releases');
    expect((await exa.monitors.update(created.id, { name: 'undici' })).name).toBe('undici');
    for (let i = 0; i < 2; i++) {
      expect(await exa.monitors.trigger(created.id)).toEqual({ triggered: true });
      await t.app.services.monitors.engine.drain();
    }
    const page = await exa.monitors.runs.list(created.id, { limit: 1 });
    expect(page).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
    const runs = await exa.monitors.runs.getAll(created.id, { limit: 1 });
    expect(runs.map((r) => r.status)).toEqual(['completed', 'completed']);
    const streamed: string[] = [];
    for await (const run of exa.monitors.runs.listAll(created.id, { limit: 1 })) streamed.push(run.id);
    expect(streamed).toEqual(runs.map((r) => r.id));
    expect((await exa.monitors.runs.get(created.id, runs[0]!.id)).id).toBe(runs[0]!.id);
    expect((await exa.monitors.list({ limit: 5 })).data.map((m) => m.id)).toContain(created.id);
    expect((await exa.monitors.getAll({ limit: 1 })).map((m) => m.id)).toContain(created.id);
    const listed: string[] = [];
    for await (const m of exa.monitors.listAll({ limit: 1 })) listed.push(m.id);
    expect(listed).toContain(created.id);
    expect((await exa.monitors.delete(created.id)).id).toBe(created.id);
    await expect(exa.monitors.get(created.id)).rejects.toMatchObject({ statusCode: 404 });
  });
});
