/**
 * The store's migrations: one list, in order, whose entries carry both dialects side by side
 * (./migration.ts), and the per-dialect lists the runners apply, derived from it (SQLite:
 * sqlite/database.ts `migrate`; PostgreSQL: pg/database.ts `migratePg`). The entries live in the files
 * below, oldest first; test/unit/store-migrations.test.ts holds every released migration's version,
 * name and SQL digest, so an existing database upgrades as before.
 */
import { CONSOLE } from './console.js';
import { CRAWL_LEASES } from './crawl-leases.js';
import { FORMATS_AND_OWNERS } from './formats-and-owners.js';
import { IDENTITY_KEYS } from './identity-keys.js';
import { INDEXES_AND_LOGS } from './indexes-and-logs.js';
import { JOBS_AND_ACCOUNTS } from './jobs-and-accounts.js';
import { KEYS_AND_PAGES } from './keys-and-pages.js';
import { OAUTH } from './oauth.js';
import { RETENTION } from './retention.js';
import { migrationsOf, type Migration, type MigrationEntry } from './migration.js';

export type { Migration, MigrationEntry } from './migration.js';

/** Every migration of the store, oldest first. */
export const MIGRATION_ENTRIES: readonly MigrationEntry[] = [
  ...KEYS_AND_PAGES,
  ...INDEXES_AND_LOGS,
  ...JOBS_AND_ACCOUNTS,
  ...FORMATS_AND_OWNERS,
  ...CRAWL_LEASES,
  ...IDENTITY_KEYS,
  ...OAUTH,
  ...CONSOLE,
  ...RETENTION,
];

/** The SQLite migrations, derived from the list (`PRAGMA user_version` records the last applied). */
export const MIGRATIONS: readonly Migration[] = migrationsOf(MIGRATION_ENTRIES, 'sqlite');

/** The PostgreSQL migrations, derived from the list (`trawl_schema` records the last applied). */
export const PG_MIGRATIONS: readonly Migration[] = migrationsOf(MIGRATION_ENTRIES, 'pg');
