/**
 * PostgreSQL as a store (issue 24, in progress): one pool per process, migrations applied by one process
 * at a time under a transaction-scoped advisory lock (which PgBouncer's transaction pooling keeps), and
 * a refusal to run on a schema newer than this code. Only the repositories in this folder use it so far;
 * `TRAWL_DATABASE_URL` is not read until every repository has a PostgreSQL implementation.
 */
import pg from 'pg';
import { PG_MIGRATIONS, type Migration } from '../migrations/index.js';
import { inTransaction } from './sql.js';

export interface PgStore {
  pool: pg.Pool;
  /** The schema every table lives in (`search_path`). */
  schema: string;
  close(): Promise<void>;
}

/** A key for `pg_advisory_xact_lock`: migrations run one process at a time. */
const MIGRATION_LOCK = 7_245_023_001;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** BIGINT columns (micro-dollars) come back as numbers, as SQLite returns them (exact below 2^53). */
const typeParser = ((oid: number, format?: 'text' | 'binary') =>
  oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser; // prettier-ignore

/**
 * Connects to `url` (a `postgres://` URL), in `schema` (created if missing; default `public`), and
 * applies pending migrations.
 */
export async function openPgStore(
  url: string,
  options: { schema?: string; migrations?: readonly Migration[]; max?: number } = {},
): Promise<PgStore> {
  const schema = options.schema ?? 'public';
  const pool = connectPg(url, { schema, max: options.max ?? 10 });
  try {
    // IF NOT EXISTS alone races when replicas start together on a new schema: one at a time
    await inTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`trawl schema ${schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    });
    await migratePg(pool, options.migrations ?? PG_MIGRATIONS);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return { pool, schema, close: () => pool.end() };
}

/**
 * A pool on `url` whose connections work in `schema`, reading BIGINT as numbers; it connects when first
 * used, and neither creates nor migrates anything (`openPgStore` does).
 */
export function connectPg(url: string, options: { schema: string; max: number }): pg.Pool {
  if (!SCHEMA_NAME.test(options.schema))
    throw new Error(`Invalid PostgreSQL schema name: ${JSON.stringify(options.schema)}`);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    options: `-c search_path=${options.schema}`,
    types: { getTypeParser: typeParser },
  });
  // The server ending an idle connection (a restart, a failover, an idle timeout) is the pool's 'error'
  // event, which ends the process when nobody listens (bench/soak.mjs found both replicas gone after
  // `pg_ctl restart`). The pool has already dropped that connection and opens a new one when next asked.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Applies migrations newer than the recorded version, each in its own transaction that first takes the
 * migration lock, so that replicas starting together apply each once. Refuses a schema newer than it
 * knows (a replica of an older release started on a database already upgraded).
 */
export async function migratePg(pool: pg.Pool, migrations: readonly Migration[]): Promise<void> {
  const latest = migrations.at(-1)?.version ?? 0;
  const steps: (Migration | null)[] = migrations.length > 0 ? [...migrations] : [null];
  for (const m of steps) {
    const done = await inTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS trawl_schema (version INTEGER NOT NULL)');
      const { rows } = await client.query<{ version: number }>('SELECT version FROM trawl_schema');
      const version = rows[0]?.version ?? 0;
      if (version > latest) {
        throw new Error(
          `The database schema (version ${version}) is newer than this Trawl understands (${latest}); upgrade Trawl.`,
        );
      }
      if (!m) return true;
      if (version >= latest) return true; // everything applied (before, or by another process meanwhile)
      if (version >= m.version) return false;
      await client.query(m.sql);
      await client.query('DELETE FROM trawl_schema');
      await client.query('INSERT INTO trawl_schema (version) VALUES ($1)', [m.version]);
      return false;
    });
    if (done) return;
  }
}

/**
 * The schema version the shared store is at and the one this code migrates to (`GET /ready`): one
 * trivial query, so a store that does not answer throws (the caller bounds the wait).
 */
export async function pgSchemaVersions(pool: pg.Pool): Promise<{ stored: number; expected: number }> {
  const { rows } = await pool.query<{ version: number }>('SELECT version FROM trawl_schema');
  return { stored: rows[0]?.version ?? 0, expected: PG_MIGRATIONS.at(-1)?.version ?? 0 };
}
