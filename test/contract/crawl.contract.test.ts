// One contract for crawl jobs and their frontier, on SQLite and on PostgreSQL: a job made afresh with
// its seeds queued, breadth-first order, a page completed with its aliases and links at once, failures
// counted by tag.
import { describe, expect, it } from 'vitest';
import { createCrawlRepo } from '../../src/store/sqlite/crawl.js';
import { createPgCrawlRepo } from '../../src/store/pg/crawl.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor(createCrawlRepo, createPgCrawlRepo);
const seeds = ['https://a.example/', 'https://b.example/'];

describe.each(backends)('crawl jobs and frontier on %s', (_name, available, open) => {
  const each = perTest(open);

  it.runIf(available)('makes a job with its seeds queued, and finds it by its seeds while active', async () => {
    const backend = await each.open();
    const { repo } = backend;
    const job = await repo.createJob({ id: 'job1', seeds, scope: { depth: 2 } }, 'T1');
    expect(job).toEqual({ id: 'job1', seeds, scope: { depth: 2 }, state: 'active', sitemapsDone: false, createdAt: 'T1', updatedAt: 'T1' }); // prettier-ignore
    expect((await repo.activeJobsForSeeds(seeds)).map((j) => j.id)).toEqual(['job1']);
    expect(await repo.counts('job1')).toEqual({ queued: 2, done: 0, failed: 0 });
    await repo.updateJob('job1', { state: 'finished', sitemapsDone: true }, 'T2');
    expect(await repo.getJob('job1')).toMatchObject({ state: 'finished', sitemapsDone: true, updatedAt: 'T2' });
    expect(await repo.activeJobsForSeeds(seeds)).toEqual([]);
    // the same id again: made afresh, its old frontier gone
    await repo.enqueue('job1', [{ url: 'https://a.example/old', depth: 1 }], 'T2');
    await repo.createJob({ id: 'job1', seeds, scope: { depth: 3 } }, 'T3');
    expect(await repo.counts('job1')).toEqual({ queued: 2, done: 0, failed: 0 });
    expect(await repo.getJob('nope')).toBeUndefined();
  });

  it.runIf(available)(
    'hands out queued pages breadth first, completes one with its aliases and links at once',
    async () => {
      const backend = await each.open();
      const { repo } = backend;
      await repo.createJob({ id: 'j', seeds, scope: {} }, 'T1');
      expect(await repo.enqueue('j', [{ url: 'https://a.example/deep', depth: 2 }, { url: 'https://a.example/', depth: 1 }, { url: 'https://a.example/deep', depth: 2 }], 'T1')).toBe(1); // prettier-ignore
      const [first, second, third] = await repo.next('j', 3, new Set());
      expect([first!.url, second!.url, third!.url]).toEqual([...seeds, 'https://a.example/deep']);
      expect((await repo.next('j', 2, new Set([first!.id]))).map((e) => e.url)).toEqual([seeds[1], 'https://a.example/deep']); // prettier-ignore
      const change = await repo.complete(
        'j',
        first!.id,
        [
          { url: 'https://a.example/deep', depth: 2 },
          { url: 'https://a.example/home', depth: 0 },
        ], // redirected to
        [
          { url: 'https://a.example/l1', depth: 1 },
          { url: 'https://b.example/', depth: 1 },
        ],
        'T2',
      );
      expect(change).toEqual({ added: 1, aliasesQueuedToDone: 1, aliasesInserted: 1 });
      expect(await repo.counts('j')).toEqual({ queued: 2, done: 3, failed: 0 });
      expect((await repo.next('j', 10, new Set())).map((e) => e.url)).toEqual([seeds[1], 'https://a.example/l1']);
    },
  );

  it.runIf(available)('records failures with their tag and counts them', async () => {
    const backend = await each.open();
    const { repo } = backend;
    await repo.createJob({ id: 'j', seeds, scope: {} }, 'T1');
    const [a, b] = await repo.next('j', 2, new Set());
    await repo.fail(a!.id, { tag: 'HTTP_ERROR', message: '404 Not Found', httpStatusCode: 404 }, 'T2');
    await repo.fail(b!.id, { tag: 'TIMEOUT', message: 'timed out', httpStatusCode: null }, 'T2');
    expect(await repo.counts('j')).toEqual({ queued: 0, done: 0, failed: 2 });
    expect(await repo.failuresByTag('j')).toEqual({ HTTP_ERROR: 1, TIMEOUT: 1 });
    expect(await repo.failures('j', 1)).toEqual([{ url: seeds[0], tag: 'HTTP_ERROR', error: '404 Not Found', httpStatusCode: 404 }]); // prettier-ignore
    await repo.complete('j', a!.id, [], [], 'T3'); // a retry that succeeded clears the failure
    expect(await repo.failuresByTag('j')).toEqual({ TIMEOUT: 1 });
  });
});
