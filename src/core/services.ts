/**
 * The core services, built once per app from the store, the fetcher and the providers, and handed to
 * every operation. Later capabilities (search, monitors, agent) add their service here.
 */
import type { Fetcher } from '../fetch/types.js';
import type { Logger } from '../lib/logger.js';
import type { Embedder } from '../providers/embeddings.js';
import type { ChatModel } from '../providers/model/types.js';
import type { WebSearchProvider } from '../providers/search/types.js';
import type { CacheStore } from '../store/cache.js';
import type { Db } from '../store/database.js';
import { createCodeFilesRepo } from '../store/code-files.repo.js';
import { createDocumentsRepo, type DocumentsRepo } from '../store/documents.repo.js';
import type { SharedEmbeddings } from '../store/embeddings-store.js';
import { sqliteStores, type Stores } from '../store/stores.js';
import { CODE_VECTORS } from '../store/vectors.repo.js';
import { createAccounts, type Accounts } from './accounts/accounts.service.js';
import { createAgentRunsService, type AgentRunsService } from './agent/agent-runs.service.js';
import { createKeysService, type KeysService } from './accounts/keys.service.js';
import { createAuditLog, type AuditLog } from './accounts/audit.js';
import { createCodeIndex, type CodeIndex } from './code/index/code-index.js';
import { createContextService, type ContextService } from './code/context/context.service.js';
import { withCodeExamples, type PageStore } from './code/index/doc-examples.js';
import { createCodeIndexer, type CodeIndexer } from './code/index/indexer.js';
import { createCodeVectors, type CodeVectors } from './code/index/code-vectors.js';
import { createCodeModelLoader, type CodeModelLoader } from './code/model/shipped-model.js';
import { createCrawlService } from './crawl/crawl.service.js';
import type { CrawlService } from './crawl/crawl.types.js';
import { createImportService, type ImportService } from './import/import.service.js';
import { createAdmissionQueue } from './contents/admission.js';
import { createContentsService, type ContentsService } from './contents/contents.service.js';
import { createPagesService, type PagesService } from './contents/pages.service.js';
import { createPdfReader, type PdfLimits } from './contents/formats/pdf-reader.js';
import { createMonitorsService, type MonitorsDeps, type MonitorsService } from './monitors/monitors.service.js';
import { createRunSearch } from './monitors/run-search.js';
import type { SecretBox } from './monitors/secret-box.js';
import type { WebhookSender } from '../fetch/webhook-sender.js';
import type { Clock } from './context.js';
import { createPrices, type Prices } from './pricing.js';
import { createAnalysisPool } from './search/analysis-pool.js';
import { createReplica, type ReplicaDeps } from './replica/replica.js';
import { createSearchIndex, indexedDocuments, type SearchIndex } from './search/search-index.js';
import { createSearchService, type SearchService } from './search/search.service.js';
import { createSemanticSearch, type SemanticSearch } from './search/semantic.js';
import { createSimilarService, type SimilarService } from './search/similar.service.js';
import { createStatusService, type StatusDeps, type StatusService } from './status/status.service.js';
import { createStatusRepo } from '../store/status.repo.js';
import { startSegmentMerger } from '../store/segment-merger.js';
import type { ModelPrice } from './synthesis/pricing.js';
import { createSynthesis, type Synthesis } from './synthesis/synthesis.service.js';

export interface Services {
  keys: KeysService;
  /** Teams, scopes, metering, credits, budgets and request rates. */
  accounts: Accounts;
  /** Who changed which team's accounts, and when (keys, flags, credits). */
  audit: AuditLog;
  cache: CacheStore;
  fetcher: Fetcher;
  /** The documents store; every write also updates the search index, in the same transaction. */
  documents: DocumentsRepo;
  searchIndex: SearchIndex;
  /**
   * Rebuilds the search and code indexes in the background when an upgrade's migration emptied them
   * (their format changed); one process of those sharing the data directory does it. Logs its progress.
   * Then starts the merges of segments left by earlier writers. Called when a server starts.
   */
  rebuildMarkedIndexes(): Promise<void>;
  /**
   * A replica on PostgreSQL: follows the shared document and code logs into this machine's copy, and
   * writes its heartbeat, until the app closes (`trawl serve`, `trawl mcp`); nothing on SQLite.
   */
  followShared(): void;
  /**
   * Stops the worker threads (the index's merges and analysis, the PDF readers) and the document
   * follower (the app's close).
   */
  stopIndexWorkers(): Promise<void>;
  search: SearchService;
  similar: SimilarService;
  /** Embeddings search; present when an embeddings provider is configured. */
  semantic?: SemanticSearch;
  pages: PagesService;
  contents: ContentsService;
  /** Answers written from search results (by a model, or extracted without one). */
  synthesis: Synthesis;
  /** Code chunks of indexed folders, repositories, packages, imports and documentation examples. */
  code: CodeIndex;
  /** /context: code snippets for a question within a token budget. */
  context: ContextService;
  /** Embeddings of code chunks; present when an embeddings provider is configured. */
  codeSemantic?: SemanticSearch;
  /** Trawl's code model (loaded on first use) and its chunk vectors; unused with an embeddings provider. */
  codeModel: { loader: CodeModelLoader; vectors: CodeVectors };
  /** `trawl index` and `trawl import --code`: folders, clones and code records into the code index. */
  indexer: CodeIndexer;
  /** `trawl crawl`: resumable breadth-first crawls through the pages service. */
  crawl: CrawlService;
  /** `trawl import`: JSONL files and folders into the documents store. */
  imports: ImportService;
  /** /monitors, and the engine that runs them and delivers their webhooks. */
  monitors: MonitorsService;
  /** /agent/runs: research runs, their events and the engine that runs them. */
  agentRuns: AgentRunsService;
  /** GET /status and `trawl doctor`: the data directory, the store, the providers and what to do next. */
  status: StatusService;
}

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
  // every stored page is searchable, and its code examples are in the code index, as soon as it is stored
  const local = withCodeExamples(deps.db, indexedDocuments(deps.db, stored, searchIndex), code);
  const localCode = createCodeFilesRepo(deps.db, code);
  // a replica writes to the shared store; one that follows its logs applies them here, its writes included
  const replica =
    deps.replica && createReplica({ ...deps.replica, db: deps.db, local: { documents: local, codeFiles: localCode }, logger: deps.logger }); // prettier-ignore
  const documents: PageStore = replica?.documents ?? local;
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
        documents: stored,
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
        documents: stored,
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
      documents: stored,
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
    research: { search, contents, synthesis, prices, documents: stored },
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
