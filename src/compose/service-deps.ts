/**
 * What the composition root hands `createServices` (./services.ts): the store, the fetcher, the
 * providers, and the core's settings already resolved from the config (their defaults are the SETTINGS
 * table's, src/config/settings/; nothing below repeats one).
 */
import type { Fetcher } from '../fetch/types.js';
import type { WebhookSender } from '../fetch/webhook-sender.js';
import type { Logger } from '../lib/logger.js';
import type { Embedder } from '../providers/embeddings.js';
import type { ChatModel } from '../providers/model/types.js';
import type { WebSearchProvider } from '../providers/search/types.js';
import type { Db } from '../store/sqlite/database.js';
import type { SharedEmbeddings } from '../store/contracts/embeddings.js';
import type { IdentityRule } from '../core/accounts/identity.js';
import type { Clock } from '../core/context.js';
import type { Prices } from '../core/pricing.js';
import type { PdfLimits } from '../core/contents/formats/pdf-reader.js';
import type { MonitorsDeps } from '../core/monitors/monitors.service.js';
import type { SecretBox } from '../core/monitors/secret-box.js';
import type { ReplicaDeps } from '../core/replica/replica.js';
import type { StatusDeps } from '../core/status/status.service.js';
import type { ModelPrice } from '../core/synthesis/pricing.js';
import type { Stores } from '../store/contracts/stores.js';
import type { RetentionPolicy } from '../core/retention/retention.service.js';
import type { CacheStore } from '../store/contracts/cache.js';

/** What a replica on PostgreSQL is given (core/replica/replica.ts): the shared parts, and whether it follows. */
export type ReplicaSettings = Pick<ReplicaDeps, 'shared' | 'follow' | 'pollMs'>;

/** Settings the core needs, each resolved once from the config (no defaults below this point). */

export interface CoreSettings {
  robots: boolean;
  fetchConcurrency: number;
  providerTimeoutMs: number;
  /** Requests per second per key unless the key says otherwise; 0: no limit. */
  rateLimitQps: number;
  /** Requests of one key in flight at once, per process; 0: no limit. */
  rateLimitConcurrency: number;
  /** Agent runs of one key running at once unless the key has its own rate (then a fifth of it). */
  agentConcurrency: number;
  /** Memory for decoded posting lists (MB). */
  searchCacheMb: number;
  /** Record usage and enforce credits and budgets. */
  metering: boolean;
  /** The most an agent run may be budgeted (dollars). */
  agentMaxCost: number;
  /** Monitors: runs at once, webhook retries, insecure webhooks, lease and poll. */
  monitors: Omit<MonitorsDeps['settings'], 'deliveryConcurrency'>;
  /** Agent runs: their lease and how often the queue is looked at. */
  agentRuns: { leaseMs: number; pollMs: number };
  /** Reading PDFs: inflate cap, deadline, heap and threads. */
  documents: PdfLimits;
  /** `TRAWL_CODE_MODEL`: a model file, `off`, or unset for the shipped one. */
  codeModel: string | undefined;
  /** How people signed in through an OAuth issuer are mapped to teams (TRAWL_AUTH_TEAM_CLAIM, TRAWL_AUTH_EMAIL_TEAMS). */
  identityRule: IdentityRule;
  /** The console's operator jobs: where uploads are written, and the largest one (TRAWL_IMPORT_MAX_BYTES). */
  operatorJobs: { uploadDir: string; importMaxBytes: number };
  /** Retention: days per kind (null: for ever), the periodic sweep's interval (0: none) and its lease. */
  retention: { policy: RetentionPolicy; intervalMs: number; leaseMs: number };
}

export interface ServiceDeps {
  /** This machine's SQLite database: the whole store by default, a replica's derived copy with PostgreSQL. */
  db: Db;
  /** The durable repositories, on SQLite or PostgreSQL. */
  stores: Stores;
  /** Set on a replica of a PostgreSQL deployment. */
  replica?: ReplicaSettings;
  /** Embeddings shared by the replicas of a PostgreSQL deployment (each text embedded once). */
  sharedEmbeddings?: SharedEmbeddings;
  cache: CacheStore;
  clock: Clock;
  logger: Logger;
  fetcher: Fetcher;
  embedder?: Embedder;
  /** Web-search providers the operator configured (none: the local index answers alone). */
  webSearch: WebSearchProvider[];
  /** The operator's language model (`TRAWL_MODEL_*`), if configured. */
  model?: ChatModel;
  /** How synthesis uses models: the client's first, token prices, answer length. */
  synthesis: { preferClientModel: boolean; price: Partial<ModelPrice>; maxTokens: number };
  /** The price table (TRAWL_PRICES over the defaults of src/core/pricing.ts). */
  prices: Prices;
  /** Seals webhook secrets at rest under the operator key. */
  secretBox: SecretBox;
  /** Threads of the analysis pool (default: the cores less one). */
  analysisThreads?: number;
  /** Posts webhook events (HTTPS and public addresses only, unless the operator allows insecure ones). */
  webhookSender: WebhookSender;
  /** What the status report checks: the settings of the providers and listener, and the JSON client's GET. */
  status: Pick<StatusDeps, 'settings' | 'getJson'>;
  settings: CoreSettings;
}
