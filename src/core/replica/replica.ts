/**
 * A replica of a PostgreSQL deployment (`TRAWL_DATABASE_URL`): the shared store is the source of truth,
 * and this machine keeps a derived copy (its SQLite documents, search index and code index) that
 * searches run on, with the ranking of the single-machine mode.
 *
 * - Writes go to the shared store. A replica that follows applies them to its copy before the write
 *   returns (its own pages are in its own searches at once); the others apply them when the store's
 *   notification wakes their followers, or at the next poll.
 * - A process that does not follow (a bulk command: `trawl import`, `crawl`, `index`) reads and writes
 *   the shared store only, and leaves this machine's copy to the serving replicas.
 * - A following replica writes a heartbeat (who it is, how far behind it is), which the status report
 *   lists.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../store/sqlite/database.js';
import type { Logger } from '../../lib/logger.js';
import { VERSION } from '../../version.js';
import type { PageDocuments, PageStore } from '../documents/documents.types.js';
import { createCodeFollower } from './code-follower.js';
import { createDocumentFollower } from './document-follower.js';
import { replicaDocuments } from './replica-documents.js';
import type { SharedParts } from './shared-store.js';
import type { SqliteCodeFilesRepo, CodeFilesRepo } from '../../store/contracts/code-files.js';

export interface ReplicaDeps {
  shared: SharedParts;
  /** This machine's SQLite database, where the copy lives. */
  db: Db;
  /** The copy: documents with their search index and code examples, and the code files over the code index. */
  local: { documents: PageDocuments; codeFiles: SqliteCodeFilesRepo };
  /** Whether this process keeps the copy following the shared logs, and reads from it. */
  follow: boolean;
  /** How often the logs are read when no notification came (`TRAWL_POLL_MS`). */
  pollMs: number;
  logger: Logger;
}

/** How far this replica's copy is behind the shared store, as its last heartbeat found. */
export interface ReplicaLag {
  /** Documents in the shared store its copy does not hold yet (counted up to a million). */
  behindDocuments: number;
  /** Seconds since it last read the document log to its end, while it is behind (0 when it is not). */
  seconds: number;
}

export interface Replica {
  /** How far behind the last heartbeat found this replica (undefined before the first, or when it does not follow). */
  lag(): ReplicaLag | undefined;
  /** The documents services write and read. */
  documents: PageStore;
  /** The code files the indexer writes and reads. */
  codeFiles: CodeFilesRepo;
  /** Follows the shared logs and beats until `stop` (a server; nothing when this process does not follow). */
  start(): void;
  stop(): Promise<void>;
}

/** How often a following replica writes its heartbeat: at least and at most, and soonest after it applied documents (ms). */
const BEAT_MS = { min: 1000, max: 10_000, soon: 250 };

export function createReplica(deps: ReplicaDeps): Replica {
  const { shared, local, logger } = deps;
  if (!deps.follow) {
    return { lag: () => undefined, documents: shared.documents, codeFiles: shared.codeFiles, start() {}, stop: async () => {} }; // prettier-ignore
  }
  // a round that applied documents beats soon, so the status report's `behind` is not left stale
  let wake: (() => void) | undefined;
  const follower = createDocumentFollower(deps.db, shared.documentLog, local.documents, {
    afterRound: () => wake?.(),
  });
  const codeFollower = createCodeFollower(deps.db, shared.codeLog, local.codeFiles);
  // the indexer's writes reach this replica's code index before they return, as documents do
  const thenApply =
    <A extends unknown[]>(write: (...args: A) => Promise<void>) =>
    async (...args: A) => {
      await write(...args);
      await codeFollower.catchUp();
    };
  const codeFiles: CodeFilesRepo = {
    ...shared.codeFiles,
    storeFiles: thenApply(shared.codeFiles.storeFiles),
    finishSource: thenApply(shared.codeFiles.finishSource),
    putSource: thenApply(shared.codeFiles.putSource),
  };
  const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const startedAt = new Date();
  const stopping = new AbortController();
  let running: Promise<unknown> | undefined;
  let behind: number | undefined;
  const beat = async () => {
    behind = await shared.replicas.beat({
      id,
      host: hostname(),
      pid: process.pid,
      version: VERSION,
      startedAt,
      position: follower.position(),
      caughtUpAt: follower.caughtUpAt(),
    });
  };
  const beating = async (signal: AbortSignal) => {
    const every = Math.min(BEAT_MS.max, Math.max(BEAT_MS.min, deps.pollMs));
    while (!signal.aborted) {
      const at = Date.now();
      await beat().catch((err: unknown) => logger.warn({ err }, 'could not record this replica’s heartbeat'));
      // the next beat: after `every`, or once documents were applied (at most every BEAT_MS.soon)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, every);
        signal.addEventListener('abort', done, { once: true });
        const mine = () => {
          wake = undefined; // once: later rounds wait for the next beat's
          clearTimeout(timer);
          setTimeout(done, Math.max(0, at + BEAT_MS.soon - Date.now()));
        };
        wake = mine;
        function done() {
          if (wake === mine) wake = undefined;
          signal.removeEventListener('abort', done);
          resolve();
        }
      });
    }
  };
  return {
    lag() {
      if (behind === undefined) return undefined;
      const since = (follower.caughtUpAt() ?? startedAt).getTime();
      return { behindDocuments: behind, seconds: behind > 0 ? Math.max(0, (Date.now() - since) / 1000) : 0 };
    },
    documents: replicaDocuments(shared.documents, local.documents, follower),
    codeFiles,
    start() {
      if (running) return;
      const { signal } = stopping;
      const onError = (what: string) => (err: unknown) =>
        logger.error({ err }, `following the shared ${what} log failed; trying again`);
      running = Promise.all([
        follower.run({ pollMs: deps.pollMs, signal, onError: onError('document') }),
        codeFollower.run({ pollMs: deps.pollMs, signal, onError: onError('code') }),
        beating(signal),
      ]);
    },
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
