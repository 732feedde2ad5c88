/**
 * The operator jobs' types: what a console request starts (a crawl, an import of an uploaded JSONL file,
 * a code index of a server folder), a job as it is shown, and the service's contract.
 */
import type { Logger } from '../../lib/logger.js';
import type { OperatorJobKind, OperatorJobState, OperatorJobsRepo } from '../../store/contracts/operator-jobs.js';
import type { Caller, Clock } from '../context.js';
import type { Page } from '../cursors.js';
import type { CrawlService } from '../crawl/crawl.types.js';
import type { CodeIndexer } from '../code/index/indexer.js';
import type { ImportService } from '../import/import.service.js';
import type { ByteUpload } from './upload.js';

export type { OperatorJobKind, OperatorJobState } from '../../store/contracts/operator-jobs.js';

/** A crawl to start: seeds and scope (the crawl's own defaults for what is left out). */
export interface CrawlJobRequest {
  urls: string[];
  /** Pages attempted at most, over the crawl's runs (`trawl crawl --limit`). */
  maxPages?: number;
  /** Link hops from a seed (`--depth`). */
  maxDepth?: number;
  include?: string[];
  exclude?: string[];
}

/** An import to start: the JSONL file's bytes and the collection its records without a URL go to. */
export interface ImportJobRequest {
  upload: ByteUpload;
  collection: string;
}

/** A code index to start: a folder on the server (an absolute path) and, optionally, its source name. */
export interface CodeJobRequest {
  path: string;
  name?: string;
}

/** How far a job got: items done and failed, of `total` when known, and a line saying where it is. */
export interface JobProgress {
  done: number;
  total: number | null;
  failed: number;
  message: string | null;
}

/** A crawl's frontier as the job shows it. */
export interface CrawlJobView {
  counts: { queued: number; done: number; failed: number };
  failuresByTag: Record<string, number>;
  failures: { url: string; tag: string; error: string | null; httpStatusCode: number | null }[];
  frontier: { url: string; depth: number }[];
}

/** A job as the console shows it. */
export interface OperatorJob {
  id: string;
  kind: OperatorJobKind;
  state: OperatorJobState;
  input: Record<string, unknown>;
  progress: JobProgress;
  result: Record<string, unknown> | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  /** A crawl's frontier as it stands now (crawls only; null once the crawl's frontier is gone). */
  crawl?: CrawlJobView | null;
}

/**
 * The operator's background jobs, run by the process that took the request (`admin` keys only: the
 * resource `operatorJob` is the operator's). Each holds a lease while it runs; one whose process died
 * reads `interrupted`.
 */
export interface OperatorJobsService {
  /** Starts a crawl: INVALID_URLS for a bad seed. */
  startCrawl(request: CrawlJobRequest, caller: Caller | null): Promise<OperatorJob>;
  /**
   * Writes the upload to the data directory (PAYLOAD_TOO_LARGE past the limit), then imports it in the
   * background; INVALID_REQUEST_QUERY for a bad collection name.
   */
  startImport(request: ImportJobRequest, caller: Caller | null): Promise<OperatorJob>;
  /** Starts a code index: INVALID_REQUEST (field `path`) unless the path is an absolute path of a folder. */
  startCode(request: CodeJobRequest, caller: Caller | null): Promise<OperatorJob>;
  /** The jobs, newest first. */
  list(query: { cursor?: string; limit: number }, caller: Caller | null): Promise<Page<OperatorJob>>;
  /** One job; NOT_FOUND for an unknown id. */
  get(id: string, caller: Caller | null): Promise<OperatorJob>;
  /** The server is stopping: no new job; those running stop, and end `interrupted`. */
  stop(): Promise<void>;
}

/** What the jobs are built on. */
export interface OperatorJobsDeps {
  repo: OperatorJobsRepo;
  crawl: CrawlService;
  imports: ImportService;
  indexer: CodeIndexer;
  clock: Clock;
  logger: Logger;
  /** How long a job's lease lasts without renewal (TRAWL_LEASE_MS). */
  leaseMs: number;
  /** Where uploads are written before they are imported (`<data dir>/uploads`). */
  uploadDir: string;
  /** TRAWL_IMPORT_MAX_BYTES. */
  importMaxBytes: number;
  /** Least time between two progress writes of one job (default 1000 ms). */
  progressEveryMs?: number;
  /** How long `stop` waits for the jobs' work to end before it ends them anyway (default 10 s). */
  stopWaitMs?: number;
}
