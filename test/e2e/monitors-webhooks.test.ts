/**
 * Webhook delivery end to end: the durable outbox, retries with backoff, timeouts, redirects, the
 * HTTPS-and-public policy at creation and at delivery, and events surviving a restart. The clock is
 * the app's, moved by the test; deliveries are attempted by `flush`, never by waiting for a timer.
 */
import net, { isIP, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/compose/app.js';
import type { HostLookup } from '../../src/fetch/address-guard.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { callJson, startTestServer, type TestServer } from '../helpers/app.js';
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

/**
 * The resolver the apps are given (no DNS in tests): each name's answers in order, the last one repeated,
 * so a name can resolve to a public address at creation and to a private one at delivery.
 */
const dnsAnswers = new Map<string, string[]>([['hooks.example.com', ['93.184.215.14']]]);
const lookup: HostLookup = async (hostname) => {
  const answers = dnsAnswers.get(hostname);
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  const address = answers.length > 1 ? answers.shift()! : answers[0]!;
  return [{ address, family: isIP(address) }];
};

/** The same data directory opened by another process-like app, with its own settings. */
function reopen(flags: Record<string, unknown>): App {
  const config = loadConfig({}, { dataDir: t.dataDir, logLevel: 'silent', ...flags });
  return createApp(config, { logger: createLogger('silent'), clock, lookup });
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

describe('webhook hosts and the private-network allowlist', () => {
  let strict: TestServer;
  /** A TCP listener on loopback counting the connections made to it (a webhook must never reach it). */
  let trap: net.Server;
  let connections = 0;
  let trapPort = 0;
  const call = (method: string, path: string, body?: unknown) => callJson(strict.url, strict.key, method, path, body);

  beforeAll(async () => {
    trap = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    trapPort = (trap.address() as AddressInfo).port;
    dnsAnswers.set('loopback-hook.example.com', ['127.0.0.1']);
    dnsAnswers.set('office-hook.example.com', ['10.1.2.3']);
    // the operator opened 127.0.0.1 and 10.0.0.0/8 to page fetches: that must not open webhooks
    strict = await startTestServer(
      { allowInsecureWebhooks: false, privateAllowlist: ['127.0.0.1', '10.0.0.0/8'] },
      { clock, lookup },
    );
  });
  afterAll(async () => {
    await strict.close();
    await new Promise((resolve) => trap.close(resolve));
  });

  it('resolves the host at creation: a name of an allowlisted private address is refused with 400 {error}', async () => {
    for (const [host, ip] of [
      ['loopback-hook.example.com', '127.0.0.1'],
      ['office-hook.example.com', '10.1.2.3'],
    ]) {
      const res = await call('POST', '/monitors', { search: { query: 'x' }, webhook: { url: `https://${host}/hook` } });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(res.body.error).toMatch(
        new RegExp(`^webhook\\.url: must be a public endpoint: ${host} resolves to ${ip}`),
      );
    }
    expect((await call('GET', '/monitors')).body.data).toHaveLength(0);
  });

  it('refuses a host that does not resolve, at creation and on PATCH, and keeps the stored URL', async () => {
    const res = await call('POST', '/monitors', { search: { query: 'x' }, webhook: { url: 'https://nowhere.example.com/hook' } }); // prettier-ignore
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('webhook.url: must be a public endpoint: nowhere.example.com does not resolve to any address'); // prettier-ignore
    const made = await call('POST', '/monitors', { search: { query: 'x' }, webhook: { url: 'https://hooks.example.com/x' } }); // prettier-ignore
    expect(made.status).toBe(201);
    for (const url of [
      'https://nowhere.example.com/hook',
      'https://loopback-hook.example.com/hook',
      'https://127.0.0.1/hook',
    ]) {
      const patched = await call('PATCH', `/monitors/${made.body.id}`, { webhook: { url } });
      expect(patched.status).toBe(400);
      expect(patched.body.error).toMatch(/^webhook\.url: must be a public endpoint: /);
    }
    expect((await call('GET', `/monitors/${made.body.id}`)).body.webhook.url).toBe('https://hooks.example.com/x');
    expect((await call('DELETE', `/monitors/${made.body.id}`)).status).toBe(200);
  });

  it('refuses at delivery a host that resolved publicly at creation and now resolves to an allowlisted address', async () => {
    const host = 'rebinding-hook.example.com';
    dnsAnswers.set(host, ['93.184.215.14', '127.0.0.1']);
    const made = await call('POST', '/monitors', { search: { query: 'x' }, webhook: { url: `https://${host}:${trapPort}/hook` } }); // prettier-ignore
    expect(made.status).toBe(201);
    await strict.app.services.monitors.engine.flush();
    const view = (await call('GET', `/monitors/${made.body.id}/deliveries`)).body.data[0];
    expect(view).toMatchObject({ type: 'monitor.created', status: 'pending' });
    expect(view.attempts[0].error).toMatch(
      /resolves to 127\.0\.0\.1, .*refused by the private-network policy.*TRAWL_ALLOW_INSECURE_WEBHOOKS/,
    );
    expect(connections).toBe(0);
  });
});
