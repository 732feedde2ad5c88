/**
 * A replica's local copy of the shared documents (issue 24, in progress): reads the PostgreSQL document
 * log from where it stopped and writes what it reads into this process's SQLite store and search index,
 * each batch in one transaction with the new position, so a replica that stops (or dies) resumes without
 * missing or repeating a write. Searches then run on the local index, as in the single-machine mode,
 * with the same ranking.
 */
import type { Db } from '../../store/sqlite/database.js';
import type { DocumentLog } from './shared-store.js';
import { createLogFollower, type LogFollower } from './log-follower.js';
import type { StoredDocument } from '../../store/contracts/documents.js';
import type { PageDocuments } from '../documents/documents.types.js';

/** The row of `replica_state` holding the position in the document log. */
const POSITION = 'document-log';

/**
 * Follows the document log (replica/log-follower.ts): `catchUp()` applies every write committed before
 * the call (a writer that calls it after its commit finds its documents in its own index) and answers
 * how many documents it applied; `position()`; `run({pollMs, signal, onError})`.
 */
export type DocumentFollower = LogFollower;

/** Runs of documents with one `updatedAt`, in order (a write stores one time for a batch). */
function byUpdateTime(docs: StoredDocument[]): StoredDocument[][] {
  const runs: StoredDocument[][] = [];
  for (const d of docs) {
    const run = runs.at(-1);
    if (run && run[0]!.updatedAt === d.updatedAt) run.push(d);
    else runs.push([d]);
  }
  return runs;
}

/**
 * Follows `log` into `local` (the SQLite documents and search index, through the write path: on the
 * document writer's thread when there is one), `batch` documents a read.
 */
export function createDocumentFollower(
  db: Db,
  log: DocumentLog,
  local: PageDocuments,
  options: { batch?: number; afterRound?: (applied: number) => void } = {},
): DocumentFollower {
  return createLogFollower(
    db,
    POSITION,
    {
      read: async (after, limit) => {
        const { docs, next } = await log.changesSince(after, limit);
        return { changes: docs, next };
      },
      changed: (ms, signal) => log.changed(ms, signal),
    },
    {
      prepare: (docs) => local.prepare(docs),
      // each run with its own time, and the new position, in one transaction (the write path settles)
      apply: (docs, position) =>
        local.writeBatches(
          byUpdateTime(docs).map((run) => ({ pages: run, now: run[0]!.updatedAt })),
          [position],
        ),
    },
    { batch: options.batch ?? 500, afterRound: options.afterRound },
  );
}
