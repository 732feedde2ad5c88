/**
 * Migrations after the owners: crawls become a kind of job, held under a lease while a process walks
 * their frontier (src/core/jobs/README.md), so two `trawl crawl` processes, or two replicas, never walk
 * one crawl at once.
 */
import type { Migration, MigrationEntry } from './migration.js';

/** The lease columns of `crawl_jobs`, alike in both dialects but for the integer type. */
const crawlLeases = (version: number, integer: 'INTEGER' | 'BIGINT'): Migration => ({
  version,
  name: 'crawl leases',
  sql: `
      -- a crawl is walked by one process at a time, the holder of its lease (NULL: no process walks it)
      ALTER TABLE crawl_jobs ADD COLUMN owner TEXT;
      ALTER TABLE crawl_jobs ADD COLUMN lease_until_ms ${integer};
    `,
});

export const CRAWL_LEASES: readonly MigrationEntry[] = [
  { id: 'crawl-leases', sqlite: crawlLeases(19, 'INTEGER'), pg: crawlLeases(16, 'BIGINT') },
];
