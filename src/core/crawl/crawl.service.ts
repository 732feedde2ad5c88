/**
 * Crawls: breadth-first from seed URLs over same-site links and the sites' sitemaps, through the pages
 * service (so every page is fetched politely, extracted, cached and stored as a document). The frontier
 * lives in SQLite (crawl.repo), so an interrupted crawl resumes where it stopped.
 */
import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { Fetcher } from '../../fetch/types.js';
import type { Logger } from '../../lib/logger.js';
import type { CrawlRepo, FrontierFailure } from '../../store/crawl.repo.js';
import type { Clock } from '../context.js';
import type { PagesService } from '../contents/pages.service.js';
import { normalizeUrl } from '../contents/url.js';
import { CrawlRun } from './crawl-run.js';

/** What belongs to a crawl; the same scope over the same seeds is the same job (and resumes). */
export interface CrawlScope {
  seeds: string[];
  /** Link hops from a seed: 0 fetches the seeds only; sitemap URLs count as depth 1. */
  depth: number;
  include: string[];
  exclude: string[];
  sitemaps: boolean;
}

export interface CrawlRunOptions {
  /** Pages attempted (stored or failed) over the whole job, resumed runs included. */
  limit: number;
  concurrency: number;
  perHost: number;
  delayMs: number;
  timeoutMs: number;
  /** `auto` resumes an unfinished job of the same scope, else starts one; `resume` requires one. */
  mode: 'auto' | 'resume' | 'restart';
  /** When aborted: take no new URL; pages in flight finish. */
  stop?: AbortSignal;
  /** When aborted: pages in flight are cancelled too and stay queued for the next run. */
  abort?: AbortSignal;
  onProgress?: (p: CrawlProgress) => void;
}

export interface CrawlProgress {
  jobId: string;
  done: number;
  failed: number;
  queued: number;
  inFlight: number;
  /** Pages attempted by this run (not counting earlier runs of a resumed job). */
  attemptedThisRun: number;
}

export interface CrawlSummary {
  jobId: string;
  /** `finished`: nothing left queued; `limit`: stopped at `limit`; `interrupted`: stopped by a signal. */
  status: 'finished' | 'limit' | 'interrupted';
  resumed: boolean;
  seeds: string[];
  done: number;
  failed: number;
  queued: number;
  attemptedThisRun: number;
  sitemapUrls: number;
  failedByTag: Record<string, number>;
  /** The first failed URLs (at most 100) with their tag. */
  failures: FrontierFailure[];
  elapsedMs: number;
}

export interface CrawlDeps {
  pages: PagesService;
  fetcher: Fetcher;
  repo: CrawlRepo;
  clock: Clock;
  logger: Logger;
  /** Obey robots.txt (the operator's `TRAWL_ROBOTS`). */
  robots: boolean;
}

export interface CrawlService {
  /** Runs (or resumes) a crawl to its end, its limit or a stop signal. Throws `INVALID_URLS`, `NOT_FOUND`. */
  run(scope: CrawlScope, options: CrawlRunOptions): Promise<CrawlSummary>;
}

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

  const openJob = (seeds: string[], scope: CrawlScope, mode: CrawlRunOptions['mode']) => {
    const id = jobIdOf(seeds, scope);
    const existing = deps.repo.getJob(id);
    if (mode !== 'restart' && existing?.state === 'active') return { job: existing, resumed: true };
    if (mode === 'resume') {
      throw new ServiceError('NOT_FOUND', 'No unfinished crawl of these URLs with these options to resume.');
    }
    for (const other of deps.repo.activeJobsForSeeds(seeds)) {
      if (other.id === id) continue;
      deps.logger.warn(
        { jobId: other.id, scope: other.scope },
        'an unfinished crawl of these URLs with other options exists; run with those options to resume it',
      );
    }
    const job = deps.repo.createJob({ id, seeds, scope: scopeKey(scope) }, now());
    deps.repo.enqueue(
      id,
      seeds.map((url) => ({ url, depth: 0 })),
      now(),
    );
    return { job, resumed: false };
  };

  return {
    async run(scope, options) {
      const started = performance.now();
      const seeds = normalizeSeeds(scope.seeds);
      const { job, resumed } = openJob(seeds, scope, options.mode);
      const crawl = new CrawlRun(deps, job, { ...scope, seeds }, options);
      const sitemapUrls = await crawl.discover();
      const interrupted = await crawl.drain();
      const counts = deps.repo.counts(job.id);
      const attempted = counts.done + counts.failed;
      const status = interrupted && counts.queued > 0 ? 'interrupted' : counts.queued > 0 ? 'limit' : 'finished';
      if (counts.queued === 0) deps.repo.updateJob(job.id, { state: 'finished', sitemapsDone: true }, now());
      deps.logger.debug({ jobId: job.id, status, attempted }, 'crawl run ended');
      return {
        jobId: job.id,
        status,
        resumed,
        seeds,
        ...counts,
        attemptedThisRun: crawl.attempted,
        sitemapUrls,
        failedByTag: deps.repo.failuresByTag(job.id),
        failures: deps.repo.failures(job.id, 100),
        elapsedMs: Math.round(performance.now() - started),
      };
    },
  };
}
