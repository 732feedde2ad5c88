import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, verifySignature } from '../../../src/fetch/webhook-signing.js';
import {
  createWebhookSender,
  type WebhookDelivery,
  type WebhookSender,
  type WebhookSenderOptions,
} from '../../../src/fetch/webhook-sender.js';

interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Answer = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

interface Receiver {
  origin: string;
  received: Received[];
  close(): Promise<void>;
}

/** A loopback webhook receiver: records every request, then answers with the route's handler (404 if none). */
async function startReceiver(routes: Record<string, Answer>, host = '127.0.0.1'): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      received.push({ path, method: req.method ?? '', headers: req.headers, body });
      const answer = routes[path];
      if (answer) answer(req, res, body);
      else res.writeHead(404).end('no such route');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const secret = 'whsec_sender-test-secret';
const delivery = (url: string): WebhookDelivery => ({
  url,
  body: JSON.stringify({ id: 'evt_1', type: 'monitor.run.completed', data: { runId: 'run_1' } }),
  secret,
  eventId: 'evt_1',
  eventType: 'monitor.run.completed',
});

const loopbackOnly: WebhookSenderOptions = {
  requireHttps: false,
  guard: { allowPrivateNetwork: false, privateAllowlist: ['127.0.0.1/32'] },
  timeoutMs: 300,
  userAgent: 'Trawl-Webhooks/test',
};

/** Answers 200 only when the signature verifies against the exact body received. */
const verifying: Answer = (req, res, body) => {
  const header = req.headers[SIGNATURE_HEADER];
  const ok = verifySignature(typeof header === 'string' ? header : undefined, body, secret);
  res.writeHead(ok ? 200 : 401, { 'content-type': 'text/plain' }).end(ok ? 'thanks' : 'bad signature');
};

const redirectTo =
  (location: string, status = 307): Answer =>
  (_req, res) =>
    res.writeHead(status, { location }).end();

