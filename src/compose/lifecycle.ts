/**
 * The lifecycle of the services' workers: rebuilding indexes an upgrade emptied when a server starts,
 * and stopping the worker threads and the document follower when the app closes.
 */
import type { Logger } from '../lib/logger.js';
import type { SearchIndex } from '../core/search/search-index.js';
import type { AnalysisPool } from '../core/search/analysis-pool.js';
import type { PdfReader } from '../core/contents/formats/pdf-reader.js';
import type { Replica, ReplicaLag } from '../core/replica/replica.js';
import type { MergeScheduler } from '../store/search-index/segment-merger.js';
import type { CodeParts } from './code.js';
import type { DocumentWriter } from '../core/documents/write-path.js';

/** The workers a set of services started. */
export interface Workers {
  searchIndex: SearchIndex;
  code: CodeParts;
  replica: Replica | undefined;
  merges: MergeScheduler | undefined;
  writer: DocumentWriter | undefined;
  analysis: AnalysisPool;
  pdf: PdfReader;
}

/** What the composition root starts and stops of the services' workers (not a service: no op sees it). */
export interface Lifecycle {
  /**
   * A replica on PostgreSQL: follows the shared document and code logs into this machine's copy, and
   * writes its heartbeat, until the app closes (`trawl serve`, `trawl mcp`); nothing on SQLite.
   */
  followShared(): void;
  /**
   * Rebuilds the search and code indexes in the background when an upgrade's migration emptied them
   * (their format changed); one process of those sharing the data directory does it. Logs its progress.
   * Then starts the merges of segments left by earlier writers. Called when a server starts.
   */
  rebuildMarkedIndexes(): Promise<void>;
  /** Stops the worker threads (the document writer, the index's merges and analysis, the PDF readers) and the document follower. */
  stopIndexWorkers(): Promise<void>;
  /** A following replica's lag as its last heartbeat found it (for the metrics); undefined otherwise. */
  replicaLag(): ReplicaLag | undefined;
  /** Whether `rebuildMarkedIndexes` is under way (`GET /ready` answers 503 meanwhile). */
  rebuilding(): boolean;
}

export function lifecycleOf(workers: Workers, logger: Logger): Lifecycle {
  const { searchIndex, code, replica, merges, writer, analysis, pdf } = workers;
  let rebuilding = false;
  return {
    followShared: () => replica?.start(),
    replicaLag: () => replica?.lag(),
    rebuilding: () => rebuilding,
    async stopIndexWorkers() {
      await replica?.stop();
      await writer?.close(); // the writes already made commit first
      await code.vectors.stop();
      await merges?.close();
      await analysis.close();
      await pdf.close();
    },
    async rebuildMarkedIndexes() {
      rebuilding = true;
      try {
        await rebuild();
      } finally {
        rebuilding = false;
      }
    },
  };

  /** The rebuilds an upgrade asked for, then the merges of segments left by earlier writers. */
  async function rebuild() {
    const started = Date.now();
    const docs = await searchIndex.rebuildIfMarked((done) =>
      logger.info({ done }, 'rebuilding the search index after an upgrade'),
    );
    if (docs !== null) logger.info({ docs, ms: Date.now() - started }, 'search index rebuilt');
    const chunks = await code.code.rebuildIfMarked();
    if (chunks !== null) logger.info({ chunks }, 'code index rebuilt');
    // segments a bulk load left (a CLI import that ended) are merged from the start, not at the next write
    searchIndex.settle();
  }
}
