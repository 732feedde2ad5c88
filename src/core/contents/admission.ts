/**
 * The admission queue of live fetches: at most `concurrency` run at once, the rest wait in FIFO
 * order. Each admission reports whether it waited and for how long (`x-svc-queued`, `x-svc-queue-ms`).
 */

/** Whether a request's live fetches waited in the admission queue, and how long in all (ms). */
export interface QueueWait {
  queued: boolean;
  waitedMs: number;
}

/** The waits of two calls of one request, added up (`undefined`: no call yet). */
export function addWait(total: QueueWait | undefined, wait: QueueWait): QueueWait {
  return total ? { queued: total.queued || wait.queued, waitedMs: total.waitedMs + wait.waitedMs } : { ...wait };
}

export interface Admitted<T> {
  value: T;
  queued: boolean;
  waitedMs: number;
}

export interface AdmissionQueue {
  /** Runs `task` when a slot is free; rejects with the signal's reason if aborted while waiting. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<Admitted<T>>;
  readonly running: number;
  readonly waiting: number;
}

/** A FIFO semaphore. `now` is injectable so waits are measured with the app's clock in tests. */
export function createAdmissionQueue(concurrency: number, now: () => number = () => performance.now()): AdmissionQueue {
  let running = 0;
  const waiters: { grant: () => void }[] = [];

  const acquire = (signal?: AbortSignal): Promise<boolean> => {
    if (running < concurrency && waiters.length === 0) {
      running++;
      return Promise.resolve(false);
    }
    return new Promise<boolean>((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(true);
        },
      };
      const onAbort = () => {
        const i = waiters.indexOf(waiter);
        if (i >= 0) waiters.splice(i, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted while queued'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      waiters.push(waiter);
    });
  };

  const release = () => {
    const next = waiters.shift();
    if (next) next.grant();
    else running--;
  };

  return {
    async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<Admitted<T>> {
      const started = now();
      const queued = await acquire(signal);
      const waitedMs = queued ? Math.round(now() - started) : 0;
      try {
        return { value: await task(), queued, waitedMs };
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiters.length;
    },
  };
}