describe('webhook sender', () => {
  let receiver: Receiver;
  let other: Receiver;
  let sender: WebhookSender;

  beforeAll(async () => {
    other = await startReceiver({ '/hook': verifying });
    receiver = await startReceiver({
      '/hook': verifying,
      '/fail': (_req, res) => res.writeHead(500).end('boom'),
      '/slow': () => undefined,
      '/slow-body': (_req, res) => res.writeHead(200).write('partial'),
      '/big': (_req, res) => res.writeHead(200).end('x'.repeat(1024 * 1024)),
      '/to-other': redirectTo(`${other.origin}/hook`),
      '/loop': redirectTo('/loop', 302),
    });
    sender = createWebhookSender(loopbackOnly);
  });

  afterAll(async () => {
    await sender.close();
    await Promise.all([receiver.close(), other.close()]);
  });

  afterEach(() => {
    receiver.received.length = 0;
    other.received.length = 0;
  });

  it('POSTs the signed event, which the receiver verifies', async () => {
    const outcome = await sender.send(delivery(`${receiver.origin}/hook`));
    expect(outcome).toMatchObject({ ok: true, status: 200, error: null, redirects: [] });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    const [request] = receiver.received;
    expect(request?.method).toBe('POST');
    expect(request?.body).toBe(delivery('').body);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Trawl-Webhooks/test',
      'svc-event-id': 'evt_1',
      'svc-event-type': 'monitor.run.completed',
    });
    expect(request?.headers[SIGNATURE_HEADER]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('reuses pooled connections across sends', async () => {
    const ports = new Set<number | undefined>();
    const server = http.createServer((req, res) => {
      ports.add(req.socket.remotePort);
      req.resume().on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    for (let i = 0; i < 6; i++) expect((await sender.send(delivery(url))).ok).toBe(true);
    // undici may open a second socket while the first is being released, but never one per send.
    expect(ports.size).toBeLessThanOrEqual(2);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reports a non-2xx answer with its status', async () => {
    const outcome = await sender.send(delivery(`${receiver.origin}/fail`));
    expect(outcome).toMatchObject({ ok: false, status: 500, error: 'HTTP 500' });
  });

  it('times out a receiver that never answers, and one whose body never ends', async () => {
    for (const path of ['/slow', '/slow-body']) {
      const outcome = await sender.send(delivery(`${receiver.origin}${path}`));
      expect(outcome, path).toMatchObject({ ok: false, error: 'timed out after 300 ms' });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(290); // never answered: only the deadline ends it
    }
  });

  it('discards a large answer after 64 KiB and still succeeds', async () => {
    const outcome = await sender.send(delivery(`${receiver.origin}/big`));
    expect(outcome).toMatchObject({ ok: true, status: 200 });
  });

  it('respects the caller abort signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const outcome = await sender.send(delivery(`${receiver.origin}/slow`), controller.signal);
    expect(outcome).toMatchObject({ ok: false, status: null, error: 'cancelled' }); // not the 300 ms time-out
    const before = await sender.send(delivery(`${receiver.origin}/hook`), AbortSignal.abort());
    expect(before).toMatchObject({ ok: false, error: 'cancelled' });
  });

  it('follows a 307 to another allowed receiver, re-signing the same body', async () => {
    const outcome = await sender.send(delivery(`${receiver.origin}/to-other`));
    expect(outcome).toMatchObject({ ok: true, status: 200, error: null, redirects: [`${other.origin}/hook`] });
    expect(other.received).toHaveLength(1);
    expect(other.received[0]?.method).toBe('POST');
    expect(other.received[0]?.body).toBe(delivery('').body);
  });

  it('refuses a redirect to a loopback address outside the allowlist before any request reaches it', async () => {
    const hidden = await startReceiver({ '/hook': verifying }, '127.0.0.2');
    const bouncer = await startReceiver({ '/go': redirectTo(`${hidden.origin}/hook`) });
    try {
      const outcome = await sender.send(delivery(`${bouncer.origin}/go`));
      expect(outcome.ok).toBe(false);
      expect(outcome.status).toBe(307);
      expect(outcome.error).toMatch(
        /^redirect to "http:\/\/127\.0\.0\.2:\d+\/hook" refused: 127\.0\.0\.2 is a loopback/,
      );
      expect(outcome.redirects).toEqual([`${hidden.origin}/hook`]);
      expect(hidden.received).toHaveLength(0);
    } finally {
      await Promise.all([hidden.close(), bouncer.close()]);
    }
  });

  it('refuses an http: URL when HTTPS is required', async () => {
    const strict = createWebhookSender({ ...loopbackOnly, requireHttps: true });
    try {
      const outcome = await strict.send(delivery(`${receiver.origin}/to-other`));
      expect(outcome).toMatchObject({ ok: false, status: null, error: 'refused: webhooks must use HTTPS' });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it('refuses literal private addresses and local names up front', async () => {
    const strict = createWebhookSender({
      ...loopbackOnly,
      guard: { allowPrivateNetwork: false, privateAllowlist: [] },
    });
    try {
      for (const [url, pattern] of [
        [`${receiver.origin}/hook`, /^refused: 127\.0\.0\.1 is a loopback address/],
        ['http://10.1.2.3/hook', /^refused: 10\.1\.2\.3 is a private address/],
        ['http://[::1]:8080/hook', /^refused: ::1 is a loopback address/],
        ['http://169.254.169.254/latest', /^refused: 169\.254\.169\.254 is a cloud metadata address/],
        ['http://localhost:8080/hook', /^refused: localhost is this machine/],
        ['http://metadata.google.internal/', /^refused: metadata\.google\.internal is a cloud metadata service/],
        ['ftp://example.com/hook', /^refused: ftp: URLs are not fetched/],
        ['/relative', /^refused: .* is not a valid URL/],
      ] as const) {
        const outcome = await strict.send(delivery(url));
        expect(outcome, url).toMatchObject({ ok: false, status: null, redirects: [] });
        expect(outcome.error, url).toMatch(pattern);
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it('resolves the host when asked whether a URL may receive webhooks', async () => {
    const answers: Record<string, string> = { 'hooks.example.com': '93.184.215.14', 'office.example.com': '10.1.2.3' };
    const strict = createWebhookSender({
      ...loopbackOnly,
      requireHttps: true,
      guard: {
        allowPrivateNetwork: false,
        privateAllowlist: [],
        lookup: async (host) => {
          const address = answers[host];
          if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
          return [{ address, family: 4 }];
        },
      },
    });
    try {
      expect(await strict.refusal('https://hooks.example.com/hook')).toBeUndefined();
      expect(await strict.refusal('https://office.example.com/hook')).toMatch(
        /^office\.example\.com resolves to 10\.1\.2\.3, a private address: refused by the private-network policy/,
      );
      expect(await strict.refusal('https://nowhere.example.com/hook')).toBe('nowhere.example.com does not resolve to any address'); // prettier-ignore
      expect(await strict.refusal('https://127.0.0.1/hook')).toMatch(/^127\.0\.0\.1 is a loopback address/);
      expect(await strict.refusal('http://hooks.example.com/hook')).toBe('webhooks must use HTTPS');
    } finally {
      await strict.close();
    }
  });

  it('lets allowPrivateNetwork lift the guard', async () => {
    const open = createWebhookSender({ ...loopbackOnly, guard: { allowPrivateNetwork: true, privateAllowlist: [] } });
    try {
      expect((await open.send(delivery(`${receiver.origin}/hook`))).ok).toBe(true);
    } finally {
      await open.close();
    }
  });

  it('fails after more redirects than allowed', async () => {
    const outcome = await sender.send(delivery(`${receiver.origin}/loop`));
    expect(outcome).toMatchObject({ ok: false, status: 302, error: 'more than 3 redirects' });
    expect(outcome.redirects).toHaveLength(4);
    expect(receiver.received).toHaveLength(4);
  });

  it('reports a refused connection without the secret or the signature', async () => {
    const gone = await startReceiver({});
    await gone.close();
    const outcome = await sender.send(delivery(`${gone.origin}/hook`));
    expect(outcome).toMatchObject({ ok: false, status: null });
    expect(outcome.error).toMatch(/ECONNREFUSED/);
    expect(outcome.error).not.toContain(secret);
  });
});
