/**
 * /monitors end to end: the real HTTP door, real SQLite, a loopback webhook receiver. Time is the app's
 * clock, moved by the test; the engine is driven by its own calls (tick, drain, flush), never by sleeping.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jitterMs, MAX_JITTER_MS } from '../../src/core/monitors/schedule.js';
import { createMonitorsRepo } from '../../src/store/sqlite/monitors.js';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const HOUR = 3_600_000;
const START = Date.parse('2026-11-20T12:00:00.000Z');
const clock = { t: START, now: () => new Date(clock.t) };

let t: TestServer;
let receiver: Receiver;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function api(method: string, path: string, body?: unknown, key = t.key): Promise<{ status: number; body: Json }> {
  // prettier-ignore
  const res = await fetch(t.url + path, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

const engine = () => t.app.services.monitors.engine;
/** Starts due runs, waits for them, and delivers what is due. */
async function advance(ms: number): Promise<void> {
  clock.t += ms;
  await engine().tick();
  await engine().drain();
  await engine().flush();
}

async function addPage(n: number, title: string, text: string, fetchedMs = clock.t) {
  await t.app.services.documents.upsert(
    storedDoc(`https://news.example.com/${n}`, title, text, { fetchedAt: new Date(fetchedMs).toISOString() }),
    new Date(fetchedMs).toISOString(),
  );
}

const STORY = (topic: string) =>
  `${topic} shipped a new release of its reverse proxy this week. The release adds HTTP/3 support, a ` +
  `rewritten connection pool, and configurable retry budgets for upstream services. Operators upgrading ` +
  `from the previous version should read the migration notes, since two configuration keys were renamed ` +
  `and the default timeout changed from thirty to ten seconds. Benchmarks published with the release show ` +
  `lower tail latency under load.`;

const TRAEFIK =
  'The Traefik project published a reverse proxy release centred on its plugin system. Middleware can now ' +
  'be written in any language that compiles to WebAssembly, and plugins load without restarting the ' +
  'process. The maintainers also moved the dashboard to a new design and deprecated the old metrics ' +
  'exporter, which will be removed in the next major version.';

async function createMonitor(extra: Json = {}): Promise<Json> {
  const res = await api('POST', '/monitors', {
    name: 'proxy releases',
    search: { query: 'reverse proxy release', numResults: 5 },
    trigger: { type: 'interval', period: '1d' },
    webhook: { url: receiver.url },
    metadata: { channel: 'releases' },
    ...extra,
  });
  expect(res.status).toBe(201);
  receiver.secrets.push(res.body.webhookSecret as string);
  return res.body;
}

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ allowInsecureWebhooks: true }, { clock });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});
afterEach(() => {
  receiver.deliveries.length = 0;
  receiver.failNext(0);
});

