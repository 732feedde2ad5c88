/**
 * The metrics' own listener (`TRAWL_METRICS_LISTEN`): `GET /metrics` without a key, nothing else, on a
 * loopback address unless the operator allowed another (`TRAWL_METRICS_PUBLIC`). The primary of
 * `--workers N` serves the workers' metrics summed (prom-client's AggregatorRegistry).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHostname } from '../../lib/loopback.js';
import type { Logger } from '../../lib/logger.js';
import { loadPromClient, type Scrape } from './exporter.js';

/** A listening metrics listener. */
export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/** Throws unless `host` is loopback or a public listener was allowed; the message names both settings. */
export function checkMetricsHost(host: string, allowPublic: boolean): void {
  if (allowPublic || isLoopbackHostname(host)) return;
  throw new Error(
    `TRAWL_METRICS_LISTEN (--metrics-listen) is on ${host}, not a loopback address: the metrics listener asks no key. ` +
      'Set TRAWL_METRICS_PUBLIC=true (--metrics-public) to serve it there anyway (behind a firewall), or listen on 127.0.0.1.',
  );
}

/** Listens on `host:port`, answering `GET /metrics` with `scrape()`; resolves once it accepts connections. */
export function startMetricsListener(
  where: { host: string; port: number; allowPublic: boolean },
  scrape: () => Promise<Scrape>,
  logger: Logger,
): Promise<MetricsListener> {
  checkMetricsHost(where.host, where.allowPublic);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n'); // prettier-ignore
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    scrape().then(
      (s) => res.writeHead(200, { 'content-type': s.contentType }).end(req.method === 'HEAD' ? undefined : s.text),
      (err: unknown) => {
        logger.error({ err }, 'metrics scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('The scrape failed; see the server log.\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => {
      const info = server.address() as AddressInfo;
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}/metrics`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** The primary of `--workers N`: every worker's metrics, gathered over the cluster's channel and summed. */
export async function clusterScrape(): Promise<() => Promise<Scrape>> {
  const prom = await loadPromClient();
  const aggregator = new prom.AggregatorRegistry();
  return async () => ({ contentType: aggregator.contentType, text: await aggregator.clusterMetrics() });
}
