/**
 * Test helper: proof that a SQLite write transaction ran off this thread. A second connection tries
 * `BEGIN IMMEDIATE` without a busy wait on every turn of this thread's event loop; while another
 * connection's write transaction is open the attempt fails with SQLITE_BUSY. Seeing it fail at all means
 * the loop kept turning while the transaction was open, which it cannot when the transaction runs on
 * this thread (better-sqlite3 is synchronous).
 */
import Database from 'better-sqlite3';

export interface WriteLockProbe {
  /** Stops the probe and closes its connection; how many turns found the write lock held. */
  stop(): number;
}

/** Starts probing the database file `file` on every turn of this thread's event loop. */
export function probeWriteLock(file: string): WriteLockProbe {
  const probe = new Database(file);
  probe.pragma('busy_timeout = 0');
  let locked = 0;
  let looping = true;
  const loop = () => {
    if (!looping) return;
    try {
      probe.exec('BEGIN IMMEDIATE');
      probe.exec('ROLLBACK');
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
      locked++;
    }
    setImmediate(loop);
  };
  setImmediate(loop);
  return {
    stop() {
      looping = false;
      probe.close();
      return locked;
    },
  };
}
