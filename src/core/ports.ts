/**
 * The core's services by name: the composition root's private record (src/compose/services.ts fills it,
 * once per app). A type only: an operation is handed the services it declares (`uses`,
 * src/ops/define-op.ts); a door sees the few it answers with itself through src/compose/door.ts.
 */
import type { Fetcher } from '../fetch/types.js';
import type { CacheStore } from '../store/contracts/cache.js';
import type { DocumentsRepo } from '../store/contracts/documents.js';

import type { Accounts } from './accounts/accounts.service.js';
import type { AgentRunsService } from './agent/agent-runs.service.js';
import type { KeysService } from './accounts/keys.service.js';
import type { AuditLog } from './accounts/audit.js';
import type { CodeIndex } from './code/index/code-index.js';
import type { ContextService } from './code/context/context.service.js';
import type { CodeIndexer } from './code/index/indexer.js';
import type { CodeVectors } from './code/index/code-vectors.js';
import type { CodeModelLoader } from './code/model/shipped-model.js';
import type { CrawlService } from './crawl/crawl.types.js';
import type { ImportService } from './import/import.service.js';
import type { Retention } from './retention/retention.service.js';
import type { ContentsService } from './contents/contents.service.js';
import type { PagesService } from './contents/pages.service.js';
import type { MonitorsService } from './monitors/monitors.service.js';
import type { SearchIndex } from './search/search-index.js';
import type { SearchService } from './search/search.service.js';
import type { SemanticSearch } from './search/semantic.js';
import type { SimilarService } from './search/similar.service.js';
import type { StatusService } from './status/status.service.js';
import type { Synthesis } from './synthesis/synthesis.service.js';
import type { AnswerSnapshots } from './snapshots/answer-snapshots.js';
import type { TaskJobs } from './jobs/tasks.js';
import type { OperatorJobsService } from './operator/operator-jobs.types.js';

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
  /** Answers cut to a token budget, kept so that the MCP door's cursors continue them exactly. */
  answerSnapshots: AnswerSnapshots;
  /** GET /status and `trawl doctor`: the data directory, the store, the providers and what to do next. */
  status: StatusService;
  /** Tool calls that run on after their request: the MCP door's tasks, which the console lists too. */
  tasks: TaskJobs;
  /** The crawls, imports and code indexes an operator starts from the console, run in the background. */
  operatorJobs: OperatorJobsService;
  /** How long records are kept: the periodic sweep, and `trawl prune`. */
  retention: Retention;
}
