/**
 * The durable repositories of one process, whichever backend the operator chose: services and doors
 * take them from here and never ask which one they run on (SQLite: sqlite/stores.ts; PostgreSQL:
 * pg/stores.ts). Each repository's contract is tested on both (test/contract/).
 */
import type { AccountsRepo } from './accounts.js';
import type { AgentRunsRepo } from './agent-runs.js';
import type { ApiKeysRepo } from './api-keys.js';
import type { AuditRepo } from './audit.js';
import type { ConsoleSessionsRepo } from './console-sessions.js';
import type { CrawlRepo } from './crawl.js';
import type { McpSnapshotsRepo } from './mcp-snapshots.js';
import type { McpTasksRepo } from './mcp-tasks.js';
import type { MonitorsRepo } from './monitors.js';
import type { OAuthRepo } from './oauth.js';
import type { OperatorJobsRepo } from './operator-jobs.js';
import type { QueuesRepo } from './queues.js';
import type { SealedValuesRepo } from './sealed-values.js';
import type { RateBucketsRepo } from './rate-buckets.js';
import type { RetentionRepo } from './retention.js';

export interface Stores {
  /** Which engine holds them: `sqlite` (this machine's data directory) or `postgres` (shared). */
  backend: 'sqlite' | 'postgres';
  apiKeys: ApiKeysRepo;
  /** Teams, spend, holds and usage. */
  accounts: AccountsRepo;
  /** Changes made to teams' accounts, by whom (written by the accounts and keys repositories). */
  audit: AuditRepo;
  rateBuckets: RateBucketsRepo;
  /** Monitors, their runs and the webhook outbox. */
  monitors: MonitorsRepo;
  agentRuns: AgentRunsRepo;
  mcpTasks: McpTasksRepo;
  mcpSnapshots: McpSnapshotsRepo;
  /** Crawl jobs and their frontiers. */
  crawl: CrawlRepo;
  /** The state of Trawl's own OAuth authorization server and the sealed secrets replicas share. */
  oauth: OAuthRepo;
  /** Every value sealed with the operator key, for re-sealing after a rotation. */
  sealed: SealedValuesRepo;
  /** The web console's sign-in sessions (the door's, src/http/console/). */
  consoleSessions: ConsoleSessionsRepo;
  /** The crawls, imports and code indexes operators started from the console. */
  operatorJobs: OperatorJobsRepo;
  /** The queues' depths and oldest items, for the metrics (read at scrape time). */
  queues: QueuesRepo;
  /** What retention prunes, kind by kind, and the lease of its sweep. */
  retention: RetentionRepo;
}
