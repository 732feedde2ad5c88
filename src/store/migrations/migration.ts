/**
 * The shape of the store's migrations: one list of entries (./index.ts), each carrying its change for
 * both dialects side by side, SQLite and PostgreSQL, or an explicit reason why one dialect has none. A
 * change cannot land in one dialect unnoticed: an entry without both sides does not typecheck. Each
 * dialect numbers its own migrations (SQLite records the last in `PRAGMA user_version`, PostgreSQL in
 * `trawl_schema`), and the runners read the per-dialect lists derived here.
 */

/** One migration of one dialect: its number in that dialect, a name, and the SQL it runs. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** A dialect with nothing to do for an entry, and why (where the equivalent lives, or why none is needed). */
export interface NoMigration {
  none: string;
}

/** One change of the store's schema, for both dialects. */
export interface MigrationEntry {
  /** A stable name for the change (kebab-case), unique in the list. */
  id: string;
  sqlite: Migration | NoMigration;
  pg: Migration | NoMigration;
}

/** Why PostgreSQL has no migration for an index table: it is each process's own, in SQLite. */
export const DERIVED_INDEX =
  'derived data: each process keeps its own search and code indexes in its SQLite file, rebuilt from the stored documents and code (a replica’s too)';

export type Dialect = 'sqlite' | 'pg';

/** The migrations of `dialect`, in the list's order (each dialect's versions increase along it). */
export function migrationsOf(entries: readonly MigrationEntry[], dialect: Dialect): Migration[] {
  return entries.flatMap((entry) => {
    const side = entry[dialect];
    return 'none' in side ? [] : [side];
  });
}
