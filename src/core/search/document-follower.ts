/**
 * A replica's local copy of the shared documents (issue 24, in progress): reads the PostgreSQL document
 * log from where it stopped and writes what it reads into this process's SQLite store and search index,
 * each batch in one transaction with the new position, so a replica that stops (or dies) resumes without
 * missing or repeating a write. Searches then run on the local index, as in the single-machine mode,
 * with the same ranking.
 */
import type { Db } from '../../store/database.js';
import { writeTransaction } from '../../store/database.js';
import type { SqliteDocumentsRepo, StoredDocument } from '../../store/documents.repo.js';
import type { DocumentLog, LogPosition } from '../../store/pg/document-log.pg.js';

/** The row of `replica_state` holding the position in the document log. */
const POSITION = 'document-log';

export interface DocumentFollower {
  /**
   * Reads and applies the log until nothing is left to read now; how many documents were applied.
   * Rounds never overlap: a call made while one runs waits and reads every write committed before it
   * (a writer that calls it after its commit finds its documents in its own index), and calls made
   * while a round waits to begin share that round.
   */
  catchUp(): Promise<number>;
  /** The position applied so far (null before the first document). */
  position(): LogPosition | null;
  /**
   * Follows the log until `signal` aborts: catches up, then waits for a writer's notification or
   * `pollMs` (which also covers writes held back by a transaction open elsewhere, and a lost listener).
   * `onError` hears a failed round; the next one tries again.
   */
  run(options: { pollMs: number; signal: AbortSignal; onError?: (err: unknown) => void }): Promise<void>;
}

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

export function createDocumentFollower(
  db: Db,
  log: DocumentLog,
  local: SqliteDocumentsRepo,
  options: { batch?: number } = {},
): DocumentFollower {
  const batch = options.batch ?? 500;
  const read = db.prepare('SELECT value FROM replica_state WHERE name = ?').pluck();
  const save = db.prepare(
    'INSERT INTO replica_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  );
  const stored = read.get(POSITION) as string | undefined;
  let at: LogPosition | null = stored ? (JSON.parse(stored) as LogPosition) : null; // for position() before a round
  const apply = writeTransaction(db, (runs: StoredDocument[][], next: LogPosition) => {
    for (const run of runs) local.writeNow(run, run[0]!.updatedAt);
    save.run(POSITION, JSON.stringify(next));
  });
  /** One round: reads and applies the log until nothing is left to read now. */
  const catchUp = async (): Promise<number> => {
    let applied = 0;
    // another process on this data directory (a worker of `--workers`) may have moved it on meanwhile
    const saved = read.get(POSITION) as string | undefined;
    if (saved) at = JSON.parse(saved) as LogPosition;
    for (;;) {
      const { docs, next } = await log.changesSince(at, batch);
      if (docs.length === 0 || !next) return applied;
      await local.prepare?.(docs);
      apply(byUpdateTime(docs), next);
      local.settle?.();
      at = next;
      applied += docs.length;
    }
  };
  // rounds run one after another; a round asked for while another waits to begin shares it (it begins
  // after the call, so it reads every write committed before the call)
  let tail: Promise<unknown> = Promise.resolve();
  let waiting: Promise<number> | null = null;
  const round = (): Promise<number> => {
    if (waiting) return waiting;
    const mine = tail
      .catch(() => undefined)
      .then(() => {
        waiting = null;
        return catchUp();
      });
    waiting = mine;
    tail = mine;
    return mine;
  };
  return {
    catchUp: round,
    position: () => at,
    async run({ pollMs, signal, onError }) {
      await log.changed(0); // listening before the first round, so no write between them goes unheard
      while (!signal.aborted) {
        try {
          await round();
        } catch (err) {
          onError?.(err);
        }
        if (!signal.aborted) await log.changed(pollMs, signal);
      }
    },
  };
}
