/**
 * The crawl's types, shared by the service (crawl.service.ts) and one run of it (crawl-run.ts): the
 * scope of a job, the options of a run, its progress and summary, and the `CrawlService` contract.
 */
import type { Fetcher } from '../../fetch/types.js';
import type { Logger } from '../../lib/logger.js';
import type { CrawlRepo, FrontierCounts, FrontierFailure } from '../../store/contracts/crawl.js';
import type { Clock } from '../context.js';
import type { PagesService } from '../contents/pages.service.js';

/**
 * The bounds and defaults of a crawl's numbers, for every door that starts one (`trawl crawl`'s flags,
 * the console's crawls): link depth, page limit, concurrency, pages at once per host, delay between a
 * host's pages and a page's time-out (ms).
 */
export const CRAWL_BOUNDS = {
  depth: { min: 0, max: 100, default: 3 },
  limit: { min: 1, max: 10_000_000, default: 1000 },
  concurrency: { min: 1, max: 256, default: 8 },
  perHost: { min: 1, max: 64, default: 2 },
  delay: { min: 0, max: 60_000, default: 250 },
  timeout: { min: 1, max: 90_000, default: 10_000 },
} as const;

/** What belongs to a crawl; the same scope over the same seeds is the same job (and resumes). */
export interface CrawlScope {
  seeds: string[];
  /** Link hops from a seed: 0 fetches the seeds only; sitemap URLs count as depth 1. */
  depth: number;
  include: string[];
  exclude: string[];
  sitemaps: boolean;
}

/** How one run goes: its budget, concurrency, politeness, resume mode and signals. */
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

/** What a run reports after each page. */
export interface CrawlProgress {
  jobId: string;
  done: number;
  failed: number;
  queued: number;
  inFlight: number;
  /** Pages attempted by this run (not counting earlier runs of a resumed job). */
  attemptedThisRun: number;
}

/** How a run ended, with the job's counts and first failures. */
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

/** What the crawl service is built from. */
export interface CrawlDeps {
  pages: PagesService;
  fetcher: Fetcher;
  repo: CrawlRepo;
  clock: Clock;
  logger: Logger;
  /** Obey robots.txt (the operator's `TRAWL_ROBOTS`). */
  robots: boolean;
  /** How long the lease of a crawl being walked lasts without renewal (TRAWL_LEASE_MS). */
  leaseMs: number;
}

/** Crawls: breadth-first, resumable, through the pages service. */
export interface CrawlService {
  /**
   * Runs (or resumes) a crawl to its end, its limit or a stop signal, holding its lease meanwhile.
   * Throws `INVALID_URLS`, `NOT_FOUND`, and `SERVICE_UNAVAILABLE` while another process walks the crawl.
   */
  run(scope: CrawlScope, options: CrawlRunOptions): Promise<CrawlSummary>;
  /** The crawl `scope` makes (the job a run of it walks): its id; INVALID_URLS for a bad seed. */
  jobIdOf(scope: CrawlScope): string;
  /**
   * What a crawl's frontier holds now: its counts, failures by tag, the first `failures` failed URLs and
   * the next `queued` URLs to visit (breadth-first); undefined for an unknown crawl.
   */
  frontier(jobId: string, limits: { failures: number; queued: number }): Promise<CrawlFrontier | undefined>;
}

/** A crawl's frontier as it stands (`CrawlService.frontier`). */
export interface CrawlFrontier {
  counts: FrontierCounts;
  failuresByTag: Record<string, number>;
  failures: FrontierFailure[];
  queued: { url: string; depth: number }[];
}
