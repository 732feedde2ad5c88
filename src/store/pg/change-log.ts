/**
 * What the PostgreSQL logs replicas follow (documents, code) have in common. A write records its
 * transaction's id and a sequence number; a reader takes rows below its snapshot's xmin in (transaction,
 * sequence) order, so no later write lands behind a position already read (document-log.ts says
 * why). Writers `pg_notify` a channel when they commit, and a follower waits on it with a connection of
 * its own (LISTEN needs one outside the pool, and outside PgBouncer's transaction pooling): a
 * notification that comes while nobody waits makes the next wait return at once; so does the first wait
 * on a new connection (a write between the follower's read and the LISTEN would otherwise wake nobody
 * until the next poll); a lost connection is made again at the next wait.
 */
import pg from 'pg';
import type { LogPosition } from '../contracts/change-log.js';

/**
 * The rows of a log table (alias `t`, columns `change_xid` and `change_seq`) after a position, with the
 * rule that keeps the order final: `$1` and `$2` are `logAfter(position)`; order by `logOrder(t)`.
 */
export const logWindow = (t: string): string =>
  `${t}.change_xid < pg_snapshot_xmin(pg_current_snapshot()) AND (${t}.change_xid, ${t}.change_seq) > ($1::xid8, $2::bigint)`;

/** The order rows of a log are read in. */
export const logOrder = (t: string): string => `${t}.change_xid, ${t}.change_seq`;

/** The parameters `$1`, `$2` of `logWindow`: from the start when `after` is null. */
export const logAfter = (after: LogPosition | null): [string, number] => [after?.xid ?? '0', after?.seq ?? -1];

/** Where a reader of `rows` (read after `after`, in log order) stands next: after the last row, else still at `after`. */
export function logNext(rows: { xid: string; change_seq: number }[], after: LogPosition | null): LogPosition | null {
  const last = rows.at(-1);
  return last ? { xid: last.xid, seq: last.change_seq } : after;
}

/** Waits on one channel of a log. */
export interface LogListener {
  /** Resolves when a writer notifies, after `timeoutMs`, or when `signal` aborts (whichever is first). */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** Ends the listening connection. */
  close(): Promise<void>;
}

/**
 * A channel's name per schema, as SQL (`'trawl_<log>_' || current_schema()`): stores in different
 * schemas do not wake each other.
 */
export const channelSql = (log: string): string => `'trawl_${log}_' || current_schema()`;

/** Listens on the channel `channelSql` names, on a connection like `pool`'s, from the first wait. */
export function createLogListener(pool: pg.Pool, channel: string): LogListener {
  let wake: (() => void) | null = null;
  let pending = false; // a notification came while nobody waited: the next wait returns at once
  let listener: Promise<pg.Client> | null = null;
  let current: pg.Client | null = null; // the client `listener` resolved to
  const listen = async () => {
    const client = new pg.Client({ connectionString: pool.options.connectionString, options: pool.options.options });
    // heard from the start, and for the client's whole life: the server ending the connection (a restart)
    // is an 'error' event, which ends the process when nobody listens. A lost connection is made again at
    // the next wait; polling covers the gap.
    client.on('error', () => {
      if (current === client) [current, listener] = [null, null];
      void client.end().catch(() => undefined);
    });
    await client.connect();
    try {
      const { rows } = await client.query<{ channel: string }>(`SELECT ${channel} AS channel`);
      client.on('notification', () => {
        if (wake) wake();
        else pending = true;
      });
      await client.query(`LISTEN "${rows[0]!.channel}"`);
      current = client;
      return client;
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  };
  return {
    async changed(timeoutMs, signal) {
      const fresh = listener === null;
      listener ??= listen().catch((err: unknown) => {
        listener = null; // tried again at the next wait
        throw err;
      });
      await listener;
      // a LISTEN just made: a write committed after the caller's last read but before it was active
      // notified nobody, so the caller reads again now (and from here on every commit wakes it)
      if (fresh || pending) {
        pending = false;
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, timeoutMs);
        signal?.addEventListener('abort', done, { once: true });
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          wake = null;
          resolve();
        }
        wake = done;
        if (signal?.aborted) done();
      });
    },
    async close() {
      const client = await listener?.catch(() => null);
      [current, listener] = [null, null];
      await client?.end();
    },
  };
}
