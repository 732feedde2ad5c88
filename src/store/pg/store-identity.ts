/**
 * Which incarnation of a PostgreSQL store this is, so that a replica can tell its derived copy belongs to
 * another one (issue 37): after `pg_restore` (into the same database or another, on this server or
 * another) the store is the backup's, older than what replicas copied, and their positions in the logs
 * mean nothing there.
 *
 * `trawl_store_identity` holds one row: the identity of the database it was written in (the server's
 * system identifier, the database's OID and the `documents` table's OID, all three new after a
 * pg_restore, which creates the tables anew) and an epoch, a random token. When a process opens the
 * store and finds the identity changed, the store was restored or copied: it gets a new epoch, which
 * every replica compares with the one its copy was built under (src/compose/replica-copy.ts).
 *
 * A restore onto another server also brings transaction ids from that server's history, which may be
 * ahead of this one's: rows whose `change_xid` is ahead would stay invisible to the logs' readers
 * (change-log.ts) until this server's counter passed them, so they are moved to the current transaction.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { inTransaction } from './sql.js';

/** Same key as the migrations' lock (database.ts): one process at a time checks and changes the identity. */
const IDENTITY_LOCK = 7_245_023_001;

const DDL = `CREATE TABLE IF NOT EXISTS trawl_store_identity (
  only_row  BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
  identity  TEXT NOT NULL,
  epoch     TEXT NOT NULL,
  since     TEXT NOT NULL
)`;

const LIVE_IDENTITY = `SELECT $1::text
  || ':' || (SELECT oid FROM pg_database WHERE datname = current_database())::text
  || ':' || 'documents'::regclass::oid::text AS identity`;

/** The server's system identifier; '' where a hosted server does not let a role read it (the OIDs remain). */
async function systemIdentifier(pool: pg.Pool): Promise<string> {
  try {
    return (await pool.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()')).rows[0]!.id; // prettier-ignore
  } catch {
    return '';
  }
}

/** The logs whose rows carry `change_xid` (documents and code), by table. */
const LOG_TABLES = ['documents', 'code_changes'] as const;

export interface StoreEpoch {
  /** The store's epoch now. */
  epoch: string;
  /** This open found the store restored (or copied) and gave it a new epoch. */
  restored: boolean;
  /** Rows of the logs moved to this server's current transaction id (restored from a server ahead of it). */
  rebased: number;
}

/** The store's epoch, made new when its identity changed since it was recorded (the store was restored). */
export async function checkStoreEpoch(pool: pg.Pool): Promise<StoreEpoch> {
  const system = await systemIdentifier(pool);
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [IDENTITY_LOCK]);
    await client.query(DDL);
    const live = (await client.query<{ identity: string }>(LIVE_IDENTITY, [system])).rows[0]!.identity;
    const { rows } = await client.query<{ identity: string; epoch: string }>('SELECT identity, epoch FROM trawl_store_identity'); // prettier-ignore
    let rebased = 0;
    for (const table of LOG_TABLES) {
      const moved = await client.query(
        `UPDATE ${table} SET change_xid = pg_current_xact_id() WHERE change_xid > pg_current_xact_id()`,
      );
      rebased += moved.rowCount ?? 0;
    }
    if (rows[0]?.identity === live) return { epoch: rows[0].epoch, restored: false, rebased };
    const epoch = randomBytes(12).toString('hex');
    await client.query('DELETE FROM trawl_store_identity');
    await client.query('INSERT INTO trawl_store_identity (identity, epoch, since) VALUES ($1, $2, $3)', [
      live,
      epoch,
      new Date().toISOString(),
    ]);
    return { epoch, restored: rows.length > 0, rebased };
  });
}

/** The last position of the document log (null when it is empty): a copy past it was built from another store. */
export async function documentLogEnd(pool: pg.Pool): Promise<{ xid: string; seq: number } | null> {
  const { rows } = await pool.query<{ xid: string; change_seq: number }>(
    'SELECT change_xid::text AS xid, change_seq FROM documents ORDER BY change_xid DESC, change_seq DESC LIMIT 1',
  );
  return rows[0] ? { xid: rows[0].xid, seq: rows[0].change_seq } : null;
}
