import { createAccountsRepo } from './accounts.js';

import { createAgentRunsRepo } from './agent-runs.js';

import { createApiKeysRepo } from './api-keys.js';

import { createAuditRepo } from './audit.js';

import { createConsoleSessionsRepo } from './console-sessions.js';
import { createCrawlRepo } from './crawl.js';
import type { Db } from './database.js';

import { createMcpSnapshotsRepo } from './mcp-snapshots.js';

import { createMcpTasksRepo } from './mcp-tasks.js';
import { createMonitorsRepo } from './monitors.js';
import { createRetentionRepo } from './retention.js';
import { createOAuthRepo } from './oauth.js';
import { createOperatorJobsRepo } from './operator-jobs.js';
import { createQueuesRepo } from './queues.js';
import { createSealedValuesRepo } from './sealed-values.js';

import { createRateBucketsRepo } from './rate-buckets.js';
import type { Stores } from '../contracts/stores.js';

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
    retention: createRetentionRepo(db),
    mcpTasks: createMcpTasksRepo(db),
    mcpSnapshots: createMcpSnapshotsRepo(db),
    crawl: createCrawlRepo(db),
    oauth: createOAuthRepo(db),
    sealed: createSealedValuesRepo(db),
    consoleSessions: createConsoleSessionsRepo(db),
    operatorJobs: createOperatorJobsRepo(db),
    queues: createQueuesRepo(db),
  };
}
