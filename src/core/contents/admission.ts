/**
 * The admission queue of live fetches: at most `concurrency` run at once, the rest wait, served
 * round-robin between tenants (src/lib/fair-slots.ts). Each admission reports whether it waited and for
 * how long (`x-svc-queued`, `x-svc-queue-ms`); the fetch gets what is left of its deadline.
 */
import { createFairSlots } from '../../lib/fair-slots.js';

/** Whether a request's live fetches waited behind other work (admission or a host's queue), how long in all (ms), and on which hosts. */
export interface QueueWait {
  queued: boolean;
  waitedMs: number;
  /** Hosts whose politeness queue the fetches waited in (as the URL parser wrote them). */
  hosts?: string[];
}

/** The waits of two calls of one request, added up (`undefined`: no call yet). */
export function addWait(total: QueueWait | undefined, wait: QueueWait): QueueWait {
  if (!total) return { ...wait };
  const hosts = [...new Set([...(total.hosts ?? []), ...(wait.hosts ?? [])])];
  return {
    queued: total.queued || wait.queued,
    waitedMs: total.waitedMs + wait.waitedMs,
    ...(hosts.length > 0 ? { hosts } : {}),
  };
}

/** Notes a wait of `waitedMs` (on `host`, when it was a host's queue) in `wait`. */
export function noteWait(wait: QueueWait, waitedMs: number, host?: string): void {
  wait.queued = true;
  wait.waitedMs += Math.round(waitedMs);
  if (host !== undefined && !wait.hosts?.includes(host)) wait.hosts = [...(wait.hosts ?? []), host];
}

export interface Admitted<T> {
  value: T;
  queued: boolean;
  waitedMs: number;
}

export interface AdmissionQueue {
  /**
   * Runs `task` when a slot is free in `tenant`'s turn, with the ms it waited; rejects with the
   * signal's reason if aborted while waiting.
   */
  run<T>(tenant: string, task: (waitedMs: number) => Promise<T>, signal?: AbortSignal): Promise<Admitted<T>>;
  readonly running: number;
  readonly waiting: number;
}

/** A fair semaphore. `now` is injectable so waits are measured with the app's clock in tests. */
export function createAdmissionQueue(concurrency: number, now: () => number = () => performance.now()): AdmissionQueue {
  const slots = createFairSlots(concurrency, now);
  return {
    async run(tenant, task, signal) {
      const slot = await slots.acquire(tenant, signal);
      try {
        return { value: await task(slot.waitedMs), queued: slot.queued, waitedMs: slot.waitedMs };
      } finally {
        slot.release();
      }
    },
    get running() {
      return slots.running;
    },
    get waiting() {
      return slots.waiting;
    },
  };
}
