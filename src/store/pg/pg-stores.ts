/**
 * The repositories over PostgreSQL (`TRAWL_DATABASE_URL`): the same `Stores` as SQLite's, and what only
 * a shared database has, the documents every replica writes and the log each one follows into its own
 * search index (src/core/search/document-follower.ts).
 */
import type { DocumentsRepo } from '../documents.repo.js';
import type { Stores } from '../stores.js';
import { createPgAccountsRepo } from './accounts.pg.js';
import { createPgAgentRunsRepo } from './agent-runs.pg.js';
import { createPgApiKeysRepo } from './api-keys.pg.js';
import { createPgCrawlRepo } from './crawl.pg.js';
import { createPgDocumentLog, type DocumentLog } from './document-log.pg.js';
import { createPgDocumentsRepo } from './documents.pg.js';
import { createPgMcpSnapshotsRepo, createPgMcpTasksRepo } from './mcp.pg.js';
import { createPgMonitorsRepo } from './monitors.pg.js';
import type { PgStore } from './pg-store.js';
import { createPgRateBucketsRepo } from './rate-buckets.pg.js';

/** The shared store of a replica: the repositories, the documents and their log. */
export interface SharedStore {
  pg: PgStore;
  stores: Stores;
  /** The documents, as every replica writes them (the source of truth of each replica's index). */
  documents: DocumentsRepo;
  /** The documents' writes in order, for a replica's follower; its listening connection closes with it. */
  documentLog: DocumentLog;
  close(): Promise<void>;
}

/** The repositories over `pg` (opened and migrated by `openPgStore`); `close` ends the log's connection and the pool. */
export function createSharedStore(pg: PgStore): SharedStore {
  const { pool } = pg;
  const documentLog = createPgDocumentLog(pool);
  return {
    pg,
    stores: {
      backend: 'postgres',
      apiKeys: createPgApiKeysRepo(pool),
      accounts: createPgAccountsRepo(pool),
      rateBuckets: createPgRateBucketsRepo(pool),
      monitors: createPgMonitorsRepo(pool),
      agentRuns: createPgAgentRunsRepo(pool),
      mcpTasks: createPgMcpTasksRepo(pool),
      mcpSnapshots: createPgMcpSnapshotsRepo(pool),
      crawl: createPgCrawlRepo(pool),
    },
    documents: createPgDocumentsRepo(pool),
    documentLog,
    async close() {
      await documentLog.close();
      await pg.close();
    },
  };
}
