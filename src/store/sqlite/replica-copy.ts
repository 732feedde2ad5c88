/**
 * What a replica's SQLite copy records about where it came from (PostgreSQL mode): the shared store's
 * epoch it was built under (`replica_state` row `store-epoch`) and its position in the document log,
 * read before the app opens the file, so that a copy of another incarnation of the store (a restore)
 * can be set aside first.
 */
import Database from 'better-sqlite3';
import type { LogPosition } from '../contracts/change-log.js';
import type { Db } from './database.js';

const EPOCH = 'store-epoch';

/** The epoch and document-log position `file` records (each undefined when it has none). */
export function readCopyState(file: string): { epoch?: string; position?: LogPosition } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'replica_state'").get();
    if (!has) return {};
    const value = (name: string) => db.prepare('SELECT value FROM replica_state WHERE name = ?').pluck().get(name) as string | undefined; // prettier-ignore
    const position = value('document-log');
    return { epoch: value(EPOCH), position: position ? (JSON.parse(position) as LogPosition) : undefined };
  } finally {
    db.close();
  }
}

/** Records that the copy in `db` follows the store of `epoch`. */
export function recordCopyEpoch(db: Db, epoch: string): void {
  db.prepare(
    'INSERT INTO replica_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  ).run(EPOCH, epoch);
}
