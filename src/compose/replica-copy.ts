/**
 * A replica's derived copy checked against the shared store before the app opens it (issue 37). After a
 * `pg_restore` the store is an older one (or another one): the positions a copy holds in its logs may be
 * past their end, and documents written after the backup would stay in the copy. So:
 *
 * - the store's epoch changes when it is restored (store/pg/store-identity.ts);
 * - a copy records the epoch it was built under; a copy of another epoch, or one whose document-log
 *   position is past the log's end (a copy made before epochs were recorded), is stale;
 * - a stale copy is removed (it is derived: everything in it comes from the store), once no other process
 *   has it open, and the followers build a new one from the start of the logs.
 */
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { atOrAfter } from '../core/replica/shared-store.js';
import { checkStoreEpoch, documentLogEnd } from '../store/pg/store-identity.js';
import { DATABASE_FILE } from '../store/sqlite/database.js';
import { holdExclusively } from '../store/sqlite/backup.js';
import { readCopyState } from '../store/sqlite/replica-copy.js';

export interface CopyCheck {
  /** The store's epoch, to record in the copy once it is open. */
  epoch: string;
  /** Why the copy was removed (undefined: kept, or there was none). */
  rebuilt?: string;
  /** Log rows moved to this server's transaction ids (a restore from a server ahead of this one). */
  rebased: number;
}

/** Why the copy in `dataDir` cannot follow the store of `epoch` (undefined: it can, or there is none). */
async function staleness(pool: pg.Pool, file: string, epoch: string, restored: boolean): Promise<string | undefined> {
  if (!fs.existsSync(file)) return undefined;
  const copy = readCopyState(file);
  if (copy.epoch !== undefined) {
    return copy.epoch === epoch ? undefined : 'the shared store was restored or replaced since this copy was built';
  }
  if (!copy.position) return undefined; // never followed a log: nothing to undo
  if (restored) return 'the shared store was restored since this copy was built';
  const end = await documentLogEnd(pool);
  return end && atOrAfter(end, copy.position) ? undefined : "this copy's place in the document log is past the log's end (the shared store was restored)"; // prettier-ignore
}

/**
 * Checks the store's epoch (moving log rows a restore brought from another server's future) and, when
 * the copy in `dataDir` is stale, removes it. Throws when another process has the stale copy open.
 */
export async function checkReplicaCopy(pool: pg.Pool, dataDir: string): Promise<CopyCheck> {
  const { epoch, restored, rebased } = await checkStoreEpoch(pool);
  const file = path.join(dataDir, DATABASE_FILE);
  const why = await staleness(pool, file, epoch, restored);
  if (!why) return { epoch, rebased };
  const held = holdExclusively(file);
  if (!held) {
    throw new Error(
      `${why}, so this machine's copy in ${dataDir} must be rebuilt, but another process has it open: stop every Trawl process on this data directory and start again`,
    );
  }
  held.release();
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${file}${suffix}`, { force: true });
  return { epoch, rebuilt: why, rebased };
}
