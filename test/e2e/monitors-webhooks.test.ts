/**
 * Webhook delivery end to end: the durable outbox, retries with backoff, timeouts, redirects, the
 * HTTPS-and-public policy at creation and at delivery, and events surviving a restart. The clock is
 * the app's, moved by the test; deliveries are attempted by `flush`, never by waiting for a timer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const clock = { t: Date.parse('2026-11-20T12:00:00.000Z'), now: () => new Date(clock.t) };
let t: TestServer;
let receiver: Receiver;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(t.url + path, {
    method,
    headers: { 'x-api-key': t.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** The same data directory opened by another process-like app, with its own settings. */
function reopen(flags: Record<string, unknown>): App {
  const config = loadConfig({}, { dataDir: t.dataDir, logLevel: 'silent', ...flags });
  return createApp(config, { logger: createLogger('silent'), clock });
}

async function create(url = receiver.url, extra: Json = {}): Promise<Json> {
  const res = await api('POST', '/monitors', { search: { query: 'release notes' }, webhook: { url }, ...extra });
  expect(res.status).toBe(201);
  receiver.secrets.push(res.body.webhookSecret as string);
  return res.body;
}

const deliveriesOf = async (id: string) => (await api('GET', `/monitors/${id}/deliveries`)).body;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ allowInsecureWebhooks: true, webhookTimeoutMs: 1000 }, { clock });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('webhook deliveries', () => {
  it('retries a failing receiver with growing, jittered delays and records every attempt', async () => {
    const outbox = t.app.services.monitors.engine;
    receiver.failNext(2, 503);
    const monitor = await create();
    await outbox.flush();
    let view = (await deliveriesOf(monitor.id as string)).data[0] as Json;
    expect(view).toMatchObject({ type: 'monitor.created', status: 'pending', lastError: 'HTTP 503' });
    expect(view.attempts).toHaveLength(1);
    const firstRetry = Date.parse(view.nextAttemptAt as string) - clock.t;
    expect(firstRetry).toBeGreaterThanOrEqual(15_000);
    expect(firstRetry).toBeLessThanOrEqual(45_000);
    expect(await outbox.flush()).toBe(0); // not due yet
    clock.t += firstRetry;
    await outbox.flush();
    view = (await deliveriesOf(monitor.id as string)).data[0] as Json;
    const secondRetry = Date.parse(view.nextAttemptAt as string) - clock.t;
    expect(secondRetry).toBeGreaterThanOrEqual(30_000);
    expect(secondRetry).toBeLessThanOrEqual(90_000);
    clock.t += secondRetry;
    await outbox.flush();
    view = (await deliveriesOf(monitor.id as string)).data[0] as Json;
    expect(view).toMatchObject({ status: 'delivered', lastError: null, nextAttemptAt: null });
    expect(view.attempts.map((a: Json) => a.status)).toEqual([503, 503, 200]);
    const got = receiver.deliveries.filter((d) => d.event.id === view.eventId);
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
  });

  it('gives a delivery up when its retry window has passed', async () => {
    const outbox = t.app.services.monitors.engine;
    receiver.failNext(1000, 500);
    const monitor = await create();
    await outbox.flush();
    for (let i = 0; i < 60; i++) {
      clock.t += 3_600_000;
      await outbox.flush();
    }
    receiver.failNext(0);
    const view = (await deliveriesOf(monitor.id as string)).data[0] as Json;
    expect(view.status).toBe('failed');
    expect(view.nextAttemptAt).toBeNull();
    expect(view.attempts.length).toBeGreaterThan(8);
    const first = Date.parse(view.attempts[0].at as string);
    const last = Date.parse(view.attempts.at(-1).at as string);
    expect(last - first).toBeLessThanOrEqual(24 * 3_600_000);
  });

  it('counts a receiver slower than the delivery timeout as a failed attempt', async () => {
    const monitor = await create();
    receiver.stallNext(1, 2500);
    await t.app.services.monitors.engine.flush();
    const view = (await deliveriesOf(monitor.id as string)).data[0] as Json;
    expect(view.status).toBe('pending');
    expect(view.attempts[0]).toMatchObject({ status: null });
    expect(view.attempts[0].error).toMatch(/timed out after 1000 ms/);
  });

  it('follows a redirect to another receiver, re-posting the same signed event', async () => {
    const second = await startReceiver();
    try {
      const monitor = await create();
      second.secrets.push(...receiver.secrets);
      receiver.redirectNext(second.url, 308);
      await t.app.services.monitors.engine.flush();
      const view = (await deliveriesOf(monitor.id as string)).data[0] as Json;
      expect(view.status).toBe('delivered');
      expect(second.deliveries.map((d) => d.event.id)).toEqual([view.eventId]);
      expect(second.deliveries[0]!.verified).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('keeps events written before a crash and delivers them after the restart', async () => {
    const monitor = await create();
    // the event is in the outbox; this process stops before delivering it
    const before = receiver.deliveries.length;
    const again = reopen({ allowInsecureWebhooks: true });
    try {
      await again.services.monitors.engine.flush();
      const got = receiver.deliveries.slice(before).filter((d) => d.event.data.id === monitor.id);
      expect(got.map((d) => d.event.type)).toEqual(['monitor.created']);
    } finally {
      await again.close();
    }
    await t.app.services.monitors.engine.flush(); // delivered already: nothing is sent twice
    expect(receiver.deliveries.filter((d) => d.event.data.id === monitor.id)).toHaveLength(1);
  });
});

describe('webhook address policy', () => {
  it('refuses HTTP and non-public webhook URLs at creation unless insecure webhooks are allowed', async () => {
    const strict = reopen({ allowInsecureWebhooks: false });
    try {
      const svc = strict.services.monitors;
      const attempt = (url: string) => () => svc.create({ search: { query: 'x', numResults: 10 }, webhook: { url } }, null); // prettier-ignore
      await expect(attempt('http://hooks.example.com/x')).rejects.toThrow(/webhook\.url: must use HTTPS/);
      await expect(attempt('https://127.0.0.1/x')).rejects.toThrow(/webhook\.url: must be a public endpoint/);
      await expect(attempt('https://10.1.2.3/x')).rejects.toThrow(/webhook\.url: must be a public endpoint/);
      await expect(attempt('https://localhost/x')).rejects.toThrow(/webhook\.url: must be a public endpoint/);
      await expect(attempt('https://[::1]/x')).rejects.toThrow(/webhook\.url: must be a public endpoint/);
      expect((await svc.create({ search: { query: 'x', numResults: 10 }, webhook: { url: 'https://hooks.example.com/x' } }, null)).webhook.url).toBe('https://hooks.example.com/x'); // prettier-ignore
      const patch = async () => svc.update((await svc.list({ limit: 1 }, null)).data[0]!.id, { webhook: { url: 'https://192.168.1.9/x' } }, null); // prettier-ignore
      await expect(patch).rejects.toThrow(/webhook\.url/);
    } finally {
      await strict.close();
    }
  });

  it('refuses webhook URLs carrying credentials at creation and on PATCH, pointing to the webhook secret', async () => {
    const before = (await api('GET', '/monitors?limit=100')).body.data.length as number;
    for (const url of [
      'https://user:s3cret@hooks.example.com/x',
      'http://s3cret@127.0.0.1:9/x',
      'https://:s3cret@hooks.example.com/',
    ]) {
      const res = await api('POST', '/monitors', { search: { query: 'x' }, webhook: { url } });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(res.body.error).toMatch(/webhook\.url: must not carry credentials.*webhookSecret/);
      expect(JSON.stringify(res.body)).not.toContain('s3cret');
    }
    expect((await api('GET', '/monitors?limit=100')).body.data).toHaveLength(before);
    const monitor = await create();
    const patched = await api('PATCH', `/monitors/${monitor.id}`, { webhook: { url: 'https://user:s3cret@hooks.example.com/x' } }); // prettier-ignore
    expect(patched.status).toBe(400);
    expect(patched.body.error).toMatch(/webhook\.url: must not carry credentials.*Svc-Signature/);
    expect((await api('GET', `/monitors/${monitor.id}`)).body.webhook.url).toBe(receiver.url);
  });

  it('checks the address again at every delivery: a private receiver is refused once insecure webhooks are off', async () => {
    const monitor = await create(); // allowed while the operator allowed insecure webhooks
    const strict = reopen({ allowInsecureWebhooks: false });
    const hits = receiver.hits;
    try {
      await strict.services.monitors.engine.flush();
      const view = (await strict.services.monitors.deliveries(monitor.id as string, { limit: 10 }, null)).data[0]!;
      expect(view.status).toBe('pending');
      expect(view.attempts[0]!.error).toMatch(/refused/);
      expect(receiver.hits).toBe(hits); // nothing reached the receiver
    } finally {
      await strict.close();
    }
  });
});
