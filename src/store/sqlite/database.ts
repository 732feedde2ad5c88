/**
 * The durable store: one SQLite database (better-sqlite3) in the data directory, in WAL mode so that
 * several processes (a server, a CLI import) can share it, migrated to the latest schema on open.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDatabaseFile, ensurePrivateDir } from '../../lib/private-files.js';
import { MIGRATIONS, type Migration } from '../migrations/index.js';

export type Db = Database.Database;

export const DATABASE_FILE = 'trawl.sqlite';

/**
 * Opens (creating if needed) `<dataDir>/trawl.sqlite` and applies pending migrations. The directory is
 * made 0700 and the database files 0600 (src/lib/private-files.ts), existing ones included.
 */
export function openDatabase(dataDir: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, DATABASE_FILE);
  ensurePrivateDatabaseFile(file);
  const db = new Database(file);
  // takes effect on a new database only: pages freed (merged index segments) go back to the file system
  // when the merge worker runs `incremental_vacuum` (an older database keeps its free pages for reuse)
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

/**
 * `fn` as a transaction that takes the write lock when it begins (BEGIN IMMEDIATE). Every transaction
 * that writes uses it: a deferred one that reads first starts on a snapshot, and if another connection
 * (the merge worker, a CLI import) commits before its first write, SQLite refuses the upgrade at once
 * with "database is locked", without waiting `busy_timeout`. Nested calls run as savepoints.
 */
export function writeTransaction<A extends unknown[], R>(db: Db, fn: (...args: A) => R): (...args: A) => R {
  const tx = db.transaction(fn);
  return (...args) => tx.immediate(...args);
}

/**
 * Applies migrations newer than `user_version`, each in its own IMMEDIATE transaction so that two
 * processes opening a fresh directory at once do not both apply it.
 */
export function migrate(db: Db, migrations: readonly Migration[]): void {
  const latest = migrations.at(-1)?.version ?? 0;
  const current = () => db.pragma('user_version', { simple: true }) as number;
  if (current() > latest) {
    throw new Error(
      `The database schema (version ${current()}) is newer than this Trawl understands (${latest}); upgrade Trawl.`,
    );
  }
  for (const m of migrations) {
    if (current() >= m.version) continue;
    db.transaction(() => {
      if (current() >= m.version) return; // applied by another process meanwhile
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
}

/** The schema version `db` is at and the one this code migrates to (`GET /ready`). */
export function schemaVersions(db: Db): { stored: number; expected: number } {
  return { stored: db.pragma('user_version', { simple: true }) as number, expected: MIGRATIONS.at(-1)?.version ?? 0 };
}
