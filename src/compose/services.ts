/**
 * The core services, built once per app from the store, the fetcher and the providers, and handed to
 * every operation. Later capabilities (search, monitors, agent) add their service here.
 */
import type { Fetcher } from '../fetch/types.js';
import type { Services } from '../core/ports.js';
import type { Logger } from '../lib/logger.js';
import type { Embedder } from '../providers/embeddings.js';
import type { ChatModel } from '../providers/model/types.js';
import type { WebSearchProvider } from '../providers/search/types.js';
import type { CacheStore } from '../store/contracts/cache.js';
import type { Stores } from '../store/contracts/stores.js';
import type { Db } from '../store/sqlite/database.js';
import { createCodeFilesRepo } from '../store/sqlite/code-files.js';
import { createDocumentsRepo } from '../store/sqlite/documents.js';
import type { SharedEmbeddings } from '../store/contracts/embeddings.js';
import { sqliteStores } from '../store/sqlite/stores.js';
import { CODE_VECTORS } from '../store/sqlite/vectors.js';
import { createAccounts } from '../core/accounts/accounts.service.js';
import { createAgentRunsService } from '../core/agent/agent-runs.service.js';
import { createKeysService } from '../core/accounts/keys.service.js';
import { createAuditLog } from '../core/accounts/audit.js';
import { createCodeIndex } from '../core/code/index/code-index.js';
import { createContextService } from '../core/code/context/context.service.js';
import { codeExamples } from '../core/code/index/doc-examples.js';
import { createWritePath } from '../core/documents/write-path.js';
import { createCodeIndexer } from '../core/code/index/indexer.js';
import { createCodeVectors } from '../core/code/index/code-vectors.js';
import { createCodeModelLoader } from '../core/code/model/shipped-model.js';
import { createCrawlService } from '../core/crawl/crawl.service.js';
import { createImportService } from '../core/import/import.service.js';
import { createAdmissionQueue } from '../core/contents/admission.js';
import { createContentsService } from '../core/contents/contents.service.js';
import { createPagesService } from '../core/contents/pages.service.js';
import { createPdfReader, type PdfLimits } from '../core/contents/formats/pdf-reader.js';
import { createMonitorsService, type MonitorsDeps } from '../core/monitors/monitors.service.js';
import { createRunSearch } from '../core/monitors/run-search.js';
import type { SecretBox } from '../core/monitors/secret-box.js';
import type { WebhookSender } from '../fetch/webhook-sender.js';
import type { Clock } from '../core/context.js';
import { createPrices, type Prices } from '../core/pricing.js';
import { createAnalysisPool } from '../core/search/analysis-pool.js';
import { createReplica, type ReplicaDeps } from '../core/replica/replica.js';
import { createSearchIndex } from '../core/search/search-index.js';
import { createSearchService } from '../core/search/search.service.js';
import { createSemanticSearch } from '../core/search/semantic.js';
import { createSimilarService } from '../core/search/similar.service.js';
import { createStatusService, type StatusDeps } from '../core/status/status.service.js';
import { createStatusRepo } from '../store/sqlite/status.js';
import { startSegmentMerger } from '../store/search-index/segment-merger.js';
import type { ModelPrice } from '../core/synthesis/pricing.js';
import { createSynthesis } from '../core/synthesis/synthesis.service.js';

/** What a replica on PostgreSQL is given (core/replica/replica.ts): the shared parts, and whether it follows. */
export type ReplicaSettings = Pick<ReplicaDeps, 'shared' | 'follow' | 'pollMs'>;

