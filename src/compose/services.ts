/**
 * The core services, built once per app from the store, the fetcher and the providers: the composition
 * root's private record (core/ports.ts), from which each operation is handed the services it declares.
 * The documents side is wired here; the other areas in ./accounts.ts, ./search.ts, ./code.ts, ./engines.ts.
 */
import type { Services } from '../core/ports.js';
import { createCodeFilesRepo } from '../store/sqlite/code-files.js';
import { createDocumentsRepo } from '../store/sqlite/documents.js';
import { codeExamples } from '../core/code/index/doc-examples.js';
import { createWritePath } from '../core/documents/write-path.js';
import { createCrawlService } from '../core/crawl/crawl.service.js';
import { createImportService } from '../core/import/import.service.js';
import { createAdmissionQueue } from '../core/contents/admission.js';
import { createContentsService } from '../core/contents/contents.service.js';
import { createPagesService } from '../core/contents/pages.service.js';
import { createPdfReader } from '../core/contents/formats/pdf-reader.js';
import { createAnalysisPool } from '../core/search/analysis-pool.js';
import { createReplica } from '../core/replica/replica.js';
import { createSearchIndex } from '../core/search/search-index.js';
import { createStatusService } from '../core/status/status.service.js';
import { createStatusRepo } from '../store/sqlite/status.js';
import { startSegmentMerger } from '../store/search-index/segment-merger.js';
import { startDocumentWriter } from './document-writer.js';
import { createSynthesis } from '../core/synthesis/synthesis.service.js';
import { createAnswerSnapshots } from '../core/snapshots/answer-snapshots.js';
import { createTaskJobs } from '../core/jobs/tasks.js';
import { createOperatorJobs } from '../core/operator/operator-jobs.service.js';
import { createRetention } from '../core/retention/retention.service.js';
import { createAccountServices } from './accounts.js';
import { createCodeParts, createCodeServices } from './code.js';
import { createEngines } from './engines.js';
import { lifecycleOf, type Lifecycle } from './lifecycle.js';
import { createSearchServices } from './search.js';
import type { ServiceDeps } from './service-deps.js';

export type { CoreSettings, ReplicaSettings, ServiceDeps } from './service-deps.js';

/** The services' record, and the lifecycle of the workers they started. */
export function createServices(deps: ServiceDeps): { services: Services; lifecycle: Lifecycle } {
  const { prices, stores } = deps;
  const stored = createDocumentsRepo(deps.db);
  // segments are merged by a worker thread with its own connection (a file database; inline in memory)
  const merges = deps.db.memory
    ? undefined
    : startSegmentMerger(deps.db.name, { onError: (error) => deps.logger.error({ error }, 'index merge failed') });
  // a crawl's or an import's batches are analyzed in worker threads while the previous batch is written
  const analysis = createAnalysisPool(deps.analysisThreads);
  const cacheBytes = deps.settings.searchCacheMb * 2 ** 20;
  const searchIndex = createSearchIndex(deps.db, stored, { merges, analysis, cacheBytes });
  const codeParts = createCodeParts(deps, merges);
  const { code } = codeParts;
  const localCode = createCodeFilesRepo(deps.db, code);
  // ── documents: the one write path (core/documents/write-path.ts) ──
  // store → search index → code examples on this machine, in one transaction, so a page is searchable
  // and its examples are in the code index as soon as it is stored; on a replica, the shared store and
  // its log in front (a replica that follows its logs applies them here, its own writes included).
  // Every service writes and reads pages through `documents`; readers of a local index hit read `indexed`.
  // a file database: writes are analyzed and their transactions run on the document writer's thread
  // (its own connection and analysis pool), never on this one
  const writer = deps.db.memory
    ? undefined
    : startDocumentWriter(
        {
          file: deps.db.name,
          codeModel: deps.settings.codeModel,
          codeProvider: Boolean(deps.embedder),
          analysisThreads: deps.analysisThreads,
          // a bulk command names its threads (`trawl import`): they load while it starts reading
          startAnalysis: deps.analysisThreads !== undefined,
        },
        {
          onLog: ({ level, msg, ...fields }) => deps.logger[level >= 50 ? 'error' : level >= 40 ? 'warn' : 'info']({ ...fields, thread: 'document writer' }, msg ?? ''), // prettier-ignore
          onError: (error) => deps.logger.error({ error }, 'document writer failed'),
        },
      );
  const replicaSettings = deps.replica;
  const { documents, indexed, replica } = createWritePath({
    db: deps.db,
    stored,
    index: searchIndex,
    examples: codeExamples(code),
    writer,
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
      preferClientModel: deps.synthesis.preferClientModel,
      price: deps.synthesis.price,
    },
  });
  const synthesis = createSynthesis({ model: deps.model, logger: deps.logger, ...deps.synthesis });
  const { keys, accounts, audit } = createAccountServices(deps);
  const { semantic, search, similar } = createSearchServices(deps, { searchIndex, indexed, documents, contents, synthesis }); // prettier-ignore
  const codeServices = createCodeServices(deps, codeParts, { indexed, files: replica?.codeFiles ?? localCode, prices });
  const engines = createEngines(deps, { indexed, keys, accounts, search, contents, synthesis });
  const crawl = createCrawlService({
    pages,
    fetcher: deps.fetcher,
    repo: stores.crawl,
    clock: deps.clock,
    logger: deps.logger,
    robots: deps.settings.robots,
    leaseMs: deps.settings.agentRuns.leaseMs, // TRAWL_LEASE_MS, every job's lease
  });
  const imports = createImportService({ documents, clock: deps.clock, logger: deps.logger });
  const services: Services = {
    keys,
    accounts,
    audit,
    cache: deps.cache,
    fetcher: deps.fetcher,
    documents,
    searchIndex,
    semantic,
    search,
    similar,
    pages,
    contents,
    synthesis,
    code,
    ...codeServices,
    codeModel: { loader: codeParts.loader, vectors: codeParts.vectors },
    crawl,
    imports,
    ...engines,
    answerSnapshots: createAnswerSnapshots(stores.mcpSnapshots, () => deps.clock.now().getTime()),
    status: createStatusService({
      ...deps.status,
      codeModel: () => codeParts.loader.state(),
      store: deps.replica ? deps.replica.shared.status(createStatusRepo(deps.db)) : createStatusRepo(deps.db),
      now: () => deps.clock.now(),
    }),
    tasks: createTaskJobs({ repo: stores.mcpTasks, now: () => deps.clock.now().getTime() }),
    operatorJobs: createOperatorJobs({
      repo: stores.operatorJobs,
      crawl,
      imports,
      indexer: codeServices.indexer,
      clock: deps.clock,
      logger: deps.logger,
      leaseMs: deps.settings.agentRuns.leaseMs,
      ...deps.settings.operatorJobs,
    }),
    retention: createRetention({
      repo: stores.retention,
      cache: deps.cache.fetchedBefore,
      now: () => deps.clock.now().getTime(),
      logger: deps.logger,
      ...deps.settings.retention,
    }),
  };
  const lifecycle = lifecycleOf({ searchIndex, code: codeParts, replica, merges, writer, analysis, pdf }, deps.logger);
  return { services, lifecycle };
}
