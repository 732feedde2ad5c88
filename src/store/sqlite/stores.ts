/**
 * The durable repositories of one process, on the backend the operator chose: embedded SQLite in the
 * data directory (the default), or PostgreSQL shared by every replica (`TRAWL_DATABASE_URL`,
 * src/store/pg/pg-stores.ts). Services and doors take their repositories from here and never ask which
 * backend they run on; each repository's contract is tested on both (test/contract/).
 */
import type { AccountsRepo } from './accounts.js';
import { createAccountsRepo } from './accounts.js';
import type { AgentRunsRepo } from './agent-runs.js';
import { createAgentRunsRepo } from './agent-runs.js';
import type { ApiKeysRepo } from './api-keys.js';
import { createApiKeysRepo } from './api-keys.js';
import type { AuditRepo } from './audit.js';
import { createAuditRepo } from './audit.js';
import type { CrawlRepo } from './crawl.js';
import { createCrawlRepo } from './crawl.js';
import type { Db } from './database.js';
import type { McpSnapshotsRepo } from './mcp-snapshots.js';
import { createMcpSnapshotsRepo } from './mcp-snapshots.js';
import type { McpTasksRepo } from './mcp-tasks.js';
import { createMcpTasksRepo } from './mcp-tasks.js';
import type { MonitorsRepo } from '../contracts/monitors.js';
import { createMonitorsRepo } from './monitors.js';
import type { RateBucketsRepo } from './rate-buckets.js';
import { createRateBucketsRepo } from './rate-buckets.js';

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
}

/** The repositories over the data directory's SQLite database. */
export function sqliteStores(db: Db): Stores {
  return {
    backend: 'sqlite',
    apiKeys: createApiKeysRepo(db),
    accounts: createAccountsRepo(db),
    audit: createAuditRepo(db),
    rateBuckets: createRateBucketsRepo(db),
    monitors: createMonitorsRepo(db),
    agentRuns: createAgentRunsRepo(db),
    mcpTasks: createMcpTasksRepo(db),
    mcpSnapshots: createMcpSnapshotsRepo(db),
    crawl: createCrawlRepo(db),
  };
}
