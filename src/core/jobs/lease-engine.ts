/**
 * The one lease engine: the jobs this process holds (an agent run, a monitor run, an MCP task, a crawl),
 * each with an AbortController and a lease in its row renewed every `leaseMs / 3` while the work goes on.
 * A renewal that finds the row no longer open or no longer this owner's (another process cancelled it,
 * or took it over) aborts the work; a store that fails to answer lets the lease lapse, and the process
 * that next recovers the kind (`recover`) ends or requeues it. A kind's store writes the lease
 * (`LeaseStore`, over store/sqlite|pg/leases.ts); what the kind does with a claimed job, and with a
 * lapsed one, stays the kind's (see README.md).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** The storage side of one kind's leases (store/sqlite/leases.ts, store/pg/leases.ts write it once). */
export interface LeaseStore {
  /** Extends job `id`'s lease to `untilMs` for `owner`; false once the job ended or is no longer the owner's. */
  renew(id: string, owner: string, untilMs: number): Promise<boolean>;
  /**
   * Whether job `id` is still open: looked at between renewals when the engine checks more often than it
   * renews (`checkMs`), so a cancel written by another process aborts the work within `checkMs`.
   */
  isOpen?(id: string): Promise<boolean>;
}

/** What a lease engine is built with. */
export interface LeaseEngineOptions {
  store: LeaseStore;
  now: () => number;
  /** How long a lease lasts without renewal; renewed every third of it. */
  leaseMs: number;
  /** How often a held job is looked at (default and at most `leaseMs / 3`: each look renews). */
  checkMs?: number;
  /** Jobs held at once (default: no limit); `room()` says whether one more fits. */
  concurrency?: number;
  /** The abort reason when a look finds the job ended elsewhere. */
  lostReason: string;
  /** A look that failed (the store is closing with the process: the lease lapses). Default: ignored. */
  onCheckError?: (err: unknown, id: string) => void;
  /** Work of the kind outside the held jobs that keeps the engine from being idle (a claim under way). */
  busy?: () => boolean;
}

/** A job this process holds: its signal, and the end of holding it. */
export interface Held {
  readonly signal: AbortSignal;
  /** Aborts the work with `reason` (the kind learned the job ended elsewhere). */
  abort(reason: string): void;
  /** Stops renewing the lease (the work returned; the job's end is being written). */
  stopRenewing(): void;
  /** Lets the job go: no more renewals, and it no longer counts as held. Call `settle` after. */
  release(): void;
}

/** The jobs of one kind held by this process. */
export interface LeaseEngine {
  /** This process as the owner of its leases (written on the rows it holds). */
  readonly owner: string;
  /** The lease a job claimed now gets. */
  leaseUntil(): number;
  /** Holds job `id`: an AbortController and a lease renewed until `release`. */
  hold(id: string): Held;
  /** Aborts job `id` if this process holds it; true when it did. */
  abort(id: string, reason: string): boolean;
  /** Aborts every held job (the process is stopping). */
  abortAll(reason: string): void;
  has(id: string): boolean;
  /** The ids of the jobs held now. */
  ids(): string[];
  readonly size: number;
  /** Whether one more job fits under `concurrency`. */
  room(): boolean;
  /**
   * Ends or requeues the lapsed jobs `lapsed` returns (their process died), skipping those this process
   * holds (alive: a renewal is just late); `handle` says whether it wrote anything.
   */
  recover<R extends { id: string }>(
    lapsed: (nowMs: number) => Promise<R[]>,
    handle: (row: R, nowMs: number) => Promise<boolean>,
  ): Promise<boolean>;
  /** Wakes the `idle` waiters if nothing is held and the kind is not `busy`. */
  settle(): void;
  /** Resolves once nothing is held and the kind is not busy, or after `ms` if given. */
  idle(ms?: number): Promise<void>;
}

/** A process-unique owner id: host, pid and a random part (two engines of one process differ). */
export function newOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * Whether `owner` (a `newOwner` id) is a process of this host that no longer runs: a killed command's
 * lease is then free at once rather than when it lapses. Another host's process, or one that cannot be
 * told, is taken to be alive (its lease lapses as usual).
 */
export function holderGone(owner: string): boolean {
  const parts = owner.split(':');
  const pid = parts.at(-2);
  const host = parts.slice(0, -2).join(':');
  if (host !== hostname() || !/^\d+$/.test(pid ?? '') || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0); // signal 0: only asks whether the process exists
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export function createLeaseEngine(options: LeaseEngineOptions, owner: string = newOwner()): LeaseEngine {
  const { store, leaseMs } = options;
  const checkMs = Math.min(options.checkMs ?? leaseMs / 3, leaseMs / 3);
  /** Looks between renewals: a job is renewed every this many looks, and only looked at otherwise. */
  const renewEvery = Math.max(1, Math.round(leaseMs / 3 / checkMs));
  const held = new Map<string, AbortController>();
  const waiters: (() => void)[] = [];

  const hold = (id: string): Held => {
    const controller = new AbortController();
    held.set(id, controller);
    let looks = 0;
    let looking = false;
    /** One look at a time: a slow store skips a beat rather than piling looks up. */
    const look = async () => {
      if (looking) return;
      looking = true;
      try {
        looks += 1;
        const renew = looks % renewEvery === 0 || !store.isOpen;
        const open = renew ? await store.renew(id, owner, options.now() + leaseMs) : await store.isOpen!(id);
        if (!open) controller.abort(new Error(options.lostReason));
      } catch (err) {
        options.onCheckError?.(err, id);
      } finally {
        looking = false;
      }
    };
    const timer = setInterval(() => void look(), checkMs);
    timer.unref();
    const stopRenewing = () => clearInterval(timer);
    return {
      signal: controller.signal,
      abort: (reason) => controller.abort(new Error(reason)),
      stopRenewing,
      release() {
        stopRenewing();
        if (held.get(id) === controller) held.delete(id);
      },
    };
  };

  const settle = () => {
    if (held.size === 0 && !options.busy?.()) for (const wake of waiters.splice(0)) wake();
  };

  return {
    owner,
    leaseUntil: () => options.now() + leaseMs,
    hold,
    abort(id, reason) {
      const controller = held.get(id);
      controller?.abort(new Error(reason));
      return controller !== undefined;
    },
    abortAll(reason) {
      for (const controller of held.values()) controller.abort(new Error(reason));
    },
    has: (id) => held.has(id),
    ids: () => [...held.keys()],
    get size() {
      return held.size;
    },
    room: () => held.size < (options.concurrency ?? Infinity),
    async recover(lapsed, handle) {
      const nowMs = options.now();
      let wrote = false;
      for (const row of await lapsed(nowMs)) {
        if (held.has(row.id)) continue;
        if (await handle(row, nowMs)) wrote = true;
      }
      return wrote;
    },
    settle,
    idle: (ms) =>
      new Promise<void>((resolve) => {
        const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
        settle();
      }),
  };
}
