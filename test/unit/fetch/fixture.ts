/** Test helpers for the fetcher: a loopback node:http site with routes, hit counts and in-flight tracking. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFetcher, type FetcherOptions } from '../../../src/fetch/fetcher.js';
import { FetchError, type Fetcher } from '../../../src/fetch/types.js';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export interface Site {
  origin: string;
  port: number;
  /** Requests per path (without query). */
  hits: Map<string, number>;
  /** Arrival times (ms) per path. */
  arrivals: Map<string, number[]>;
  /** The most requests in flight at once. */
  maxInFlight: number;
  /** Headers of the last request per path. */
  lastHeaders: Map<string, http.IncomingHttpHeaders>;
  count(path: string): number;
  close(): Promise<void>;
}

/** Starts a site on `host`:0 serving `routes` (exact path match); unknown paths answer 404. */
export async function startSite(routes: Record<string, Handler>, host = '127.0.0.1'): Promise<Site> {
  let inFlight = 0;
  const site = {
    hits: new Map<string, number>(),
    arrivals: new Map<string, number[]>(),
    lastHeaders: new Map<string, http.IncomingHttpHeaders>(),
    maxInFlight: 0,
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    site.hits.set(path, (site.hits.get(path) ?? 0) + 1);
    site.arrivals.set(path, [...(site.arrivals.get(path) ?? []), performance.now()]);
    site.lastHeaders.set(path, req.headers);
    inFlight++;
    site.maxInFlight = Math.max(site.maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const handler = routes[path];
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    Promise.resolve(handler(req, res)).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return Object.assign(site, {
    origin,
    port,
    count: (path: string) => site.hits.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A handler answering `body` with `type` (and extra headers). */
export const send =
  (body: string | Buffer, type = 'text/html; charset=utf-8', headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': type, ...headers }).end(body);
  };

/** A handler redirecting to `location` with `status`. */
export const redirect =
  (location: string, status = 302): Handler =>
  (_req, res) => {
    res.writeHead(status, { location }).end();
  };

/** Resolves after `ms` of real time (fixture servers only; the fetcher's own waits are injected). */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A sleep that records its waits and returns at once. */
export function recordingSleep(): { waits: number[]; sleep: (ms: number, signal?: AbortSignal) => Promise<void> } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      waits.push(ms);
    },
  };
}

/** A fetcher for loopback fixtures: 127.0.0.1 allowlisted (everything else private refused), no real waits. */
export function testFetcher(options: FetcherOptions = {}): Fetcher {
  return createFetcher({
    privateAllowlist: ['127.0.0.1'],
    sleep: recordingSleep().sleep,
    random: () => 0.5,
    ...options,
  });
}

/** The FetchError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function fetchError(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof FetchError) return err;
    throw err;
  }
  throw new Error('expected a FetchError, the fetch succeeded');
}
