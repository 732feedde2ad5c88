/**
 * Crawls: breadth-first from seed URLs over same-site links and the sites' sitemaps, through the pages
 * service (so every page is fetched politely, extracted, cached and stored as a document). The frontier
 * lives in SQLite (crawl.repo), so an interrupted crawl resumes where it stopped.
 */
import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import { normalizeUrl } from '../contents/url.js';
import { CrawlRun } from './crawl-run.js';
import type { CrawlDeps, CrawlRunOptions, CrawlScope, CrawlService } from './crawl.types.js';

/** The normalised, sorted, deduplicated seeds; throws `INVALID_URLS` naming the first bad one. */
export function normalizeSeeds(seeds: readonly string[]): string[] {
  if (seeds.length === 0) throw new ServiceError('INVALID_URLS', 'Give at least one URL to crawl.');
  const out = seeds.map((s) => {
    const url = normalizeUrl(s);
    if (!url) throw new ServiceError('INVALID_URLS', `${JSON.stringify(s)} is not an http(s) URL.`);
    return url;
  });
  return [...new Set(out)].sort();
}

/** The job id of a scope: a hash of its normalised seeds and scope options. */
export function jobIdOf(seeds: readonly string[], scope: Omit<CrawlScope, 'seeds'>): string {
  const key = JSON.stringify({ seeds, ...scopeKey(scope) });
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

const scopeKey = (s: Omit<CrawlScope, 'seeds'>) => ({
  depth: s.depth,
  include: [...s.include],
  exclude: [...s.exclude],
  sitemaps: s.sitemaps,
});

/** The crawl service over the pages service (fetch, extract, store) and the frontier repository. */
export function createCrawlService(deps: CrawlDeps): CrawlService {
  const now = () => deps.clock.now().toISOString();

  const openJob = async (seeds: string[], scope: CrawlScope, mode: CrawlRunOptions['mode']) => {
    const id = jobIdOf(seeds, scope);
    const existing = await deps.repo.getJob(id);
    if (mode !== 'restart' && existing?.state === 'active') return { job: existing, resumed: true };
    if (mode === 'resume') {
      throw new ServiceError('NOT_FOUND', 'No unfinished crawl of these URLs with these options to resume.');
    }
    for (const other of await deps.repo.activeJobsForSeeds(seeds)) {
      if (other.id === id) continue;
      deps.logger.warn(
        { jobId: other.id, scope: other.scope },
        'an unfinished crawl of these URLs with other options exists; run with those options to resume it',
      );
    }
    // the job and its seeds, queued at depth 0, in one write
    const job = await deps.repo.createJob({ id, seeds, scope: scopeKey(scope) }, now());
    return { job, resumed: false };
  };

  return {
    async run(scope, options) {
      const started = performance.now();
      const seeds = normalizeSeeds(scope.seeds);
      const { job, resumed } = await openJob(seeds, scope, options.mode);
      const crawl = await CrawlRun.start(deps, job, { ...scope, seeds }, options);
      const sitemapUrls = await crawl.discover();
      const interrupted = await crawl.drain();
      const counts = await deps.repo.counts(job.id);
      const attempted = counts.done + counts.failed;
      const status = interrupted && counts.queued > 0 ? 'interrupted' : counts.queued > 0 ? 'limit' : 'finished';
      if (counts.queued === 0) await deps.repo.updateJob(job.id, { state: 'finished', sitemapsDone: true }, now());
      deps.logger.debug({ jobId: job.id, status, attempted }, 'crawl run ended');
      const failedByTag = await deps.repo.failuresByTag(job.id);
      const failures = await deps.repo.failures(job.id, 100);
      return {
        jobId: job.id,
        status,
        resumed,
        seeds,
        ...counts,
        attemptedThisRun: crawl.attempted,
        sitemapUrls,
        failedByTag,
        failures,
        elapsedMs: Math.round(performance.now() - started),
      };
    },
  };
}