export interface ServiceDeps {
  /** This machine's SQLite database: the whole store by default, a replica's derived copy with PostgreSQL. */
  db: Db;
  /** The durable repositories (default: over `db`). */
  stores?: Stores;
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
  webSearch?: WebSearchProvider[];
  /** The operator's language model (`TRAWL_MODEL_*`), if configured. */
  model?: ChatModel;
  /** How synthesis uses models: the client's first, token prices, answer length. */
  synthesis?: { preferClientModel?: boolean; price?: Partial<ModelPrice>; maxTokens?: number };
  /** The price table (TRAWL_PRICES over the defaults of src/core/pricing.ts). */
  prices?: Prices;
  /** Seals webhook secrets at rest under the operator key. */
  secretBox: SecretBox;
  /** Threads of the analysis pool (default: the cores less one). */
  analysisThreads?: number;
  /** Posts webhook events (HTTPS and public addresses only, unless the operator allows insecure ones). */
  webhookSender: WebhookSender;
  /** What the status report checks: the settings of the providers and listener, and the JSON client's GET. */
  status: Pick<StatusDeps, 'settings' | 'getJson'>;
  /** Settings the core needs, read once by config. */
  settings: {
    robots: boolean;
    fetchConcurrency: number;
    providerTimeoutMs?: number;
    /** Requests per second per key unless the key says otherwise; 0: no limit. */
    rateLimitQps: number;
    /** Requests of one key in flight at once, per process; 0: no limit. */
    rateLimitConcurrency: number;
    /** Agent runs of one key running at once unless the key has its own rate (then a fifth of it). */
    agentConcurrency: number;
    /** Memory for decoded posting lists (MB). */
    searchCacheMb?: number;
    /** Record usage and enforce credits and budgets. */
    metering: boolean;
    /** The most an agent run may be budgeted (dollars). */
    agentMaxCost?: number;
    monitors: MonitorsDeps['settings'];
    /** Agent runs: their lease and how often the queue is looked at (defaults 60 s and 5 s). */
    agentRuns?: { leaseMs?: number; pollMs?: number };
    /** Reading PDFs: inflate cap, deadline, heap and threads (default: DEFAULT_PDF_LIMITS). */
    documents?: PdfLimits;
    /** `TRAWL_CODE_MODEL`: a model file, `off`, or unset for the shipped one. */
    codeModel?: string;
  };
}

