/**
 * Crawls as a kind of job: the process that walks a crawl's frontier holds the job's lease
 * (src/core/jobs/README.md), renewed every leaseMs / 3 while it walks and released at the end, so two
 * `trawl crawl` processes on one store, or two replicas, never walk one crawl. A lease that lapsed (its
 * process died), or whose holder is a process of this host that no longer runs (a killed command), is
 * free: the same command resumes the crawl.
 */
import { ServiceError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import type { CrawlJob, CrawlRepo } from '../../store/contracts/crawl.js';
import { createLeaseEngine, holderGone, type Held } from '../jobs/lease-engine.js';

/** The crawls this process walks. */
export interface CrawlWalks {
  /** This process as the holder of the crawls it walks. */
  readonly owner: string;
  /** Leases job `id` for this process; throws SERVICE_UNAVAILABLE naming the crawl while another process walks it. */
  take(id: string): Promise<CrawlJob>;
  /** Holds a taken job while it is walked: its signal aborts when another process took it over. */
  hold(id: string): Held;
  /** Lets a job go: no more renewals, its lease cleared (a store error is logged: the lease then lapses). */
  release(id: string, held?: Held): Promise<void>;
}

export function createCrawlWalks(deps: {
  repo: CrawlRepo;
  now: () => number;
  leaseMs: number;
  logger: Logger;
}): CrawlWalks {
  const { repo, now, leaseMs, logger } = deps;
  const leases = createLeaseEngine({
    store: { renew: (id, owner, untilMs) => repo.renewLease(id, owner, untilMs) },
    now,
    leaseMs,
    lostReason: 'another process took this crawl over (its lease here lapsed)',
    onCheckError: (err, id) => logger.warn({ err, jobId: id }, 'could not renew the crawl’s lease'),
  });
  const grant = () => ({ owner: leases.owner, untilMs: leases.leaseUntil(), nowMs: now() });

  const busy = (id: string, owner: string | null, untilMs: number | null) =>
    new ServiceError(
      'SERVICE_UNAVAILABLE',
      `Another process is walking crawl ${id}${owner ? ` (${owner})` : ''}: let it finish, or stop it, then run the ` +
        `command again.${untilMs ? ` If that process died, its lease lapses at ${new Date(untilMs).toISOString()}.` : ''}`,
    );

  return {
    owner: leases.owner,
    async take(id) {
      const job = await repo.claim(id, grant());
      if (job) return job;
      const lease = await repo.leaseOf(id);
      const gone = lease?.owner && holderGone(lease.owner) ? lease.owner : undefined;
      const taken = gone ? await repo.claim(id, { ...grant(), gone }) : undefined;
      if (taken) logger.warn({ jobId: id, holder: gone }, 'the process that walked this crawl is gone: resuming it');
      if (taken) return taken;
      throw busy(id, lease?.owner ?? null, lease?.untilMs ?? null);
    },
    hold: (id) => leases.hold(id),
    async release(id, held) {
      held?.release();
      leases.settle();
      try {
        await repo.release(id, leases.owner, now());
      } catch (err) {
        logger.warn({ err, jobId: id }, 'could not release the crawl’s lease: it lapses');
      }
    },
  };
}
