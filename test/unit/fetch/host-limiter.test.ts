import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostLimiter } from '../../../src/fetch/host-limiter.js';
import { pause, send, startSite, testFetcher, type Site } from './fixture.js';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] ?? 0));

describe('host limiter', () => {
  it('holds each host to its concurrency and spaces starts by the delay', async () => {
    const limiter = createHostLimiter();
    let running = 0;
    let most = 0;
    const starts: number[] = [];
    const task = async () => {
      starts.push(performance.now());
      most = Math.max(most, ++running);
      await pause(30);
      running--;
    };
    const before = timers();
    await Promise.all(Array.from({ length: 6 }, () => limiter.run('a.example', { concurrency: 2, delayMs: 0 }, task)));
    expect(most).toBe(2);
    starts.length = 0;
    await Promise.all(Array.from({ length: 3 }, () => limiter.run('b.example', { concurrency: 3, delayMs: 80 }, task)));
    expect(Math.min(...gaps(starts))).toBeGreaterThanOrEqual(75);
    expect(limiter.stats('b.example')).toEqual({ active: 0, queued: 0 });
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('drops an aborted waiter from the queue and leaves no timer behind', async () => {
    const limiter = createHostLimiter();
    const before = timers();
    const first = limiter.run('c.example', { concurrency: 1, delayMs: 5000 }, async () => 'first');
    const controller = new AbortController();
    const second = limiter.run('c.example', { concurrency: 1, delayMs: 5000 }, async () => 'second', {
      signal: controller.signal,
    });
    expect(await first).toBe('first');
    expect(limiter.stats('c.example').queued).toBe(1);
    controller.abort(new Error('stop'));
    await expect(second).rejects.toThrow('stop');
    expect(limiter.stats('c.example')).toEqual({ active: 0, queued: 0 });
    expect(timers()).toBeLessThanOrEqual(before);
    limiter.close();
  });

  it("serves a host's waiters round-robin between tenants, and tells the ones that waited", async () => {
    const limiter = createHostLimiter();
    const order: string[] = [];
    const waits = new Map<string, number>();
    const run = (tenant: string, name: string, ms: number) =>
      limiter.run(
        'e.example',
        { concurrency: 1, delayMs: 0 },
        async () => {
          order.push(name);
          await pause(ms);
        },
        { tenant, onQueued: (waited) => waits.set(name, waited) },
      );
    const flood = Array.from({ length: 6 }, (_, i) => run('team:a', `a${i + 1}`, 20));
    const late = run('team:b', 'b1', 0);
    await Promise.all([...flood, late]);
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3', 'a4', 'a5', 'a6']);
    expect(waits.has('a1')).toBe(false);
    expect(waits.get('b1')).toBeGreaterThan(0);
    expect(limiter.stats('e.example')).toEqual({ active: 0, queued: 0 });
  });

  it('rejects queued work on close', async () => {
    const limiter = createHostLimiter();
    const first = limiter.run('d.example', { concurrency: 1, delayMs: 0 }, () => pause(50));
    const queued = limiter.run('d.example', { concurrency: 1, delayMs: 0 }, async () => 'never');
    limiter.close();
    await expect(queued).rejects.toThrow(/closed/);
    await first;
  });
});

describe('politeness through the fetcher', () => {
  let site: Site;
  let delayed: Site;
  const fetcher = testFetcher();

  beforeAll(async () => {
    const slow = async (req: Parameters<ReturnType<typeof send>>[0], res: Parameters<ReturnType<typeof send>>[1]) => {
      await pause(60);
      await send('<p>slow</p>')(req, res);
    };
    site = await startSite({ '/slow': slow, '/spaced': send('<p>x</p>') });
    delayed = await startSite({
      '/robots.txt': send('User-agent: *\nCrawl-delay: 1', 'text/plain'),
      '/p': send('p'),
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await Promise.all([site.close(), delayed.close()]);
  });

  it('keeps at most perHostConcurrency requests in flight at the server', async () => {
    const politeness = { perHostConcurrency: 2, delayMs: 0 };
    await Promise.all(
      Array.from({ length: 6 }, () => fetcher.fetch({ url: `${site.origin}/slow`, timeoutMs: 5000, politeness })),
    );
    expect(site.count('/slow')).toBe(6);
    expect(site.maxInFlight).toBe(2);
  });

  // Slots open a delay apart; arrivals at the server differ from that by the connections' set-up times,
  // which a loaded machine stretches: delays of a second, against which half of it is the margin.
  it('waits the politeness delay, or the larger robots.txt Crawl-delay', async () => {
    const politeness = { perHostConcurrency: 4, delayMs: 1000 };
    await Promise.all(
      Array.from({ length: 3 }, () => fetcher.fetch({ url: `${site.origin}/spaced`, timeoutMs: 10_000, politeness })),
    );
    expect(Math.min(...gaps(site.arrivals.get('/spaced') ?? []))).toBeGreaterThanOrEqual(500);
    const crawl = { perHostConcurrency: 4, delayMs: 0 };
    await fetcher.fetch({ url: `${delayed.origin}/p`, timeoutMs: 10_000, politeness: crawl });
    await Promise.all(
      Array.from({ length: 2 }, () =>
        fetcher.fetch({ url: `${delayed.origin}/p`, timeoutMs: 10_000, politeness: crawl }),
      ),
    );
    // Crawl-delay 1: slots open a second apart, whatever the request's own delay (0)
    const arrivals = delayed.arrivals.get('/p') ?? [];
    expect(arrivals).toHaveLength(3);
    expect(Math.min(...gaps(arrivals))).toBeGreaterThanOrEqual(500);
  });
});
