/**
 * Crawls: breadth-first from seed URLs over same-site links and the sites' sitemaps, through the pages
 * service (so every page is fetched politely, extracted, cached and stored as a document). The frontier
 * lives in the store (crawl.repo), so an interrupted crawl resumes where it stopped; the process walking
 * it holds its lease (crawl-lease.ts), so no two processes walk one crawl.
 */
import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import { normalizeUrl } from '../contents/url.js';
import { createCrawlWalks } from './crawl-lease.js';
import { CrawlRun } from './crawl-run.js';
import type { CrawlJob } from '../../store/contracts/crawl.js';
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

const anyOf = (a: AbortSignal | undefined, b: AbortSignal) => (a ? AbortSignal.any([a, b]) : b);

/** The walk stopped because another process took the crawl over (this process's lease lapsed). */
const lost = (id: string) =>
  new ServiceError(
    'SERVICE_UNAVAILABLE',
    `Crawl ${id} stopped: its lease lapsed here and another process took it over; that process walks it now.`,
  );

/** The crawl service over the pages service (fetch, extract, store) and the frontier repository. */
export function createCrawlService(deps: CrawlDeps): CrawlService {
  const now = () => deps.clock.now().toISOString();
  const walks = createCrawlWalks({
    repo: deps.repo,
    now: () => deps.clock.now().getTime(),
    leaseMs: deps.leaseMs,
    logger: deps.logger,
  });

  /** The job to walk, leased for this process (a job of that id is taken first, even to replace it). */
  const openJob = async (seeds: string[], scope: CrawlScope, mode: CrawlRunOptions['mode']) => {
    const id = jobIdOf(seeds, scope);
    const existing = (await deps.repo.getJob(id)) && (await walks.take(id));
    if (mode !== 'restart' && existing?.state === 'active') return { job: existing, resumed: true };
    if (mode === 'resume') {
      if (existing) await walks.release(id);
      throw new ServiceError('NOT_FOUND', 'No unfinished crawl of these URLs with these options to resume.');
    }
    for (const other of await deps.repo.activeJobsForSeeds(seeds)) {
      if (other.id === id) continue;
      deps.logger.warn(
        { jobId: other.id, scope: other.scope },
        'an unfinished crawl of these URLs with other options exists; run with those options to resume it',
      );
    }
    // the job and its seeds, queued at depth 0, in one write (not over a job another process took meanwhile)
    await deps.repo.createJob({ id, seeds, scope: scopeKey(scope) }, now(), walks.owner);
    return { job: await walks.take(id), resumed: false };
  };

  /** One run over a held job: sitemaps once, then the frontier, and the counts it left. */
  const walk = async (job: CrawlJob, scope: CrawlScope, options: CrawlRunOptions) => {
    const crawl = await CrawlRun.start(deps, job, scope, options);
    const sitemapUrls = await crawl.discover();
    const interrupted = await crawl.drain();
    return { crawl, sitemapUrls, interrupted, counts: await deps.repo.counts(job.id) };
  };
  type Walked = Awaited<ReturnType<typeof walk>>;
  const finished = (id: string) => deps.repo.updateJob(id, { state: 'finished', sitemapsDone: true }, now());

  return {
    jobIdOf: (scope) => jobIdOf(normalizeSeeds(scope.seeds), scope),
    async frontier(jobId, limits) {
      if (!(await deps.repo.getJob(jobId))) return undefined;
      const [counts, failuresByTag, failures, queued] = await Promise.all([
        deps.repo.counts(jobId),
        deps.repo.failuresByTag(jobId),
        deps.repo.failures(jobId, limits.failures),
        deps.repo.next(jobId, limits.queued, new Set()),
      ]);
      return { counts, failuresByTag, failures, queued: queued.map(({ url, depth }) => ({ url, depth })) };
    },
    async run(scope, options) {
      const started = performance.now();
      const seeds = normalizeSeeds(scope.seeds);
      const { job, resumed } = await openJob(seeds, scope, options.mode);
      const held = walks.hold(job.id);
      let walked: Walked;
      try {
        walked = await walk(job, { ...scope, seeds }, { ...options, abort: anyOf(options.abort, held.signal) });
        if (held.signal.aborted) throw lost(job.id);
        held.stopRenewing();
        if (walked.counts.queued === 0) await finished(job.id);
      } finally {
        await walks.release(job.id, held);
      }
      const { counts, crawl, sitemapUrls } = walked;
      const attempted = counts.done + counts.failed;
      const status = walked.interrupted && counts.queued > 0 ? 'interrupted' : counts.queued > 0 ? 'limit' : 'finished';
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