export function createServices(deps: ServiceDeps): Services {
  const prices = deps.prices ?? createPrices();
  const stores = deps.stores ?? sqliteStores(deps.db);
  const stored = createDocumentsRepo(deps.db);
  // segments are merged by a worker thread with its own connection (a file database; inline in memory)
  const merges = deps.db.memory
    ? undefined
    : startSegmentMerger(deps.db.name, { onError: (error) => deps.logger.error({ error }, 'index merge failed') });
  // a crawl's or an import's batches are analyzed in worker threads while the previous batch is written
  const analysis = createAnalysisPool(deps.analysisThreads);
  const cacheBytes = (deps.settings.searchCacheMb ?? 512) * 2 ** 20;
  const searchIndex = createSearchIndex(deps.db, stored, { merges, analysis, cacheBytes });
  // the code model, loaded at the first code query or write; an embeddings provider ranks code instead
  const codeModelLoader = createCodeModelLoader({ setting: deps.settings.codeModel, logger: deps.logger, provider: Boolean(deps.embedder) }); // prettier-ignore
  const codeVectors = createCodeVectors({
    db: deps.db,
    loader: codeModelLoader,
    chunksOf: (ids) => code.hitsByIds(ids),
    logger: deps.logger,
  });
  const code = createCodeIndex(deps.db, { merges, vectors: codeVectors });
  const localCode = createCodeFilesRepo(deps.db, code);
  // ── documents: the one write path (core/documents/write-path.ts) ──
  // store → search index → code examples on this machine, in one transaction, so a page is searchable
  // and its examples are in the code index as soon as it is stored; on a replica, the shared store and
  // its log in front (a replica that follows its logs applies them here, its own writes included).
  // Every service writes and reads pages through `documents`; readers of a local index hit read `indexed`.
  const replicaSettings = deps.replica;
  const { documents, indexed, replica } = createWritePath({
    db: deps.db,
    stored,
    index: searchIndex,
    examples: codeExamples(code),
    replicate: replicaSettings
      ? (local) => createReplica({ ...replicaSettings, db: deps.db, local: { documents: local, codeFiles: localCode }, logger: deps.logger }) // prettier-ignore
      : undefined,
  });
  // PDFs are read in worker threads with a deadline, a heap limit and an inflate cap
  const pdf = createPdfReader(deps.settings.documents);
  const pages = createPagesService({
    fetcher: deps.fetcher,
    cache: deps.cache,
    documents,
    clock: deps.clock,
    logger: deps.logger,
    robots: deps.settings.robots,
    pdf,
  });
  const semantic = deps.embedder
    ? createSemanticSearch({
        db: deps.db,
        documents: indexed,
        embedder: deps.embedder,
        logger: deps.logger,
        shared: deps.sharedEmbeddings,
      })
    : undefined;
  const contents = createContentsService({
    pages,
    documents,
    admission: createAdmissionQueue(deps.settings.fetchConcurrency),
    clock: deps.clock,
    prices,
    embedder: deps.embedder,
    summaries: {
      cache: deps.cache,
      model: deps.model,
      preferClientModel: deps.synthesis?.preferClientModel,
      price: deps.synthesis?.price,
    },
  });
  const codeSemantic = deps.embedder
    ? createSemanticSearch({
        db: deps.db,
        documents: indexed,
        embedder: deps.embedder,
        logger: deps.logger,
        tables: CODE_VECTORS,
        shared: deps.sharedEmbeddings,
        textOf: (url) => code.textOf(url),
      })
    : undefined;
  const synthesis = createSynthesis({ model: deps.model, logger: deps.logger, ...deps.synthesis });
  const keysRepo = stores.apiKeys;
  const keys = createKeysService(keysRepo, deps.clock);
  const accounts = createAccounts({
    accounts: stores.accounts,
    keys: keysRepo,
    rateBuckets: stores.rateBuckets,
    clock: deps.clock,
    logger: deps.logger,
    model: deps.model,
    modelPrice: deps.synthesis?.price,
    prices,
    defaultQps: deps.settings.rateLimitQps,
    maxInFlight: deps.settings.rateLimitConcurrency,
    metering: deps.settings.metering,
  });
  const search = createSearchService({
    index: searchIndex,
    documents,
    contents,
    providers: deps.webSearch ?? [],
    semantic,
    synthesis,
    providerTimeoutMs: deps.settings.providerTimeoutMs ?? 4000,
    prices,
    logger: deps.logger,
  });
  const monitorsRepo = stores.monitors;
  const now = () => deps.clock.now().getTime();
  const monitors = createMonitorsService({
    repo: monitorsRepo,
    box: deps.secretBox,
    sender: deps.webhookSender,
    execute: createRunSearch({
      repo: monitorsRepo,
      documents: indexed,
      keys,
      accounts,
      search,
      contents,
      synthesis,
      now,
      logger: deps.logger,
    }),
    now,
    logger: deps.logger,
    hasModel: deps.model !== undefined,
    settings: deps.settings.monitors,
  });
  const agentRuns = createAgentRunsService({
    repo: stores.agentRuns,
    research: { search, contents, synthesis, prices, documents: indexed },
    accounts,
    callerOf: (keyId) => keys.callerOf(keyId),
    now,
    logger: deps.logger,
    hasModel: deps.model !== undefined,
    defaultRuns: deps.settings.agentConcurrency,
    processConcurrency: 8,
    maxBudgetDollars: deps.settings.agentMaxCost ?? 100,
    leaseMs: deps.settings.agentRuns?.leaseMs,
    pollMs: deps.settings.agentRuns?.pollMs,
    providerNames: (deps.webSearch ?? []).map((p) => p.name),
  });
  return {
    keys,
    accounts,
    audit: createAuditLog(stores.audit),
    agentRuns,
    cache: deps.cache,
    fetcher: deps.fetcher,
    documents,
    searchIndex,
    followShared: () => replica?.start(),
    async stopIndexWorkers() {
      await replica?.stop();
      await codeVectors.stop();
      await merges?.close();
      await analysis.close();
      await pdf.close();
    },
    async rebuildMarkedIndexes() {
      const log = deps.logger;
      const started = Date.now();
      const docs = await searchIndex.rebuildIfMarked((done) =>
        log.info({ done }, 'rebuilding the search index after an upgrade'),
      );
      if (docs !== null) log.info({ docs, ms: Date.now() - started }, 'search index rebuilt');
      const chunks = await code.rebuildIfMarked();
      if (chunks !== null) log.info({ chunks }, 'code index rebuilt');
      // segments a bulk load left (a CLI import that ended) are merged from the start, not at the next write
      searchIndex.settle();
    },
    semantic,
    search,
    similar: createSimilarService({
      index: searchIndex,
      documents,
      contents,
      semantic,
      providerTimeoutMs: deps.settings.providerTimeoutMs ?? 4000,
      prices,
    }),
    pages,
    contents,
    synthesis,
    code,
    context: createContextService({
      code,
      semantic: codeSemantic,
      model: codeSemantic ? undefined : { loader: codeModelLoader, vectors: codeVectors },
      providerTimeoutMs: deps.settings.providerTimeoutMs,
      prices,
    }),
    codeSemantic,
    codeModel: { loader: codeModelLoader, vectors: codeVectors },
    indexer: createCodeIndexer({ files: replica?.codeFiles ?? localCode, clock: deps.clock }),
    crawl: createCrawlService({
      pages,
      fetcher: deps.fetcher,
      repo: stores.crawl,
      clock: deps.clock,
      logger: deps.logger,
      robots: deps.settings.robots,
    }),
    imports: createImportService({ documents, clock: deps.clock, logger: deps.logger }),
    monitors,
    status: createStatusService({
      ...deps.status,
      codeModel: () => codeModelLoader.state(),
      store: deps.replica ? deps.replica.shared.status(createStatusRepo(deps.db)) : createStatusRepo(deps.db),
      now: () => deps.clock.now(),
    }),
  };
}
