/**
 * The contract of the queues' gauges (the metrics read them at scrape time: src/observe/metrics/): how
 * many items wait in each queue of work and since when the oldest has, with one cheap COUNT/MIN per
 * queue over the open rows' partial indexes (SQLite: sqlite/queues.ts; PostgreSQL: pg/queues.ts).
 */
import { LEASED } from './leases.js';

/**
 * The queues, each as the rows of one table that are still to be worked (the lease table's open
 * condition where it has one) and the column saying since when. Plain SQL both dialects read alike.
 */
export const QUEUES = {
  /** Webhook deliveries not yet delivered (nor given up), retries included. */
  webhook_outbox: { table: 'webhook_deliveries', open: LEASED.deliveries.open, since: 'created_at' },
  /** Agent runs queued or running. */
  agent_runs: { table: 'agent_runs', open: LEASED.agentRuns.open, since: 'created_at' },
  /** Monitor runs pending or running. */
  monitor_runs: { table: 'monitor_runs', open: LEASED.monitorRuns.open, since: 'created_at' },
  /** MCP tasks working or waiting for input. */
  mcp_tasks: { table: 'mcp_tasks', open: LEASED.mcpTasks.open, since: 'created_at' },
  /** URLs queued in the frontiers of active crawls. */
  crawl_frontier: {
    table: 'crawl_frontier',
    open: "state = 'queued' AND job_id IN (SELECT id FROM crawl_jobs WHERE state = 'active')",
    since: 'updated_at',
  },
} as const;

export type QueueName = keyof typeof QUEUES;

/** One queue at one moment: its depth and when its oldest open item was made (ISO; null when empty). */
export interface QueueGauge {
  queue: QueueName;
  depth: number;
  oldestAt: string | null;
}

/** The statement of one queue: its depth and oldest time, as columns `depth` and `oldest`. */
export const queueSql = (name: QueueName): string => {
  const q = QUEUES[name];
  return `SELECT COUNT(*) AS depth, MIN(${q.since}) AS oldest FROM ${q.table} WHERE ${q.open}`;
};

export interface QueuesRepo {
  /** Every queue's depth and oldest item, read in one go. */
  read(): Promise<QueueGauge[]>;
  /** Sources in the code index (folders, repositories, packages): what the store holds. */
  codeSources(): Promise<number>;
}
