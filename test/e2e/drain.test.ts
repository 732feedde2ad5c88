/**
 * A graceful stop of a real `trawl serve` (the built CLI, SQLite): on SIGTERM a slow request in flight
 * still gets its answer, a new connection is refused, an agent run's event stream ends with a `retry:`
 * hint, the running agent run is handed back at once (its lease is 10 minutes long, yet the next process
 * finishes it straight away), and the process exits 0. docs/operations.md#readiness-and-graceful-restarts.
 */
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { tempDir } from '../helpers/app.js';
import { importRunDocs, isPlan, serve, startHoldingModel, until, type ServeProcess } from '../helpers/crash.js';
import type { ModelServer } from '../helpers/model-server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SLOW_PAGE = `<!doctype html><html><head><title>Slow page</title></head><body><main><h1>Slow page</h1>
<p>This page takes a while to arrive, long enough for the server to be asked to stop while it is fetched.</p>
</main></body></html>`;
/** A lease far longer than the test: a run that waited for it to lapse would never finish in time. */
const LEASE_MS = 600_000;

let model: ModelServer;
let site: FixtureSite;
let receiver: Receiver;
let data: { dir: string; cleanup: () => void };
/** While held, the model takes 30 s to answer anything but a plan: the process is stopped meanwhile. */
let hold: (held: boolean) => void;
const servers: ServeProcess[] = [];

beforeAll(async () => {
  ({ model, hold } = await startHoldingModel());
  site = await startFixtureSite();
  receiver = await startReceiver();
  // the page arrives 2.5 s after it was asked for
  site.setPage('/slow-page', (_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SLOW_PAGE), 2500);
  });
  data = tempDir('trawl-drain-');
  importRunDocs(data.dir);
}, 60_000);

afterAll(async () => {
  for (const s of servers) await s.kill();
  await model.close();
  await site.close();
  await receiver.close();
  data.cleanup();
});

async function start(): Promise<ServeProcess> {
  // prettier-ignore
  const s = await serve(data.dir, ['--model-base-url', model.baseUrl, '--model', 'test-model', '--lease-ms', String(LEASE_MS), '--allow-insecure-webhooks', 'true'], { env: { TRAWL_DRAIN_MS: '20000' } });
  servers.push(s);
  return s;
}

const call = (s: ServeProcess, method: string, route: string, body?: unknown, accept = 'application/json') =>
  fetch(s.url + route, {
    method,
    headers: { 'x-api-key': s.key, accept, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A GET on a connection of its own (no pooled keep-alive socket): its status, or the connection's error code. */
const freshGet = (url: string) =>
  new Promise<number | string>((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });

/** Reads a streamed body to its end. */
async function readAll(res: Response): Promise<string> {
  return new TextDecoder().decode(await res.arrayBuffer());
}

/** A run's row as stored in `table` (read-only, beside the process). */
function runRow(table: 'agent_runs' | 'monitor_runs', id: string): Json {
  const db = new Database(path.join(data.dir, 'trawl.sqlite'), { readonly: true });
  try {
    return db.prepare(`SELECT status, owner, lease_until_ms FROM ${table} WHERE id = ?`).get(id) as Json;
  } finally {
    db.close();
  }
}

describe('SIGTERM drains trawl serve', () => {
  it(
    'answers the request in flight, refuses new connections, ends the event stream with retry:, hands the run back, exits 0',
    { timeout: 90_000 },
    async () => {
      const first = await start();
      // an agent run followed as an event stream; it holds its lease while the model is slow
      const stream = await call(first, 'POST', '/agent/runs', { query: 'how does undici pool connections', effort: 'low' }, 'text/event-stream'); // prettier-ignore
      expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
      const streamed = readAll(stream);
      await until(() => model.requests.some((r) => !isPlan(r.body)), 20_000, 'the run to ask for its answer');
      // a monitor run in progress too (its answer is as slow)
      const monitor = (await (await call(first, 'POST', '/monitors', { search: { query: 'undici pool' }, webhook: { url: receiver.url } })).json()) as Json; // prettier-ignore
      const asked = model.requests.filter((r) => !isPlan(r.body)).length;
      expect((await call(first, 'POST', `/monitors/${monitor.id}/trigger`)).status).toBeLessThan(300);
      await until(() => model.requests.filter((r) => !isPlan(r.body)).length > asked, 20_000, 'the monitor run’s answer'); // prettier-ignore
      const listed = (await (await call(first, 'GET', `/monitors/${monitor.id}/runs`)).json()) as Json;
      const monitorRunId = listed.data[0].id as string;
      // a slow page fetched through /contents, in flight when the signal comes
      const contents = call(first, 'POST', '/contents', { urls: [`${site.url}/slow-page`], text: true });
      await until(() => site.hits('/slow-page') > 0, 20_000, 'the slow page to be asked for');

      const exited = new Promise<number | null>((resolve) => first.child.once('exit', (code) => resolve(code)));
      first.child.kill('SIGTERM');
      await until(() => /draining/.test(first.log()), 20_000, 'the drain to begin');
      expect(await freshGet(`${first.url}/health`)).toBe('ECONNREFUSED');

      const answered = await contents;
      expect(answered.status).toBe(200);
      const body = (await answered.json()) as Json;
      expect(body.results[0].text).toContain('long enough for the server to be asked to stop');
      const text = await streamed;
      expect(text).toContain('event: agent_run.started');
      expect(text).toMatch(/^retry: \d+$/m);
      expect(await exited).toBe(0);

      // handed back: queued again, no owner, no lease (not left to lapse in 10 minutes)
      const runId = /"id":"(run_[^"]+)"/.exec(text)?.[1] ?? /"id":"([^"]+)"/.exec(text)![1]!;
      expect(runRow('agent_runs', runId)).toMatchObject({ status: 'queued', owner: null, lease_until_ms: null });
      expect(runRow('monitor_runs', monitorRunId)).toMatchObject({ status: 'pending', owner: null, lease_until_ms: null }); // prettier-ignore

      hold(false);
      const second = await start();
      const done = await until(
        async () => {
          const run = (await (await call(second, 'GET', `/agent/runs/${runId}`)).json()) as Json;
          return run.status !== 'queued' && run.status !== 'running' && run;
        },
        30_000,
        'the run to finish in the next process',
      );
      expect(done.status).toBe('completed');
      const events = ((await (await call(second, 'GET', `/agent/runs/${runId}/events?limit=1000`)).json()) as Json).data as Json[]; // prettier-ignore
      const kinds = events.map((e) => e.event as string);
      for (const once of ['agent_run.started', 'agent_run.completed']) expect(kinds.filter((k) => k === once)).toHaveLength(1); // prettier-ignore
      expect(events.map((e) => e.id)).toEqual(events.map((_e, i) => i + 1));
      // the monitor run, handed back, is taken over and completed by the next process
      const monitorRun = await until(
        async () => {
          const page = (await (await call(second, 'GET', `/monitors/${monitor.id}/runs`)).json()) as Json;
          return (page.data as Json[]).find((r) => r.id === monitorRunId && r.status !== 'pending' && r.status !== 'running'); // prettier-ignore
        },
        30_000,
        'the monitor run to finish in the next process',
      );
      expect(monitorRun.status).toBe('completed');
      await second.stop();
    },
  );
});
