/** URL normalisation, the freshness policy, subpage picking and the admission queue. */
import { describe, expect, it } from 'vitest';
import { createAdmissionQueue } from '../../../src/core/contents/admission.js';
import { toFreshness } from '../../../src/core/contents/freshness.js';
import type { Page } from '../../../src/core/contents/page.js';
import { pickSubpages } from '../../../src/core/contents/subpages.js';
import { isImportUrl, normalizeUrl, siteOf } from '../../../src/core/contents/url.js';

describe('normalizeUrl', () => {
  it('lower-cases scheme and host, drops default ports, fragments and tracking parameters, sorts the query', () => {
    expect(normalizeUrl('HTTPS://Example.COM:443/Docs/?b=2&utm_source=x&a=1#intro')).toBe(
      'https://example.com/Docs/?a=1&b=2',
    );
    expect(normalizeUrl('http://example.com')).toBe('http://example.com/');
    expect(normalizeUrl('http://example.com/a?utm_medium=y')).toBe('http://example.com/a');
  });

  it('keeps path case and trailing slashes, which servers may treat as different pages', () => {
    expect(normalizeUrl('https://example.com/A/')).not.toBe(normalizeUrl('https://example.com/a'));
  });

  it('refuses what it cannot fetch', () => {
    expect(normalizeUrl('ftp://example.com/x')).toBeUndefined();
    expect(normalizeUrl('not a url')).toBeUndefined();
    expect(normalizeUrl('https://user:pw@example.com/')).toBeUndefined();
  });

  it('spells odd IPv4 forms the one WHATWG way', () => {
    expect(normalizeUrl('http://2130706433/')).toBe('http://127.0.0.1/');
    expect(normalizeUrl('http://0177.0.0.1/')).toBe('http://127.0.0.1/');
  });

  it('recognises import URLs and sites', () => {
    expect(isImportUrl('import://notes/1')).toBe(true);
    expect(isImportUrl('https://example.com')).toBe(false);
    expect(siteOf('https://www.example.com/a')).toBe('example.com');
  });
});

describe('toFreshness', () => {
  it('maps maxAgeHours exactly as the spec says', () => {
    expect(toFreshness({ maxAgeHours: -1 })).toEqual({ mode: 'cache-only' });
    expect(toFreshness({ maxAgeHours: 0 })).toEqual({ mode: 'live' });
    expect(toFreshness({ maxAgeHours: 2 })).toEqual({ mode: 'max-age', maxAgeMs: 7_200_000 });
    expect(toFreshness({})).toEqual({ mode: 'fallback' });
  });

  it('maps the deprecated livecrawl values and compliance', () => {
    expect(toFreshness({ livecrawl: 'never' })).toEqual({ mode: 'cache-only' });
    expect(toFreshness({ livecrawl: 'always' })).toEqual({ mode: 'live' });
    expect(toFreshness({ livecrawl: 'fallback' })).toEqual({ mode: 'fallback' });
    expect(toFreshness({ livecrawl: 'preferred' })).toEqual({ mode: 'live-preferred' });
    expect(toFreshness({ compliance: 'hipaa', maxAgeHours: 0 })).toEqual({ mode: 'cache-only' });
  });
});

describe('pickSubpages', () => {
  const page = {
    url: 'https://www.example.com/docs/',
    links: [
      { url: 'https://www.example.com/docs/', text: 'Docs home' },
      { url: 'https://example.com/docs/install', text: 'Install' },
      { url: 'https://other.org/docs/api', text: 'Other site API' },
      { url: 'https://www.example.com/docs/logo.png', text: 'logo' },
      { url: 'https://www.example.com/docs/config', text: 'Configuration' },
      { url: 'https://www.example.com/docs/api/search', text: 'Search API' },
      { url: 'https://www.example.com/docs/install#step-2', text: 'Install, step 2' },
    ],
  } as unknown as Page;

  it('keeps same-site pages in page order, without self-links, assets or fragments twice', () => {
    expect(pickSubpages(page, 10)).toEqual([
      'https://example.com/docs/install',
      'https://www.example.com/docs/config',
      'https://www.example.com/docs/api/search',
    ]);
  });

  it('ranks by subpageTarget keywords and honours the count', () => {
    expect(pickSubpages(page, 1, 'api')).toEqual(['https://www.example.com/docs/api/search']);
    expect(pickSubpages(page, 2, ['configuration', 'install'])[0]).toBe('https://example.com/docs/install');
    expect(pickSubpages(page, 0)).toEqual([]);
  });
});

describe('createAdmissionQueue', () => {
  it('runs at most `concurrency` tasks at once, in FIFO order within a tenant, and reports waits', async () => {
    let clock = 0;
    const queue = createAdmissionQueue(2, () => clock);
    const order: number[] = [];
    const gates: (() => void)[] = [];
    const task = (n: number) => () =>
      new Promise<number>((resolve) => {
        order.push(n);
        gates.push(() => resolve(n));
      });
    const runs = [1, 2, 3, 4].map((n) => queue.run('team', task(n)));
    await Promise.resolve();
    expect(queue.running).toBe(2);
    expect(queue.waiting).toBe(2);
    clock = 40;
    gates.shift()?.();
    await runs[0];
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([1, 2, 3]);
    while (gates.length) gates.shift()?.();
    await new Promise((r) => setImmediate(r));
    while (gates.length) gates.shift()?.();
    const done = await Promise.all(runs);
    expect(done.map((d) => d.queued)).toEqual([false, false, true, true]);
    expect(done[2]?.waitedMs).toBe(40);
    expect(queue.running).toBe(0);
  });

  it('drops a waiter whose request was aborted', async () => {
    const queue = createAdmissionQueue(1);
    let release!: () => void;
    const first = queue.run('team', () => new Promise<void>((r) => (release = r)));
    const controller = new AbortController();
    const second = queue.run('team', () => Promise.resolve('never'), controller.signal);
    controller.abort(new Error('client went away'));
    await expect(second).rejects.toThrow('client went away');
    expect(queue.waiting).toBe(0);
    release();
    await first;
    expect(queue.running).toBe(0);
  });
});
