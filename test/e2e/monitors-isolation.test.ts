/**
 * Webhook delivery isolation (issue 21, defect 5): a receiver that hangs holds only its own host's
 * delivery slots, so deliveries to other receivers go out at once; and a delivery's lease outlasts its
 * longest attempt, so a second process never sends it again while the first is still waiting.
 * Receivers are loopback servers; the outbox is driven by `flush` and the app's clock.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/** Attempts in flight to one receiver host (app.ts: the monitors' `deliveryConcurrency`). */
const DELIVERY_HOST_CONCURRENCY = 8;
const clock = { t: Date.parse('2026-11-20T12:00:00.000Z'), now: () => new Date(clock.t) };
let slow: Receiver;
let fast: Receiver;

beforeAll(async () => {
  slow = await startReceiver();
  fast = await startReceiver();
});
afterAll(async () => {
  await slow.close();
  await fast.close();
});

/** A monitor of `app` posting to `receiver` (its `monitor.created` event is then in the outbox). */
async function createMonitor(t: TestApp, receiver: Receiver): Promise<string> {
  const created = await t.app.services.monitors.create({ search: { query: 'release notes', numResults: 10 }, webhook: { url: receiver.url } }, null); // prettier-ignore
  receiver.secrets.push(created.webhookSecret);
  return created.id;
}

describe('delivery isolation per receiver host', () => {
  it('delivers to a fast receiver at once while another receiver hangs, holding at most its own slots', async () => {
    const t = makeTestApp({ allowInsecureWebhooks: true, webhookTimeoutMs: 60_000 }, { clock });
    try {
      const hanging = DELIVERY_HOST_CONCURRENCY + 2;
      // the hanging receiver answers nothing until released: the fast one's deliveries arrive while it
      // hangs, whatever the machine's load (how fast: bench/test-timings.mjs)
      slow.hold();
      // the hanging receiver's events are written first, so they come first in the outbox
      for (let i = 0; i < hanging; i++) await createMonitor(t, slow);
      for (let i = 0; i < 5; i++) await createMonitor(t, fast);
      const flushed = t.app.services.monitors.engine.flush();
      await vi.waitFor(() => expect(fast.deliveries).toHaveLength(5), { timeout: 15_000, interval: 10 });
      expect(slow.deliveries).toHaveLength(0); // still hanging
      // the hanging receiver holds its host's slots (the requests may still be arriving), the rest wait
      await vi.waitFor(() => expect(slow.hits).toBeGreaterThanOrEqual(DELIVERY_HOST_CONCURRENCY), { timeout: 15_000, interval: 10 }); // prettier-ignore
      expect(slow.hits).toBe(DELIVERY_HOST_CONCURRENCY);
      slow.release();
      expect(await flushed).toBe(hanging + 5);
      expect(slow.deliveries).toHaveLength(hanging);
      expect([...slow.deliveries, ...fast.deliveries].every((d) => d.verified)).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe('the running engine', () => {
  it('sends a new event to a fast receiver at once while its deliveries to a hanging one are in flight', async () => {
    const t = makeTestApp({ allowInsecureWebhooks: true, webhookTimeoutMs: 60_000 }, { clock });
    const engine = t.app.services.monitors.engine;
    try {
      const before = slow.hits;
      const fastBefore = fast.deliveries.length;
      const slowBefore = slow.deliveries.length;
      slow.hold();
      engine.start();
      for (let i = 0; i < DELIVERY_HOST_CONCURRENCY; i++) await createMonitor(t, slow);
      await vi.waitFor(() => expect(slow.hits).toBe(before + DELIVERY_HOST_CONCURRENCY), { timeout: 15_000, interval: 10 }); // prettier-ignore
      const id = await createMonitor(t, fast); // its event pokes the outbox, which is busy with the hanging receiver
      await vi.waitFor(() => expect(fast.deliveries.slice(fastBefore).map((d) => d.event.data.id)).toEqual([id]), { timeout: 15_000, interval: 10 }); // prettier-ignore
      expect(slow.deliveries).toHaveLength(slowBefore); // delivered while the others still hang
    } finally {
      slow.release();
      await engine.stop();
      await t.close();
    }
  });
});

describe('delivery lease', () => {
  it('outlasts the longest attempt: another process does not send a delivery still in flight', async () => {
    const t = makeTestApp({ allowInsecureWebhooks: true, webhookTimeoutMs: 60_000 }, { clock });
    const other = createApp(loadConfig({}, { dataDir: t.dataDir, logLevel: 'silent', allowInsecureWebhooks: true }), {
      logger: createLogger('silent'),
      clock,
    });
    try {
      const before = slow.hits;
      slow.hold();
      await createMonitor(t, slow);
      const flushed = t.app.services.monitors.engine.flush();
      await vi.waitFor(() => expect(slow.hits).toBe(before + 1), { timeout: 15_000, interval: 10 });
      // the attempt is still in flight when its longest possible time has passed on the clock
      clock.t += 60_000 + 1;
      expect(await other.services.monitors.engine.flush()).toBe(0);
      slow.release();
      expect(await flushed).toBe(1);
      expect(slow.hits).toBe(before + 1);
    } finally {
      slow.release();
      await other.close();
      await t.close();
    }
  });
});
