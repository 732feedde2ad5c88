/**
 * Fair queueing between tenants (a team, or the server's own work): waiters line up per tenant and the
 * lines are served round-robin, one waiter each in turn, so a tenant with 48 waiting does not make
 * another tenant's first waiter wait behind all of them. `createFairQueue` is the line alone (the host
 * limiter pumps it with its own rules); `createFairSlots` is a semaphore over it.
 */

/** Waiters of several tenants, served round-robin: one of each tenant with waiters in turn, FIFO within one. */
export interface FairQueue<T> {
  /** Adds `item` at the end of `tenant`'s line (a tenant with no line yet comes last in the turn). */
  push(tenant: string, item: T): void;
  /** The item whose turn is next, left in place. */
  peek(): T | undefined;
  /** Takes the item whose turn is next; its tenant goes to the end of the turn. */
  shift(): T | undefined;
  /** Takes `item` out wherever it waits; false when it is not waiting. */
  remove(item: T): boolean;
  /** Takes every item out, in no particular order. */
  drain(): T[];
  /** Items waiting, over all tenants. */
  readonly size: number;
}

/** Creates an empty fair queue. */
export function createFairQueue<T>(): FairQueue<T> {
  // a Map iterates in insertion order: its first key is the tenant whose turn it is
  const lines = new Map<string, T[]>();
  const tenantOf = new Map<T, string>();

  return {
    push(tenant, item) {
      const line = lines.get(tenant);
      if (line) line.push(item);
      else lines.set(tenant, [item]);
      tenantOf.set(item, tenant);
    },
    peek() {
      for (const line of lines.values()) return line[0];
      return undefined;
    },
    shift() {
      for (const [tenant, line] of lines) {
        const item = line.shift()!;
        lines.delete(tenant);
        if (line.length > 0) lines.set(tenant, line); // to the end of the turn
        tenantOf.delete(item);
        return item;
      }
      return undefined;
    },
    remove(item) {
      const tenant = tenantOf.get(item);
      if (tenant === undefined) return false;
      const line = lines.get(tenant)!;
      line.splice(line.indexOf(item), 1);
      if (line.length === 0) lines.delete(tenant);
      tenantOf.delete(item);
      return true;
    },
    drain() {
      const all = [...lines.values()].flat();
      lines.clear();
      tenantOf.clear();
      return all;
    },
    get size() {
      return tenantOf.size;
    },
  };
}

/** A slot taken: whether its taker waited for it and how long (ms); give it back with `release` (once). */
export interface Slot {
  queued: boolean;
  waitedMs: number;
  release(): void;
}

/** At most `concurrency` slots held at once; waiters served round-robin between tenants. */
export interface FairSlots {
  /**
   * A slot for `tenant`: at once when one is free and nobody waits, else in the tenant's turn. Rejects
   * with `signal.reason` when the signal aborts while waiting (the waiter leaves the line).
   */
  acquire(tenant: string, signal?: AbortSignal): Promise<Slot>;
  readonly running: number;
  readonly waiting: number;
}

interface Waiter {
  grant(): void;
}

/** Creates the slots; `now` measures waits (injectable for tests). */
export function createFairSlots(concurrency: number, now: () => number = () => performance.now()): FairSlots {
  let running = 0;
  const line = createFairQueue<Waiter>();

  const slot = (queued: boolean, since: number): Slot => {
    let released = false;
    return {
      queued,
      waitedMs: queued ? Math.round(now() - since) : 0,
      release() {
        if (released) return;
        released = true;
        const next = line.shift();
        if (next)
          next.grant(); // the slot passes on: `running` stays
        else running--;
      },
    };
  };

  return {
    acquire(tenant, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      const since = now();
      if (running < concurrency && line.size === 0) {
        running++;
        return Promise.resolve(slot(false, since));
      }
      return new Promise<Slot>((resolve, reject) => {
        const onAbort = () => {
          line.remove(waiter);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(slot(true, since));
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        line.push(tenant, waiter);
      });
    },
    get running() {
      return running;
    },
    get waiting() {
      return line.size;
    },
  };
}
