/**
 * A replica following a shared PostgreSQL log into its own SQLite copy (issue 24): it reads the log from
 * where it stopped and applies each batch in one SQLite transaction with the new position (a row of
 * `replica_state`), so a replica that stops, or dies, resumes without missing or repeating a change.
 * What a change is and how it is applied belongs to the caller (code-follower.ts: the code index).
 */
import { writeTransaction, type Db } from '../../store/sqlite/database.js';
import type { LogPosition } from '../../store/contracts/change-log.js';

/** A log as a follower reads it. */
export interface FollowedLog<T> {
  /** Up to `limit` changes after `after` (from the start when null), with the position they end at. */
  read(after: LogPosition | null, limit: number): Promise<{ changes: T[]; next: LogPosition | null }>;
  /** Resolves when a writer commits, after `timeoutMs`, or when `signal` aborts. */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<void>;
}

/** A statement to run in the transaction that applies a batch (the follower's new position). */
export interface PositionStatement {
  sql: string;
  params: unknown[];
}

/** Where a follower applies what it reads: in its own transaction (`applyNow`) or in the target's (`apply`). */
export interface FollowerTarget<T> {
  /** Optional work before applying, off the writing transaction (analysis). */
  prepare?(changes: T[]): Promise<void>;
  /** Applies a batch in the caller's SQLite transaction (on this connection). */
  applyNow?(changes: T[]): void;
  /**
   * Applies a batch and runs `position` in one transaction of the target's (the document writer's
   * thread); resolves after its commit.
   */
  apply?(changes: T[], position: PositionStatement): Promise<void>;
  /** After a batch has committed: background work it may need (merges). */
  settle?(): void;
}

export interface LogFollower {
  /**
   * Reads and applies the log until nothing is left to read now; how many changes were applied.
   * Rounds never overlap: a call made while one runs waits and reads every change committed before it,
   * and calls made while a round waits to begin share that round.
   */
  catchUp(): Promise<number>;
  /** The position applied so far (null before the first change). */
  position(): LogPosition | null;
  /** When a round last read the log to its end (null before the first). */
  caughtUpAt(): Date | null;
  /**
   * Follows the log until `signal` aborts: catches up, then waits for a writer's notification or
   * `pollMs` (which also covers writes held back by a transaction open elsewhere, and a lost listener).
   * `onError` hears a failed round or wait; the next one tries again.
   */
  run(options: { pollMs: number; signal: AbortSignal; onError?: (err: unknown) => void }): Promise<void>;
}

/** Waits `ms`, or less when `signal` aborts. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    if (signal.aborted) done();
  });

/** Follows `log` into `target`, its position kept in `replica_state` under `name`; `batch` changes a read. */
export function createLogFollower<T>(
  db: Db,
  name: string,
  log: FollowedLog<T>,
  target: FollowerTarget<T>,
  options: {
    batch: number;
    /** Told after each round that applied something (how many changes): a replica's heartbeat. */
    afterRound?: (applied: number) => void;
  },
): LogFollower {
  const read = db.prepare('SELECT value FROM replica_state WHERE name = ?').pluck();
  const saveSql =
    'INSERT INTO replica_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value';
  const save = db.prepare(saveSql);
  const saved = () => {
    const value = read.get(name) as string | undefined;
    return value ? (JSON.parse(value) as LogPosition) : null;
  };
  let at = saved(); // for position() before a round
  const applyHere = writeTransaction(db, (changes: T[], next: LogPosition) => {
    target.applyNow?.(changes);
    save.run(name, JSON.stringify(next));
  });
  const apply = async (changes: T[], next: LogPosition) => {
    if (target.apply) await target.apply(changes, { sql: saveSql, params: [name, JSON.stringify(next)] });
    else applyHere(changes, next);
  };
  let caughtUp: Date | null = null;
  const catchUp = async (): Promise<number> => {
    let applied = 0;
    // another process on this data directory (a worker of `--workers`) may have moved it on meanwhile
    at = saved() ?? at;
    for (;;) {
      const { changes, next } = await log.read(at, options.batch);
      if (!next || (next.xid === at?.xid && next.seq === at.seq)) {
        caughtUp = new Date(); // nothing more to read now
        if (applied > 0) options.afterRound?.(applied);
        return applied;
      }
      await target.prepare?.(changes);
      await apply(changes, next);
      target.settle?.();
      at = next;
      applied += changes.length;
    }
  };
  // a round asked for while another waits to begin shares it (it begins after the call, so it reads
  // every change committed before the call)
  let tail: Promise<unknown> = Promise.resolve();
  let waiting: Promise<number> | null = null;
  const round = (): Promise<number> => {
    if (waiting) return waiting;
    const mine = tail
      .catch(() => undefined)
      .then(() => {
        waiting = null;
        return catchUp();
      });
    waiting = mine;
    tail = mine;
    return mine;
  };
  const wait = async (ms: number, signal: AbortSignal, onError?: (err: unknown) => void) => {
    try {
      await log.changed(ms, signal);
    } catch (err) {
      onError?.(err); // no listener (the server unreachable): poll
      await pause(ms, signal);
    }
  };
  return {
    catchUp: round,
    position: () => at,
    caughtUpAt: () => caughtUp,
    async run({ pollMs, signal, onError }) {
      await wait(0, signal, onError); // listening before the first round, so no write between them goes unheard
      while (!signal.aborted) {
        try {
          await round();
        } catch (err) {
          onError?.(err);
        }
        if (!signal.aborted) await wait(pollMs, signal, onError);
      }
    },
  };
}
