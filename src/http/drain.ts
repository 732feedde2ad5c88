/**
 * The HTTP door's graceful stop (SIGTERM in `trawl serve`): the listener closes at once (new connections
 * are refused), idle keep-alive connections are closed, every answer from then on carries
 * `Connection: close`, long event streams end with a `retry:` hint so their clients reconnect (with
 * `Last-Event-ID`) to another replica, and requests in flight get up to the drain time to finish before
 * their connections are cut.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** The `retry:` an event stream ends with on a drain: how soon its client reconnects, in ms. */
export const DRAIN_RETRY_MS = 1000;
/** How often idle keep-alive connections are closed while draining (one that just answered becomes idle). */
const IDLE_SWEEP_MS = 100;

/** What a drain did: requests still in flight at its deadline, whose connections were cut. */
export interface DrainOutcome {
  cut: number;
}

/** The drain of one listener. */
export interface Drain {
  /** Aborted when the drain begins: long event streams end then, with `retry: DRAIN_RETRY_MS`. */
  readonly signal: AbortSignal;
  /** Watches `server`'s requests, so those in flight are known and waited for. */
  attach(server: Server): void;
  /**
   * Stops accepting, closes idle connections, lets requests in flight finish for up to `ms`, then cuts
   * what is left. Resolves once every connection is closed.
   */
  run(ms: number): Promise<DrainOutcome>;
}

/** A drain for one listener (the HTTP door makes one per server). */
export function createDrain(): Drain {
  const controller = new AbortController();
  const inFlight = new Set<ServerResponse>();
  let server: Server | undefined;

  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };

  return {
    signal: controller.signal,
    attach(target) {
      server = target;
      target.on('request', (_req: IncomingMessage, res: ServerResponse) => {
        // a request on a kept-alive connection during the drain is answered, and its connection closed
        if (controller.signal.aborted) closeAfter(res);
        inFlight.add(res);
        res.once('close', () => inFlight.delete(res));
      });
    },
    run(ms) {
      controller.abort();
      const target = server;
      if (!target) return Promise.resolve({ cut: 0 });
      for (const res of inFlight) closeAfter(res);
      return new Promise<DrainOutcome>((resolve) => {
        let cut = 0;
        const sweep = setInterval(() => target.closeIdleConnections(), IDLE_SWEEP_MS);
        const deadline = setTimeout(() => {
          cut = inFlight.size;
          target.closeAllConnections();
        }, ms);
        target.close(() => {
          clearInterval(sweep);
          clearTimeout(deadline);
          resolve({ cut });
        });
        target.closeIdleConnections();
      });
    },
  };
}

/**
 * `events` until they end or `signal` aborts (a drain began); the caller then writes its retry hint.
 * The source is told to stop (`return`) either way.
 */
export async function* untilDrained<T>(events: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = events[Symbol.asyncIterator]();
  const drained = new Promise<'drained'>((resolve) => {
    if (signal.aborted) resolve('drained');
    else signal.addEventListener('abort', () => resolve('drained'), { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), drained]);
      if (next === 'drained' || next.done) return;
      yield next.value;
    }
  } finally {
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

/** The SSE text that ends a stream on a drain: no event, only how soon to reconnect. */
export const drainedRetry = (): string => `retry: ${DRAIN_RETRY_MS}\n\n`;
