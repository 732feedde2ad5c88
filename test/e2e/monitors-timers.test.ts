/**
 * The engine on its own timers (croner), under vitest's fake timers: a started engine runs a monitor at
 * its `nextRunAt`, not before, and arms the next slot; nothing here sleeps in real time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';

const START = Date.parse('2026-11-20T12:00:00.000Z');
let t: TestApp | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
  vi.useRealTimers();
});

describe('the monitor engine on its timers', () => {
  it('runs a monitor when its slot comes, and again one period later', async () => {
    vi.useFakeTimers({ now: START, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    t = makeTestApp({ allowInsecureWebhooks: true });
    const svc = t.app.services.monitors;
    const monitor = await svc.create(
      { search: { query: 'timers', numResults: 3 }, trigger: { type: 'interval', period: '1h' }, webhook: { url: 'http://127.0.0.1:9/hook' } }, // prettier-ignore
      null,
    );
    const due = Date.parse(monitor.nextRunAt!);
    svc.engine.start();
    await vi.advanceTimersByTimeAsync(due - Date.now() - 1000);
    expect((await svc.runs(monitor.id, { limit: 10 }, null)).data).toHaveLength(0);

    await vi.advanceTimersByTimeAsync(1500);
    await vi.waitFor(async () =>
      expect((await svc.runs(monitor.id, { limit: 10 }, null)).data[0]?.status).toBe('completed'),
    );
    const first = (await svc.runs(monitor.id, { limit: 10 }, null)).data[0]!;
    expect(Date.parse(first.createdAt) - due).toBeGreaterThanOrEqual(0);
    expect(Date.parse(first.createdAt) - due).toBeLessThan(1500);
    expect(Date.parse((await svc.get(monitor.id, null)).nextRunAt!)).toBe(due + 3_600_000);

    await vi.advanceTimersByTimeAsync(3_600_000);
    await vi.waitFor(async () => expect((await svc.runs(monitor.id, { limit: 10 }, null)).data).toHaveLength(2));
    await svc.engine.stop();
  });
});
