// Crawls as a kind of job, on SQLite and on PostgreSQL: one process at a time holds a crawl's lease
// (held: refused to another; lapsed, released or its holder gone: taken), only the holder renews it,
// and a held crawl is not made afresh under its holder.
import { describe, expect, it } from 'vitest';
import { createCrawlRepo } from '../../src/store/sqlite/crawl.js';
import { createPgCrawlRepo } from '../../src/store/pg/crawl.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor(createCrawlRepo, createPgCrawlRepo);
const seeds = ['https://a.example/'];

describe.each(backends)('crawl leases on %s', (_name, available, open) => {
  const each = perTest(open);

  it.runIf(available)('refuses a held crawl to a second process, gives a lapsed one to it', async () => {
    const backend = await each.open();
    const [a, b] = [backend.repo, backend.second()];
    await a.createJob({ id: 'j', seeds, scope: {} }, 'T1');
    expect(await a.leaseOf('j')).toEqual({ owner: null, untilMs: null });
    expect(await a.claim('j', { owner: 'p1', untilMs: 1000, nowMs: 0 })).toMatchObject({ id: 'j', state: 'active' });
    expect(await b.claim('j', { owner: 'p2', untilMs: 1500, nowMs: 500 })).toBeUndefined(); // held
    expect(await a.leaseOf('j')).toEqual({ owner: 'p1', untilMs: 1000 });
    expect(await b.renewLease('j', 'p2', 2000)).toBe(false); // only the holder renews
    expect(await a.renewLease('j', 'p1', 2000)).toBe(true);
    expect(await b.claim('j', { owner: 'p2', untilMs: 2500, nowMs: 1500 })).toBeUndefined(); // renewed: still held
    expect(await b.claim('j', { owner: 'p2', untilMs: 4000, nowMs: 2001 })).toMatchObject({ id: 'j' }); // lapsed
    expect(await a.leaseOf('j')).toEqual({ owner: 'p2', untilMs: 4000 });
    expect(await a.renewLease('j', 'p1', 5000)).toBe(false); // taken over: the old holder's renewal fails
    expect(await a.release('j', 'p1', 3000)).toBe(false); // not its own, not lapsed
    expect(await a.leaseOf('j')).toEqual({ owner: 'p2', untilMs: 4000 });
  });

  it.runIf(available)('frees a released crawl, finished or not, and one whose holder is gone', async () => {
    const backend = await each.open();
    const [a, b] = [backend.repo, backend.second()];
    await a.createJob({ id: 'j', seeds, scope: {} }, 'T1');
    await a.claim('j', { owner: 'p1', untilMs: 1000, nowMs: 0 });
    expect(await a.release('j', 'p1', 100)).toBe(true);
    expect(await a.leaseOf('j')).toEqual({ owner: null, untilMs: null });
    expect(await b.claim('j', { owner: 'p2', untilMs: 1000, nowMs: 200 })).toMatchObject({ id: 'j' });
    await b.updateJob('j', { state: 'finished', sitemapsDone: true }, 'T2');
    expect(await b.renewLease('j', 'p2', 2000)).toBe(false); // finished: nothing to renew
    expect(await b.release('j', 'p2', 300)).toBe(true);
    expect(await a.leaseOf('j')).toEqual({ owner: null, untilMs: null });
    // a holder known to be gone (its process no longer runs) frees its lease before it lapses
    await a.claim('j', { owner: 'p3', untilMs: 9000, nowMs: 400 });
    expect(await b.claim('j', { owner: 'p4', untilMs: 9500, nowMs: 500, gone: 'p9' })).toBeUndefined();
    expect(await b.claim('j', { owner: 'p4', untilMs: 9500, nowMs: 500, gone: 'p3' })).toMatchObject({ id: 'j' });
    expect(await a.leaseOf('j')).toEqual({ owner: 'p4', untilMs: 9500 });
    expect(await a.getJob('nope')).toBeUndefined();
    expect(await a.leaseOf('nope')).toBeUndefined();
  });

  it.runIf(available)('makes a crawl afresh only when no other process holds it', async () => {
    const backend = await each.open();
    const [a, b] = [backend.repo, backend.second()];
    await a.createJob({ id: 'j', seeds, scope: { depth: 1 } }, 'T1');
    await a.claim('j', { owner: 'p1', untilMs: 1000, nowMs: 0 });
    await a.enqueue('j', [{ url: 'https://a.example/x', depth: 1 }], 'T1');
    // another process's: left as it is
    expect(await b.createJob({ id: 'j', seeds, scope: { depth: 2 } }, 'T2', 'p2')).toMatchObject({ scope: { depth: 1 }, createdAt: 'T1' }); // prettier-ignore
    expect(await b.counts('j')).toEqual({ queued: 2, done: 0, failed: 0 });
    expect(await b.leaseOf('j')).toEqual({ owner: 'p1', untilMs: 1000 });
    // its holder's own: made afresh, unleased
    expect(await a.createJob({ id: 'j', seeds, scope: { depth: 3 } }, 'T3', 'p1')).toMatchObject({ scope: { depth: 3 }, createdAt: 'T3' }); // prettier-ignore
    expect(await a.counts('j')).toEqual({ queued: 1, done: 0, failed: 0 });
    expect(await a.leaseOf('j')).toEqual({ owner: null, untilMs: null });
  });
});
