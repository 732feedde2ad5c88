/**
 * The repositories over PostgreSQL (`TRAWL_DATABASE_URL`): the same `Stores` as SQLite's, and what only
 * a shared database has: the documents and code every replica writes, and the logs each one follows
 * into its own indexes (core/replica/document-follower.ts, core/replica/code-follower.ts), the caches,
 * embeddings stored once, and the replicas' heartbeats.
 */
import type { CacheStore } from '../contracts/cache.js';
import type { CodeFilesRepo } from '../contracts/code-files.js';
import type { Stores } from '../contracts/stores.js';
import type { CodeLog } from '../contracts/code-log.js';
import type { ReplicasRepo } from '../contracts/replicas.js';
import type { StatusRepo } from '../contracts/status.js';
import type { DocumentLog } from '../contracts/document-log.js';
import type { PgDocumentsRepo } from '../contracts/documents.js';

import type { SharedEmbeddings } from '../contracts/embeddings.js';

import { createPgAccountsRepo } from './accounts.js';
import { createPgAuditRepo } from './audit.js';
import { createPgAgentRunsRepo } from './agent-runs.js';
import { createPgCacheStore } from './cache.js';
import { createPgCodeFilesRepo } from './code-files.js';
import { createPgCodeLog } from './code-log.js';
import { createPgReplicasRepo } from './replicas.js';
import { createPgStatusRepo } from './status.js';
import { createPgQueuesRepo } from './queues.js';

import { redactUrl } from '../../lib/redact.js';
import { createPgSharedEmbeddings } from './embeddings.js';
import { createPgApiKeysRepo } from './api-keys.js';
import { createPgCrawlRepo } from './crawl.js';
import { createPgConsoleSessionsRepo } from './console-sessions.js';
import { createPgOAuthRepo } from './oauth.js';
import { createPgOperatorJobsRepo } from './operator-jobs.js';
import { createPgSealedValuesRepo } from './sealed-values.js';
import { createPgDocumentLog } from './document-log.js';
import { createPgDocumentsRepo } from './documents.js';
import { createPgMcpSnapshotsRepo, createPgMcpTasksRepo } from './mcp.js';
import { createPgMonitorsRepo } from './monitors.js';
import { createPgRetentionRepo } from './retention.js';
import type { PgStore } from './database.js';
import { createPgRateBucketsRepo } from './rate-buckets.js';

/** The shared store of a replica: the repositories, the documents and their log. */
export interface SharedStore {
  pg: PgStore;
  stores: Stores;
  /** The documents, as every replica writes them (the source of truth of each replica's index). */
  documents: PgDocumentsRepo;
  /** The documents' writes in order, for a replica's follower; its listening connection closes with it. */
  documentLog: DocumentLog;
  /** The code index's sources, files and chunks (the source of truth of each replica's code index). */
  codeFiles: CodeFilesRepo;
  /** Their changes in order, for a replica's code follower; its listening connection closes with it. */
  codeLog: CodeLog;
  /** The replicas' heartbeats, for the status report. */
  replicas: ReplicasRepo;
  /** The caches (pages, provider answers): a page one replica fetched is a cache hit on every other. */
  cache: CacheStore;
  /** Embeddings stored once, so no replica pays a provider for a text another has embedded. */
  embeddings: SharedEmbeddings;
  /** The status report's counts and facts: the shared store's, beside `local` (this machine's copy). */
  status(local: StatusRepo): StatusRepo;
  /** Ends the log's connection and the pool (the app closes its cache first). */
  close(): Promise<void>;
}

/** The repositories over `pg` (opened and migrated by `openPgStore`). */
export function createSharedStore(pg: PgStore): SharedStore {
  const { pool } = pg;
  const documentLog = createPgDocumentLog(pool);
  const codeLog = createPgCodeLog(pool);
  return {
    pg,
    stores: {
      backend: 'postgres',
      apiKeys: createPgApiKeysRepo(pool),
      accounts: createPgAccountsRepo(pool),
      audit: createPgAuditRepo(pool),
      rateBuckets: createPgRateBucketsRepo(pool),
      monitors: createPgMonitorsRepo(pool),
      agentRuns: createPgAgentRunsRepo(pool),
      retention: createPgRetentionRepo(pool),
      mcpTasks: createPgMcpTasksRepo(pool),
      mcpSnapshots: createPgMcpSnapshotsRepo(pool),
      crawl: createPgCrawlRepo(pool),
      oauth: createPgOAuthRepo(pool),
      sealed: createPgSealedValuesRepo(pool),
      consoleSessions: createPgConsoleSessionsRepo(pool),
      operatorJobs: createPgOperatorJobsRepo(pool),
      queues: createPgQueuesRepo(pool),
    },
    documents: createPgDocumentsRepo(pool),
    documentLog,
    codeFiles: createPgCodeFilesRepo(pool),
    codeLog,
    replicas: createPgReplicasRepo(pool),
    status: (local) =>
      createPgStatusRepo(pool, { url: redactUrl(pool.options.connectionString ?? ''), schema: pg.schema }, local),
    cache: createPgCacheStore(pool),
    embeddings: createPgSharedEmbeddings(pool),
    async close() {
      await documentLog.close();
      await codeLog.close();
      await pg.close();
    },
  };
}
