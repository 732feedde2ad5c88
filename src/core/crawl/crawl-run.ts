/**
 * One run of a crawl job: sitemap discovery (once per job), then the breadth-first drain of the frontier
 * with bounded concurrency, recording each page's outcome and the links it found.
 */
import { FetchError } from '../../fetch/types.js';
import type { CrawlJob, FrontierCounts, FrontierEntry, NewEntry } from '../../store/contracts/crawl.js';
import type { Page } from '../contents/page.js';
import { normalizeUrl, siteOf } from '../contents/url.js';
import type { CrawlDeps, CrawlRunOptions, CrawlScope } from './crawl.types.js';
import { createUrlFilter } from './patterns.js';
import { discoverSitemapUrls } from './sitemaps.js';

/** Links to files no crawl wants (images, media, archives, fonts, scripts) are never queued. */
const BINARY =
  /\.(png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4a|wav|ogg|webm|avi|mov|mkv|zip|gz|tgz|bz2|xz|7z|rar|tar|dmg|exe|msi|deb|rpm|apk|iso|woff2?|ttf|otf|eot|css|m?js)$/i;

/** One run over a job's frontier: sitemap discovery once per job, then the breadth-first drain. */
export class CrawlRun {
  attempted = 0;
  private readonly sites: Set<string>;
  private readonly allowed: (url: string) => boolean;
  private readonly leased = new Set<number>();

  /** A run of `job` starting from the frontier's counts as stored. */
  static async start(deps: CrawlDeps, job: CrawlJob, scope: CrawlScope, options: CrawlRunOptions): Promise<CrawlRun> {
    return new CrawlRun(deps, job, scope, options, await deps.repo.counts(job.id));
  }

  private constructor(
    private readonly deps: CrawlDeps,
    private readonly job: CrawlJob,
    private readonly scope: CrawlScope,
    private readonly options: CrawlRunOptions,
    private readonly counts: FrontierCounts,
  ) {
    this.sites = new Set(scope.seeds.map(siteOf));
    this.allowed = createUrlFilter(scope.include, scope.exclude);
  }

  private now = () => this.deps.clock.now().toISOString();
  private get politeness() {
    return { perHostConcurrency: this.options.perHost, delayMs: this.options.delayMs };
  }

  /** A URL the crawl may queue: same site as a seed, not a binary file, allowed by the patterns. */
  private follow(href: string): string | undefined {
    const url = normalizeUrl(href);
    if (!url) return undefined;
    const parsed = new URL(url);
    if (!this.sites.has(siteOf(url)) || BINARY.test(parsed.pathname)) return undefined;
    return this.allowed(url) ? url : undefined;
  }

  /** Queues the sitemaps' URLs at depth 1 (once per job); returns how many the sitemaps listed. */
  async discover(): Promise<number> {
    const { job, scope, options, deps } = this;
    if (!scope.sitemaps || job.sitemapsDone || scope.depth < 1) return 0;
    const signals = [options.stop, options.abort].filter((s): s is AbortSignal => s !== undefined);
    let found: { urls: string[] };
    try {
      found = await discoverSitemapUrls(deps.fetcher, scope.seeds, {
        timeoutMs: options.timeoutMs,
        robots: deps.robots,
        politeness: this.politeness,
        signal: signals.length ? AbortSignal.any(signals) : undefined,
        logger: deps.logger,
      });
    } catch (err) {
      if (signals.some((s) => s.aborted)) return 0; // stopped while discovering: discover again on resume
      throw err;
    }
    const entries: NewEntry[] = [];
    for (const loc of found.urls) {
      const url = this.follow(loc);
      if (url) entries.push({ url, depth: 1 });
    }
    this.counts.queued += await deps.repo.enqueue(job.id, entries, this.now());
    await deps.repo.updateJob(job.id, { state: 'active', sitemapsDone: true }, this.now());
    deps.logger.debug({ listed: found.urls.length, queued: entries.length }, 'sitemaps read');
    return found.urls.length;
  }

  /** Works through the frontier until it is empty, the limit is reached or a signal stops it. */
  async drain(): Promise<boolean> {
    const { options, deps, job } = this;
    const budget = Math.max(0, options.limit - (this.counts.done + this.counts.failed));
    const inflight = new Set<Promise<void>>();
    const stopped = () => options.stop?.aborted === true || options.abort?.aborted === true;
    this.report();
    for (;;) {
      const free = Math.min(options.concurrency - inflight.size, budget - this.attempted);
      if (!stopped() && free > 0) {
        // only this loop leases entries, so none of these can be taken by another visit meanwhile
        for (const entry of await deps.repo.next(job.id, free, this.leased)) {
          this.leased.add(entry.id);
          this.attempted++;
          const visit: Promise<void> = this.visit(entry).finally(() => {
            this.leased.delete(entry.id);
            inflight.delete(visit);
            this.report();
          });
          inflight.add(visit);
        }
      }
      if (inflight.size === 0) break;
      await Promise.race(inflight);
    }
    return stopped();
  }

  private report(): void {
    this.options.onProgress?.({
      jobId: this.job.id,
      ...this.counts,
      inFlight: this.leased.size,
      attemptedThisRun: this.attempted,
    });
  }

  /** Fetches one page and records the outcome; never throws (a failure never stops the crawl). */
  private async visit(entry: FrontierEntry): Promise<void> {
    const { deps, options } = this;
    try {
      const loaded = await deps.pages.fetchLive(entry.url, {
        timeoutMs: options.timeoutMs,
        signal: options.abort,
        politeness: this.politeness,
      });
      await this.complete(entry, loaded.page);
    } catch (err) {
      if (options.abort?.aborted) {
        this.attempted--; // cancelled, not attempted: it stays queued for the next run
        return;
      }
      const failure =
        err instanceof FetchError
          ? { tag: err.tag, message: err.message, httpStatusCode: err.httpStatusCode }
          : {
              tag: 'CRAWL_UNKNOWN_ERROR',
              message: err instanceof Error ? err.message : String(err),
              httpStatusCode: null,
            };
      deps.logger.debug({ url: entry.url, ...failure }, 'page failed');
      await deps.repo.fail(entry.id, failure, this.now());
      this.counts.queued--;
      this.counts.failed++;
    }
  }

  private async complete(entry: FrontierEntry, page: Page): Promise<void> {
    const found: NewEntry[] = [];
    if (entry.depth < this.scope.depth) {
      for (const link of page.links) {
        const url = this.follow(link.url);
        if (url) found.push({ url, depth: entry.depth + 1 });
      }
    }
    const final = normalizeUrl(page.url);
    const aliases =
      final && final !== entry.url && this.sites.has(siteOf(final)) ? [{ url: final, depth: entry.depth }] : [];
    const change = await this.deps.repo.complete(this.job.id, entry.id, aliases, found, this.now());
    this.counts.queued += change.added - 1 - change.aliasesQueuedToDone;
    this.counts.done += 1 + change.aliasesQueuedToDone + change.aliasesInserted;
  }
}
