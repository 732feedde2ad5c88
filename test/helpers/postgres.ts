/**
 * PostgreSQL for tests: `TRAWL_TEST_DATABASE_URL` (CI sets it, see .ci/run), else the local server at
 * 127.0.0.1:5432 with trust auth, database `test`. Each store gets a schema of its own, dropped when the
 * test is done. `pgReachable` tells whether a server answers; a suite on PostgreSQL is skipped without
 * one (CI fails instead: it always starts one).
 */
import pg from 'pg';
import { openPgStore, type PgStore } from '../../src/store/pg/database.js';

export const TEST_DATABASE_URL = process.env.TRAWL_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function probe(): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const pgReachable = await probe();
if (!pgReachable && process.env.CI) {
  throw new Error(`PostgreSQL does not answer at ${TEST_DATABASE_URL}, and CI must test on it (.ci/run starts one)`);
}

let counter = 0;

/** A store in a fresh schema; `drop()` closes it and drops the schema. */
export async function freshPgStore(): Promise<PgStore & { drop(): Promise<void> }> {
  const schema = `t_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const store = await openPgStore(TEST_DATABASE_URL, { schema, max: 4 });
  return {
    ...store,
    async drop() {
      await store.pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await store.close();
    },
  };
}
