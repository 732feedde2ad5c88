/**
 * The small helpers every PostgreSQL repository shares: what a statement runs on (`Run`: the pool or
 * a transaction's client), the row helpers, the transaction wrapper and the TEXT cleaner. One place,
 * so a repository file holds its SQL and nothing else.
 */
import type pg from 'pg';

/** Anything a statement runs on: the pool, or the client of an open transaction. */
export type Run = Pick<pg.PoolClient, 'query'>;

/** How many rows a statement changed. */
export const rowCountOf = (r: pg.QueryResult): number => r.rowCount ?? 0;

/** Whether a statement changed at least one row. */
export const changed = (r: pg.QueryResult): boolean => rowCountOf(r) > 0;

/** The rows of `sql` run on `db`. */
export const rowsOf = async <R extends pg.QueryResultRow>(db: Run, sql: string, params: unknown[] = []) =>
  (await db.query<R>(sql, params)).rows;

/** The first row of `sql` run on `db`, if any. */
export const first = async <R extends pg.QueryResultRow>(db: Run, sql: string, params: unknown[] = []) =>
  (await rowsOf<R>(db, sql, params))[0];

/**
 * `text` as PostgreSQL's TEXT can hold it: without NUL characters (which it refuses, and SQLite keeps;
 * a binary page or a file read as text can carry them), each replaced by U+FFFD.
 */
export function pgText<T extends string | null | undefined>(text: T): T {
  return (text?.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text) as T;
}

/** Runs `work` in one transaction on one connection of `pool`. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A checked-out connection has no 'error' listener of the pool's: the server ending it between two
  // statements (a restart) would end the process unheard. Heard here, the next statement fails instead,
  // and the connection is destroyed on release rather than handed back to the pool.
  let lost: Error | undefined;
  const onError = (err: Error) => (lost = err);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.off('error', onError);
    client.release(lost);
  }
}
