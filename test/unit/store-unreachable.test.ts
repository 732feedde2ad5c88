/**
 * The database unreachable, as errors the real `pg` client throws (a refused port, a backend terminated
 * by the server mid-statement as a restart does, a connection ended under a query), becomes
 * `StoreUnavailableError` (SERVICE_UNAVAILABLE), which the HTTP door answers 503 with Retry-After; a
 * statement the server refuses for its own reasons stays an internal error (500).
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError, isStoreUnreachable, toServiceError } from '../../src/errors.js';
import { answerOf } from '../../src/http/status.js';
import { TEST_DATABASE_URL, pgReachable } from '../helpers/postgres.js';
import { closedPort } from '../helpers/ports.js';

const thrownBy = async (work: () => Promise<unknown>): Promise<unknown> => {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
};

describe('the database unreachable', () => {
  it('a refused connection is SERVICE_UNAVAILABLE, answered 503 with Retry-After', async () => {
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/test` });
    const err = await thrownBy(() => pool.query('SELECT 1'));
    await pool.end();
    expect(isStoreUnreachable(err)).toBe(true);
    const service = toServiceError(err);
    expect(service).toBeInstanceOf(StoreUnavailableError);
    expect(service).toMatchObject({ tag: 'SERVICE_UNAVAILABLE', cause: err });
    expect(answerOf(service)).toEqual({ status: 503, headers: { 'retry-after': expect.stringMatching(/^\d+$/) } });
  });

  it.runIf(pgReachable)('a backend the server terminates mid-statement (57P01) is SERVICE_UNAVAILABLE', async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    client.on('error', () => undefined); // the connection's end after the error
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const slow = thrownBy(() => client.query('SELECT pg_sleep(30)'));
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    // terminate once the statement runs (a terminate before it would fail it differently)
    for (;;) {
      const active = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", [rows[0]!.pid]); // prettier-ignore
      if (active.rowCount) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await admin.end();
    const err = await slow;
    expect(err).toMatchObject({ code: '57P01' });
    expect(toServiceError(err)).toBeInstanceOf(StoreUnavailableError);
    // and what the client says of any statement after
    const after = await thrownBy(() => client.query('SELECT 1'));
    expect(isStoreUnreachable(after)).toBe(true);
    await client.end().catch(() => undefined);
  });

  it.runIf(pgReachable)('a statement the server refuses for its own reasons stays INTERNAL_ERROR (500)', async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    const err = await thrownBy(() => client.query('SELECT 1/0'));
    await client.end();
    expect(err).toMatchObject({ code: '22012' });
    expect(isStoreUnreachable(err)).toBe(false);
    expect(answerOf(toServiceError(err))).toEqual({ status: 500, headers: {} });
    expect(isStoreUnreachable(new Error('ECONNREFUSED in a message only'))).toBe(false);
  });
});
