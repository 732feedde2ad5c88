/**
 * The contract of the crawl store: crawl jobs and their frontier (every URL a crawl has found, with its
 * depth and state), kept by sqlite/crawl.ts and pg/crawl.ts so an interrupted crawl resumes. A crawl is a
 * kind of job: one process at a time walks it, under a lease (LEASED.crawlJobs, src/core/jobs/README.md).
 */
import type { ClaimRule, LeaseGrant, ReleaseRule, TableLeases } from './leases.js';

/** A crawl job: its seeds and scope, and whether it is still active. */
export interface CrawlJob {
  /** Derived from the normalised seeds and scope: the same command finds the same job. */
  id: string;
  seeds: string[];
  /** The options that define which URLs belong to the crawl (depth, patterns, sitemaps). */
  scope: Record<string, unknown>;
  state: 'active' | 'finished';
  /** Whether sitemap discovery has run (it runs once per job, not again on resume). */
  sitemapsDone: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A queued frontier entry leased for a visit. */
export interface FrontierEntry {
  id: number;
  url: string;
  depth: number;
}

/** A URL to queue, with its link depth. */
export interface NewEntry {
  url: string;
  depth: number;
}

/** How many entries of a job are queued, done and failed. */
export interface FrontierCounts {
  queued: number;
  done: number;
  failed: number;
}

/** What completing an entry changed besides the entry itself: new queued links, alias rows now done. */
export interface CompleteChange {
  added: number;
  aliasesQueuedToDone: number;
  aliasesInserted: number;
}

/** A failed entry with its crawl tag and message. */
export interface FrontierFailure {
  url: string;
  tag: string;
  error: string | null;
  httpStatusCode: number | null;
}

/** Crawl jobs and their frontier. Every method resolves once its statements ran; each is atomic. */
export interface CrawlRepo {
  getJob(id: string): Promise<CrawlJob | undefined>;
  /** Active jobs over exactly these (normalised, sorted) seeds, newest first, whatever their scope. */
  activeJobsForSeeds(seeds: readonly string[]): Promise<CrawlJob[]>;
  /**
   * Creates the job with its seeds queued at depth 0, unleased, replacing (with its frontier) any job of
   * the same id no process holds but `owner`; a job another process holds meanwhile is left as it is.
   */
  createJob(job: NewJob, now: string, owner?: string): Promise<CrawlJob>;
  /** Leases job `id` for walking (CRAWL_WALK): the job, or undefined while another process holds it. */
  claim(id: string, grant: LeaseGrant): Promise<CrawlJob | undefined>;
  /** Extends `owner`'s lease of an active job; false once the job finished or another process took it over. */
  renewLease(id: string, owner: string, untilMs: number): Promise<boolean>;
  /** Lets job `id` go (CRAWL_RELEASE): `owner`'s, or anyone's lapsed before `nowMs`; false when neither. */
  release(id: string, owner: string, nowMs: number): Promise<boolean>;
  /** Who holds job `id` and until when (nulls: no one); undefined for an unknown job. */
  leaseOf(id: string): Promise<CrawlLease | undefined>;
  updateJob(id: string, change: { state: CrawlJob['state']; sitemapsDone: boolean }, now: string): Promise<void>;
  /** Adds URLs not yet in the job's frontier (in one transaction); resolves to how many were new. */
  enqueue(jobId: string, entries: readonly NewEntry[], now: string): Promise<number>;
  /** Up to `n` queued entries in breadth-first order (depth, then discovery), skipping those in `leased`. */
  next(jobId: string, n: number, leased: ReadonlySet<number>): Promise<FrontierEntry[]>;
  /**
   * Marks an entry done, marks `aliases` (the URL it redirected to) done too, and queues the links it
   * found, all in one transaction: a crash never keeps a done page without its links.
   */
  complete(
    jobId: string,
    entryId: number,
    aliases: readonly NewEntry[],
    found: readonly NewEntry[],
    now: string,
  ): Promise<CompleteChange>;
  /** Marks an entry failed with its crawl tag. */
  fail(
    entryId: number,
    failure: { tag: string; message: string; httpStatusCode: number | null },
    now: string,
  ): Promise<void>;
  counts(jobId: string): Promise<FrontierCounts>;
  failuresByTag(jobId: string): Promise<Record<string, number>>;
  /** The first `limit` failed entries, in discovery order. */
  failures(jobId: string, limit: number): Promise<FrontierFailure[]>;
}

/** A job to create: its id, normalised seeds (queued at depth 0) and scope. */
export interface NewJob {
  id: string;
  seeds: string[];
  scope: Record<string, unknown>;
}

/** The lease of a crawl job: its holder and until when, both null when no process walks it. */
export interface CrawlLease {
  owner: string | null;
  untilMs: number | null;
}

/** A row of `crawl_jobs` (both backends store the same columns). */
export interface JobRow {
  id: string;
  seeds: string;
  scope: string;
  state: 'active' | 'finished';
  sitemaps_done: number;
  created_at: string;
  updated_at: string;
  owner: string | null;
  lease_until_ms: number | null;
}

/** The job of a row. */
export const toJob = (row: JobRow): CrawlJob => ({
  id: row.id,
  seeds: JSON.parse(row.seeds) as string[],
  scope: JSON.parse(row.scope) as Record<string, unknown>,
  state: row.state,
  sitemapsDone: row.sitemaps_done === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The lease of a row. */
export const toLease = (row: Pick<JobRow, 'owner' | 'lease_until_ms'>): CrawlLease => ({
  owner: row.owner,
  untilMs: row.lease_until_ms,
});

/** Any job, active or finished: a finished one is taken to be made afresh (`--restart`, or run again). */
const ANY_STATE = "state IN ('active', 'finished')";

/** Walking a crawl: a job no process holds (never leased, lapsed, or its holder gone) is leased. */
const CRAWL_WALK: ClaimRule = { from: ANY_STATE, free: true };

/** The end of a walk: the holder lets the job go, whether it finished or not. */
const CRAWL_RELEASE: ReleaseRule = { from: ANY_STATE };

/** A crawl repository's lease methods over the leases of its table (LEASED.crawlJobs), alike on both backends. */
export function crawlLeases(leases: TableLeases<JobRow>): Pick<CrawlRepo, 'claim' | 'renewLease' | 'release'> {
  const claim = leases.claim(CRAWL_WALK);
  const release = leases.release(CRAWL_RELEASE);
  return {
    async claim(id, grant) {
      const row = await claim(id, grant);
      return row ? toJob(row) : undefined;
    },
    renewLease: (id, owner, untilMs) => leases.renew(id, owner, untilMs),
    release: (id, owner, nowMs) => release(id, { owner, nowMs }),
  };
}
