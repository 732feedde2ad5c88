/**
 * Crash suite, the server: a real `trawl serve` (the built CLI) is killed with SIGKILL during an agent
 * run, a monitor run and a webhook delivery, then started again on the same data directory. Nothing is
 * lost, nothing is duplicated beyond at-least-once, and the counts are exact. docs/operations.md.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { ageLeases, count, importRunDocs, isPlan, serve, startHoldingModel, until, type ServeProcess } from '../helpers/crash.js'; // prettier-ignore
import type { ModelServer } from '../helpers/model-server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let model: ModelServer;
/** While held, the model takes 30 s to answer anything but a plan: the process is killed meanwhile. */
let hold: (held: boolean) => void;
let receiver: Receiver;
let data: { dir: string; cleanup: () => void };
const servers: ServeProcess[] = [];

beforeAll(async () => {
  ({ model, hold } = await startHoldingModel());
  receiver = await startReceiver();
});
afterAll(async () => {
  await model.close();
  await receiver.close();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.kill();
  data.cleanup();
  model.reset();
  hold(true);
});

/** A data directory with two imported pages, and a server on it. */
async function setUp(): Promise<ServeProcess> {
  data = tempDir('trawl-crash-');
  importRunDocs(data.dir);
  return start();
}

async function start(): Promise<ServeProcess> {
  const s = await serve(data.dir, ['--model-base-url', model.baseUrl, '--model', 'test-model', '--allow-insecure-webhooks', 'true']); // prettier-ignore
  servers.push(s);
  return s;
}

/** Kills the server with SIGKILL, ages its leases, starts another on the same directory. */
async function crashAndRestart(s: ServeProcess): Promise<ServeProcess> {
  await s.kill();
  ageLeases(data.dir);
  hold(false);
  return start();
}

async function api(s: ServeProcess, method: string, route: string, body?: unknown): Promise<Json> {
  const res = await fetch(s.url + route, {
    method,
    headers: { 'x-api-key': s.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Json;
}

const answerAsked = () => model.requests.some((r) => !isPlan(r.body));

describe('kill -9 and restart', () => {
  it(
    'during an agent run: it resumes and completes once, its events numbered without gaps or repeats',
    { timeout: 30_000 },
    async () => {
      // prettier-ignore
      let s = await setUp();
      const run = await api(s, 'POST', '/agent/runs', { query: 'how does undici pool connections', effort: 'low' });
      await until(answerAsked, 10_000, 'the answer request'); // planned and searched twice: steps saved
      s = await crashAndRestart(s);
      const done = await until(
        async () => {
          const r = await api(s, 'GET', `/agent/runs/${run.id}`);
          return r.status !== 'queued' && r.status !== 'running' && r;
        },
        15_000,
        'the resumed run',
      );
      expect(done).toMatchObject({ status: 'completed', usage: { searches: 2 }, costDollars: { total: 0.025 } });
      const events = (await api(s, 'GET', `/agent/runs/${run.id}/events?limit=1000`)).data as Json[];
      expect(events.map((e) => e.id)).toEqual(events.map((_e, i) => i + 1));
      const kinds = events.map((e) => e.event as string);
      for (const once of ['agent_run.created', 'agent_run.started', 'agent_run.completed']) expect(kinds.filter((k) => k === once)).toHaveLength(1); // prettier-ignore
      expect(kinds.filter((k) => k === 'agent_run.search')).toHaveLength(2);
      expect(model.requests.filter((r) => isPlan(r.body))).toHaveLength(1); // the completed plan was not redone
    },
  );

  it(
    'during a monitor run: it ends failed internal_error, its events delivered and recorded once each',
    { timeout: 30_000 },
    async () => {
      // prettier-ignore
      let s = await setUp();
      const monitor = await api(s, 'POST', '/monitors', { search: { query: 'undici pool' }, webhook: { url: receiver.url } }); // prettier-ignore
      receiver.secrets.push(monitor.webhookSecret as string);
      await api(s, 'POST', `/monitors/${monitor.id}/trigger`);
      await until(answerAsked, 10_000, 'the monitor run’s answer request');
      s = await crashAndRestart(s);
      const ended = await until(
        async () => {
          const runs = (await api(s, 'GET', `/monitors/${monitor.id}/runs`)).data as Json[];
          return runs.find((r) => r.status === 'failed' || r.status === 'completed');
        },
        15_000,
        'the monitor run to end',
      );
      expect(ended).toMatchObject({ status: 'failed', failReason: 'internal_error' });
      expect(count(data.dir, 'monitor_runs', `id = '${ended.id}' AND fail_detail LIKE 'interrupted: %'`)).toBe(1); // its stored detail
      const types = ['monitor.created', 'monitor.run.created', 'monitor.run.completed'];
      const sent = await until(
        () => {
          const got = receiver.deliveries.filter((d) => d.event.data.id === ended.id || d.event.data.id === monitor.id);
          return types.every((t) => got.some((d) => d.event.type === t)) && got;
        },
        15_000,
        'the run’s events at the receiver',
      );
      expect(sent.every((d) => d.verified)).toBe(true);
      const recorded = (await api(s, 'GET', `/monitors/${monitor.id}/deliveries?limit=100`)).data as Json[];
      for (const t of types) expect(recorded.filter((d) => d.type === t)).toHaveLength(1);
    },
  );

  it(
    'during a webhook delivery: the receiver gets it at least once, and it is recorded delivered once',
    { timeout: 30_000 },
    async () => {
      // prettier-ignore
      let s = await setUp();
      receiver.stallNext(1, 20_000);
      const hits = receiver.hits;
      const monitor = await api(s, 'POST', '/monitors', { search: { query: 'undici pool' }, webhook: { url: receiver.url } }); // prettier-ignore
      receiver.secrets.push(monitor.webhookSecret as string);
      await until(() => receiver.hits > hits, 10_000, 'the delivery to reach the receiver');
      s = await crashAndRestart(s);
      const created = await until(() => receiver.deliveries.filter((d) => d.event.type === 'monitor.created' && d.event.data.id === monitor.id).length > 0, 15_000, 'the delivery after restart'); // prettier-ignore
      expect(created).toBe(true);
      const recorded = await until(
        async () => {
          const rows = (await api(s, 'GET', `/monitors/${monitor.id}/deliveries?limit=100`)).data as Json[];
          return rows.every((d) => d.status === 'delivered') && rows;
        },
        10_000,
        'the delivery recorded',
      );
      expect(recorded.filter((d) => d.type === 'monitor.created')).toHaveLength(1);
    },
  );
});
