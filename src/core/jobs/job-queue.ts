/**
 * A kind of job claimed from a queue in the store, and the loop that claims it: one pass over the ready
 * jobs at a time, each claimed atomically under the kind's fairness rule (a key's, a team's share) while
 * this process has room, then run without waiting for it. A pass asked for while one is under way makes
 * that one pass again, so a job queued meanwhile is never left behind.
 */
import type { LeaseEngine } from './lease-engine.js';

/** A kind of job the queue claims: where its ready jobs are, its fairness rule, its claim and its work. */
export interface JobKind<R extends { id: string }> {
  /** The jobs ready to be claimed, oldest first. */
  ready(): Promise<R[]>;
  /** The fairness rule: how many jobs of `row`'s group (e.g. its key) may run at once, over all processes. */
  limitOf(row: R): Promise<number>;
  /**
   * Claims `row` for `owner` until `leaseUntilMs`, atomically and only while its group runs fewer than
   * `limit`: the claimed row, or undefined (taken by another process, ended, or no room).
   */
  claim(row: R, limit: number, owner: string, leaseUntilMs: number): Promise<R | undefined>;
  /** Starts the work of a claimed job (it holds the job through the lease engine until it ends). */
  run(row: R): void;
}

/** The claiming loop of one kind in one process. */
export interface JobQueue {
  /** Claims and starts ready jobs while there is room; resolves once those it could start are started. */
  pump(): Promise<void>;
  /** Whether a pass is under way (the lease engine is not idle meanwhile). */
  readonly pumping: boolean;
  /**
   * Claims no more (the process is stopping: what it gave back is for the next process); resolves once
   * the pass under way, if any, has ended, so every job it claimed is started (and held) by then.
   */
  stop(): Promise<void>;
}

export function createJobQueue<R extends { id: string }>(
  kind: JobKind<R>,
  leases: Pick<LeaseEngine, 'owner' | 'room' | 'leaseUntil' | 'settle'>,
): JobQueue {
  let stopped = false;
  /** The pass under way: one at a time, so this process never claims more than its share. */
  let pass: Promise<void> | null = null;
  /** A pump asked for while a pass was under way: that one passes over the queue again. */
  let again = false;

  const passOnce = async () => {
    for (const row of await kind.ready()) {
      if (stopped || !leases.room()) return;
      const claimed = await kind.claim(row, await kind.limitOf(row), leases.owner, leases.leaseUntil());
      if (claimed) kind.run(claimed);
    }
  };

  const pump = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (pass) {
      again = true;
      return pass;
    }
    pass = (async () => {
      try {
        do {
          again = false;
          await passOnce();
        } while (again && !stopped);
      } finally {
        pass = null;
        leases.settle();
      }
    })();
    return pass;
  };

  return {
    pump,
    get pumping() {
      return pass !== null;
    },
    async stop() {
      stopped = true;
      // a claim in flight when the process stops still starts its job: the caller gives it back after this
      await pass?.catch(() => undefined);
    },
  };
}