describe('monitors: create, schedule, run, deliver', () => {
  it('creates a monitor whose secret is shown once, scheduled at creation + jitter + period', async () => {
    const created = await createMonitor();
    expect(created.id).toMatch(/^mon_[0-9a-f]{24}$/);
    expect(created.webhookSecret).toMatch(/^whsec_/);
    expect(created.status).toBe('active');
    const jitter = jitterMs(created.id as string);
    expect(jitter).toBeGreaterThanOrEqual(0);
    expect(jitter).toBeLessThan(MAX_JITTER_MS);
    expect(Date.parse(created.nextRunAt as string)).toBe(Date.parse(created.createdAt as string) + jitter + 24 * HOUR);
    const got = await api('GET', `/monitors/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body.webhookSecret).toBeUndefined();
    expect(JSON.stringify(got.body)).not.toContain(created.webhookSecret);
    await engine().flush();
    expect(receiver.deliveries.map((d) => d.event.type)).toEqual(['monitor.created']);
    expect(receiver.deliveries[0]!.verified).toBe(true);
    expect(receiver.deliveries[0]!.event).toMatchObject({ object: 'event', data: { id: created.id } });
    await api('DELETE', `/monitors/${created.id}`);
  });

  it('runs when due (not before), once after missed slots, and delivers the run events signed', async () => {
    const monitor = await createMonitor();
    const id = monitor.id as string;
    const due = Date.parse(monitor.nextRunAt as string);
    await advance(due - 1 - clock.t);
    expect((await api('GET', `/monitors/${id}/runs`)).body.data).toHaveLength(0);
    // three days late (the process was down): one run, and the next slot is in the future
    clock.t += 1 + 3 * 24 * HOUR;
    await addPage(1, 'Proxy 2.0 release notes', STORY('Proxy'));
    await advance(0);
    const runs = (await api('GET', `/monitors/${id}/runs`)).body;
    expect(runs.data).toHaveLength(1);
    const run = runs.data[0] as Json;
    expect(run).toMatchObject({ monitorId: id, status: 'completed', failReason: null });
    expect(run.output.results.map((r: Json) => r.url)).toEqual(['https://news.example.com/1']);
    expect(typeof run.output.content).toBe('string');
    expect(run.startedAt).toBeTruthy();
    expect(run.completedAt).toBeTruthy();
    expect(run.durationMs).toBeGreaterThanOrEqual(0);
    const after = (await api('GET', `/monitors/${id}`)).body;
    expect(Date.parse(after.nextRunAt as string)).toBeGreaterThan(clock.t);
    expect((Date.parse(after.nextRunAt as string) - due) % (24 * HOUR)).toBe(0);
    const types = receiver.deliveries.map((d) => d.event.type);
    expect(types).toEqual(expect.arrayContaining(['monitor.run.created', 'monitor.run.completed']));
    expect(receiver.deliveries.every((d) => d.verified)).toBe(true);
    const completed = receiver.deliveries.find((d) => d.event.type === 'monitor.run.completed')!;
    expect(completed.event.data).toMatchObject({ id: run.id, status: 'completed', metadata: { channel: 'releases' } });
    expect(completed.headers['svc-event-id']).toBe(completed.event.id);
    await api('DELETE', `/monitors/${id}`);
  });

  it('searches only what is new since the last run and drops near-duplicates of the last runs', async () => {
    const monitor = await createMonitor();
    const id = monitor.id as string;
    await addPage(10, 'Caddy reverse proxy release notes', STORY('Caddy'));
    await addPage(11, 'Old reverse proxy release from last year', STORY('Legacy'), clock.t - 30 * 24 * HOUR);
    await advance(Date.parse(monitor.nextRunAt as string) - clock.t);
    const first = (await api('GET', `/monitors/${id}/runs`)).body.data[0] as Json;
    const firstUrls = first.output.results.map((r: Json) => r.url);
    expect(firstUrls).toContain('https://news.example.com/10');
    expect(firstUrls).not.toContain('https://news.example.com/11'); // crawled long before the window
    // the same story syndicated elsewhere with a new headline, and a genuinely new one
    await t.app.services.documents.upsert(
      storedDoc('https://mirror.example.org/caddy', 'Caddy ships reverse proxy release', STORY('Caddy'), {
        fetchedAt: new Date(clock.t + HOUR).toISOString(),
      }),
      new Date(clock.t + HOUR).toISOString(),
    );
    await addPage(12, 'Traefik reverse proxy release adds plugins', TRAEFIK, clock.t + HOUR);
    await advance(24 * HOUR);
    const second = (await api('GET', `/monitors/${id}/runs`)).body.data[0] as Json;
    const urls = second.output.results.map((r: Json) => r.url);
    expect(urls).toContain('https://news.example.com/12');
    expect(urls).not.toContain('https://news.example.com/10');
    expect(urls).not.toContain('https://mirror.example.org/caddy');
    await advance(24 * HOUR);
    const third = (await api('GET', `/monitors/${id}/runs`)).body.data[0] as Json;
    expect(third.output).toMatchObject({ results: [], content: 'No new results since the last run.', grounding: [] });
    await api('DELETE', `/monitors/${id}`);
  });

  it('cancels a run still in progress when the next slot comes', async () => {
    const monitor = await createMonitor();
    const id = monitor.id as string;
    const svc = t.app.services.monitors;
    clock.t = Date.parse(monitor.nextRunAt as string) - 1000;
    await svc.trigger(id, null); // starts running at once (synchronously up to its search)
    clock.t += 1000;
    const ticking = engine().tick(); // the slot: the triggered run is still searching
    await ticking;
    await engine().drain();
    const runs = (await api('GET', `/monitors/${id}/runs`)).body.data as Json[];
    expect(runs).toHaveLength(2);
    const [scheduled, triggered] = runs;
    expect(triggered).toMatchObject({ status: 'cancelled', output: null });
    expect(triggered!.cancelledAt).toBe(new Date(clock.t).toISOString());
    expect(scheduled!.status).toBe('completed');
    await api('DELETE', `/monitors/${id}`);
  });

  it('finishes runs of a process that died as failed internal_error, and fails its own runs on shutdown', async () => {
    const monitor = await createMonitor();
    const id = monitor.id as string;
    const repo = createMonitorsRepo(t.app.db);
    await repo.insertRun({
      id: 'run_deadprocess000000000000',
      monitor_id: id,
      status: 'running',
      origin: 'schedule',
      owner: 'gone-host:4242:x',
      lease_until_ms: clock.t - 1,
      created_at: new Date(clock.t - 120_000).toISOString(),
    });
    await engine().recover();
    await engine().flush();
    const run = (await api('GET', `/monitors/${id}/runs/run_deadprocess000000000000`)).body;
    expect(run).toMatchObject({ status: 'failed', failReason: 'internal_error' });
    expect(run.failedAt).toBe(new Date(clock.t).toISOString());
    expect(receiver.deliveries.some((d) => d.event.type === 'monitor.run.completed' && d.event.data.id === run.id)).toBe(true); // prettier-ignore
    await api('DELETE', `/monitors/${id}`);
  });

  it('disables a monitor after 10 runs in a row with a revoked key; PATCH active resumes it', async () => {
    const other = await t.app.services.keys.create('short-lived', {}, null);
    const created = await api('POST', '/monitors', { search: { query: 'anything' }, webhook: { url: receiver.url } }, other.key); // prettier-ignore
    receiver.secrets.push(created.body.webhookSecret as string);
    const id = created.body.id as string;
    await t.app.services.keys.revoke(other.id, null);
    for (let i = 0; i < 10; i++) {
      expect((await api('POST', `/monitors/${id}/trigger`)).body).toEqual({ triggered: true });
      await engine().drain();
    }
    const runs = (await api('GET', `/monitors/${id}/runs?limit=100`)).body.data as Json[];
    expect(runs).toHaveLength(10);
    expect(runs.every((r) => r.status === 'failed' && r.failReason === 'api_key_invalid')).toBe(true);
    const disabled = (await api('GET', `/monitors/${id}`)).body;
    expect(disabled).toMatchObject({ status: 'disabled', nextRunAt: null });
    const refused = await api('POST', `/monitors/${id}/trigger`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/disabled/);
    await engine().flush();
    expect(receiver.deliveries.some((d) => d.event.type === 'monitor.updated' && d.event.data.status === 'disabled')).toBe(true); // prettier-ignore
    const resumed = await api('PATCH', `/monitors/${id}`, { status: 'active' });
    expect(resumed.body.status).toBe('active');
    await api('DELETE', `/monitors/${id}`);
  });
});

describe('monitors: the API surface', () => {
  it('rejects bad input with {error} naming the field, and unknown ids with 404', async () => {
    const cases: [Json, RegExp][] = [
      [{ search: { query: 'x' }, trigger: { type: 'interval', period: '30m' }, webhook: { url: receiver.url } }, /trigger\.period/], // prettier-ignore
      [{ search: { query: 'x', type: 'deep' }, webhook: { url: receiver.url } }, /search\.type/],
      [{ search: { query: 'x', includeText: ['a'] }, webhook: { url: receiver.url } }, /includeText/],
      [{ search: { query: 'x' }, webhook: { url: 'ftp://example.com/hook' } }, /webhook\.url/],
      [{ search: {}, webhook: { url: receiver.url } }, /search\.query/],
    ];
    for (const [body, field] of cases) {
      const res = await api('POST', '/monitors', body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(res.body.error).toMatch(field);
    }
    expect((await api('GET', '/monitors/mon_nope')).status).toBe(404);
    expect((await api('GET', '/monitors/mon_nope/runs')).status).toBe(404);
    expect((await api('PATCH', '/monitors/mon_nope', { name: 'x' })).status).toBe(404);
    expect((await api('POST', '/monitors/mon_nope/trigger')).status).toBe(404);
    const monitor = await createMonitor();
    expect((await api('GET', `/monitors/${monitor.id}/runs/run_nope`)).status).toBe(404);
    const disabledByApi = await api('PATCH', `/monitors/${monitor.id}`, { status: 'disabled' });
    expect(disabledByApi.status).toBe(400);
    expect(disabledByApi.body.error).toMatch(/status/);
    expect((await api('GET', '/monitors?limit=0')).status).toBe(400);
    expect((await api('GET', '/monitors?cursor=bm90LWEtY3Vyc29y')).status).toBe(400);
    await api('DELETE', `/monitors/${monitor.id}`);
  });

  it('merges PATCHed search and webhook, and null removes trigger, outputSchema and metadata', async () => {
    const monitor = await createMonitor({ outputSchema: { type: 'text', description: 'one line per release' } });
    const id = monitor.id as string;
    const patched = await api('PATCH', `/monitors/${id}`, {
      search: { numResults: 20 },
      webhook: { events: ['monitor.run.completed'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.search).toEqual({ query: 'reverse proxy release', numResults: 20 });
    expect(patched.body.webhook).toEqual({ url: receiver.url, events: ['monitor.run.completed'] });
    expect(patched.body.nextRunAt).toBe(monitor.nextRunAt);
    const cleared = await api('PATCH', `/monitors/${id}`, { trigger: null, outputSchema: null, metadata: null });
    expect(cleared.body).toMatchObject({ trigger: null, outputSchema: null, metadata: null, nextRunAt: null });
    const rescheduled = await api('PATCH', `/monitors/${id}`, { trigger: { type: 'interval', period: '6h' } });
    const next = Date.parse(rescheduled.body.nextRunAt as string);
    expect((next - Date.parse(monitor.createdAt as string) - jitterMs(id)) % (6 * HOUR)).toBe(0);
    await engine().flush();
    receiver.deliveries.length = 0;
    const paused = await api('PATCH', `/monitors/${id}`, { status: 'paused' });
    expect(paused.body).toMatchObject({ status: 'paused', nextRunAt: null });
    expect((await api('POST', `/monitors/${id}/trigger`)).status).toBe(200); // paused monitors still run on demand
    await engine().drain();
    await engine().flush();
    // only the subscribed event kind reaches the receiver since the PATCH of webhook.events
    const ofThis = receiver.deliveries.filter((d) => d.event.data.id === id || d.event.data.monitorId === id);
    expect(ofThis.map((d) => d.event.type)).toEqual(['monitor.run.completed']);
    const deleted = await api('DELETE', `/monitors/${id}`);
    expect(deleted.body).toMatchObject({ id, status: 'paused' });
    expect((await api('GET', `/monitors/${id}`)).status).toBe(404);
  });

  it('paginates newest first with a cursor that is stable under concurrent inserts', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createMonitor({ name: `page ${i}` })).id as string);
    const first = (await api('GET', '/monitors?limit=2')).body;
    expect(first.data.map((m: Json) => m.id)).toEqual([made[4], made[3]]); // newest first
    expect(first.hasMore).toBe(true);
    for (let i = 5; i < 8; i++) made.push((await createMonitor({ name: `page ${i}` })).id as string);
    const ours = (ms: Json[]) => ms.map((m) => m.id as string).filter((id) => made.includes(id));
    const seen = ours(first.data as Json[]);
    let cursor = first.nextCursor as string | null;
    while (cursor) {
      const page = (await api('GET', `/monitors?limit=2&cursor=${cursor}`)).body;
      seen.push(...ours(page.data as Json[]));
      cursor = page.hasMore ? page.nextCursor : null;
      if (!page.hasMore) expect(page.nextCursor).toBeNull();
    }
    expect(seen).toEqual([made[4], made[3], made[2], made[1], made[0]]);
    await api('PATCH', `/monitors/${made[0]}`, { status: 'paused' });
    const paused = ours((await api('GET', '/monitors?status=paused&limit=100')).body.data as Json[]);
    expect(paused).toEqual([made[0]]);
    for (const id of made) await api('DELETE', `/monitors/${id}`);
  });
});

describe('monitors: failures and retention', () => {
  it('fails a run with search_unavailable when the web search is down and nothing was found', async () => {
    const down = http.createServer((_req, res) => res.writeHead(503).end('maintenance'));
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const other = await startTestServer(
      { allowInsecureWebhooks: true, searxngUrl: `http://127.0.0.1:${(down.address() as AddressInfo).port}` },
      { clock },
    );
    try {
      const svc = other.app.services.monitors;
      const { id } = await svc.create({ search: { query: 'zebra firmware', numResults: 5 }, webhook: { url: receiver.url } }, null); // prettier-ignore
      await svc.trigger(id, null);
      await svc.engine.drain();
      const run = (await svc.runs(id, { limit: 1 }, null)).data[0]!;
      expect(run).toMatchObject({ status: 'failed', failReason: 'search_unavailable', output: null });
      expect(run.failedAt).toBeTruthy();
    } finally {
      await other.close();
      down.close();
    }
  });

  it('keeps the newest runs of a monitor and forgets older ended ones', async () => {
    const monitor = await createMonitor();
    const id = monitor.id as string;
    for (let i = 0; i < 3; i++) {
      await api('POST', `/monitors/${id}/trigger`);
      await engine().drain();
    }
    const repo = createMonitorsRepo(t.app.db);
    const before = (await api('GET', `/monitors/${id}/runs`)).body.data as Json[];
    expect(await repo.pruneRuns(id, 2)).toBe(1);
    const after = (await api('GET', `/monitors/${id}/runs`)).body.data as Json[];
    expect(after.map((r) => r.id)).toEqual(before.slice(0, 2).map((r) => r.id));
    await api('DELETE', `/monitors/${id}`);
  });
});
