/**
 * Per-host politeness: at most N requests in flight per host, and a minimum delay between the starts
 * of two requests to it. The waiters of a host are served round-robin between tenants (src/lib/fair-slots.ts),
 * so one tenant's flood does not hold another's first request behind all of it. One timer per waiting
 * host at most; none remains once the queues are empty.
 */
import { createFairQueue, type FairQueue } from '../lib/fair-slots.js';

export interface HostLimits {
  /** Requests to the host in flight at once (>= 1). */
  concurrency: number;
  /** Minimum ms between the starts of two requests to the host. */
  delayMs: number;
}

/** Who waits, and what to tell when it had to. */
export interface HostTurn {
  /** Aborting while queued rejects with its reason and removes the waiter. */
  signal?: AbortSignal;
  /** The tenant the request is queued under (default: the server's own work). */
  tenant?: string;
  /** Called when the request started after waiting in the host's queue, with the wait in ms. */
  onQueued?: (waitedMs: number) => void;
}

export interface HostLimiter {
  /** Runs `task` once the host has a free slot for the tenant's turn and its delay has passed; rejects with `signal.reason` if aborted while queued. */
  run<T>(host: string, limits: HostLimits, task: () => Promise<T>, turn?: HostTurn): Promise<T>;
  /** Requests in flight and queued for `host`. */
  stats(host: string): { active: number; queued: number };
  /** Rejects every queued task and clears the timers. */
  close(): void;
}

/** The tenant of work no caller asked for (crawls, imports). */
const SERVER_TENANT = 'server';

interface Waiter {
  limits: HostLimits;
  start(): void;
  fail(reason: unknown): void;
}

interface HostState {
  active: number;
  /** Earliest time the next request may start. */
  nextAt: number;
  queue: FairQueue<Waiter>;
  timer?: NodeJS.Timeout;
}

/** Idle host records kept before a sweep drops the ones whose delay has passed. */
const SWEEP_AT = 1000;

/** Creates a limiter; `now` is injectable for tests. */
export function createHostLimiter(now: () => number = Date.now): HostLimiter {
  const hosts = new Map<string, HostState>();

  const forgetIfIdle = (host: string, state: HostState) => {
    if (state.active === 0 && state.queue.size === 0 && !state.timer && state.nextAt <= now()) hosts.delete(host);
  };

  const pump = (host: string, state: HostState): void => {
    if (state.timer) return;
    for (let head = state.queue.peek(); head; head = state.queue.peek()) {
      if (state.active >= Math.max(1, head.limits.concurrency)) return;
      const wait = state.nextAt - now();
      if (wait > 0) {
        state.timer = setTimeout(() => {
          state.timer = undefined;
          pump(host, state);
        }, wait);
        return;
      }
      state.queue.shift();
      state.active++;
      state.nextAt = now() + Math.max(0, head.limits.delayMs);
      head.start();
    }
    forgetIfIdle(host, state);
  };

  const sweep = () => {
    if (hosts.size < SWEEP_AT) return;
    for (const [host, state] of hosts) forgetIfIdle(host, state);
  };

  const stateOf = (host: string): HostState => {
    let state = hosts.get(host);
    if (!state) {
      sweep();
      state = { active: 0, nextAt: 0, queue: createFairQueue() };
      hosts.set(host, state);
    }
    return state;
  };

  const removeWaiter = (host: string, state: HostState, waiter: Waiter) => {
    state.queue.remove(waiter);
    if (state.queue.size === 0 && state.timer) {
      clearTimeout(state.timer);
      state.timer = undefined;
    }
    pump(host, state);
  };

  return {
    run(host, limits, task, turn = {}) {
      const { signal } = turn;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const state = stateOf(host);
      const queuedAt = now();
      let atOnce = true; // started within this call: it did not wait
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          removeWaiter(host, state, waiter);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          limits,
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            // started later than it asked: it waited behind others (or the host's delay)
            if (!atOnce) turn.onQueued?.(now() - queuedAt);
            task()
              .then(resolve, reject)
              .finally(() => {
                state.active--;
                pump(host, state);
              });
          },
          fail: (reason) => {
            signal?.removeEventListener('abort', onAbort);
            reject(reason);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        state.queue.push(turn.tenant ?? SERVER_TENANT, waiter);
        pump(host, state);
        atOnce = false;
      });
    },
    stats(host) {
      const state = hosts.get(host);
      return { active: state?.active ?? 0, queued: state?.queue.size ?? 0 };
    },
    close() {
      for (const state of hosts.values()) {
        if (state.timer) clearTimeout(state.timer);
        state.timer = undefined;
        for (const waiter of state.queue.drain()) waiter.fail(new Error('the fetcher is closed'));
      }
      hosts.clear();
    },
  };
}
