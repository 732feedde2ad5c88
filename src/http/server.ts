/**
 * The HTTP door (Hono on Node's http server): REST at the spec's paths, MCP streamable HTTP at /mcp,
 * /health and /openapi.json, on one listener. Every response carries `x-request-id`.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import type { Door } from '../compose/door.js';
import { httpDoorOf } from './door.js';
import { ServiceError } from '../errors.js';
import { newRequestId } from '../ops/invoke.js';
import type { Operation } from '../ops/define-op.js';
import { OPERATIONS } from '../ops/registry.js';
import { withoutContent } from '../lib/logger.js';
import { resolveTools } from '../mcp/selection.js';
import { releaseRequests } from './rate-limit.js';
import { VERSION } from '../version.js';
import { storeIdentity } from '../core/status/store-identity.js';
import { errorBodyFor, errorResponse } from './errors.js';
import type { HttpEnv } from './env.js';
import { mountMcp } from './mcp.route.js';
import { mountOAuth } from './oauth/routes.js';
import { buildOpenApi } from './openapi.js';
import { mountOperations } from './rest.js';
import { traceRequests } from './trace.js';
import { mountConsole } from './console/routes.js';
import { mountResponses } from './responses/routes.js';
import { mountMetrics } from './metrics.route.js';
import { observeRequests } from './request-metrics.js';
import { createX402Setup } from './x402/payment.js';
import { createDrain, type Drain, type DrainOutcome } from './drain.js';

/** An incoming `x-request-id` is kept when it is a sane token (tracing through a proxy); else a new one. */
const SANE_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** The logger of the door's lines about a request: content-free once the caller is a zero-retention team's. */
const requestLogger = (app: Door, c: Context<HttpEnv>) =>
  c.get('zeroRetention') ? withoutContent(app.logger) : app.logger;

/** Probes that come every few seconds from load balancers: kept out of the info log. */
const PROBES = new Set(['/health', '/ready']);
/** The `Retry-After` of a `/ready` that answers 503, in seconds. */
const READY_RETRY_S = '5';

/**
 * The Hono app of the HTTP door (all operations, or those given); `fetch` is its whole interface. Its
 * long event streams end when `drain` begins (./drain.ts).
 */
export function createHttpApp(
  app: Door,
  operations: readonly Operation[] = OPERATIONS,
  drain: Pick<Drain, 'signal'> = createDrain(),
): Hono<HttpEnv> {
  const hono = new Hono<HttpEnv>();
  let openApi: string | undefined;

  hono.use(traceRequests(app.tracing)); // a span per request, when traces are on
  hono.use(async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && SANE_ID.test(incoming) ? incoming : newRequestId();
    c.set('requestId', requestId);
    c.set('drain', drain.signal);
    const started = performance.now();
    await next();
    c.res.headers.set('x-request-id', requestId);
    const level = PROBES.has(c.req.path) ? 'debug' : 'info';
    // a zero-retention team's request line keeps the route's template, not its path
    requestLogger(app, c)[level](
      {
        requestId,
        method: c.req.method,
        route: c.req.routePath,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  });
  hono.use(releaseRequests);
  hono.use(observeRequests); // trawl_requests_total and its latencies, by door and operation

  // `store` names the data directory or database served (a hash), for `trawl doctor` run beside it
  const health = { status: 'ok', version: VERSION, store: storeIdentity(app.config) };
  hono.get('/health', (c) => c.json(health));
  // whether this process can serve now: 503 (with the failing check) while draining, or the store is gone
  hono.get('/ready', async (c) => {
    const report = await app.readiness.report();
    return report.ready ? c.json(report) : c.json(report, 503, { 'retry-after': READY_RETRY_S });
  });
  hono.get('/openapi.json', (c) => {
    openApi ??= JSON.stringify(buildOpenApi(operations, VERSION));
    return c.body(openApi, 200, { 'content-type': 'application/json' });
  });
  mountOAuth(hono, app); // Trawl's own OAuth authorization server, when TRAWL_OAUTH=on
  mountMcp(hono, app, resolveTools(app.config.tools));
  // keyless requests paid with x402, when the operator configured rails and a facilitator
  const door = httpDoorOf(app);
  mountOperations(hono, door, operations, createX402Setup(app.config, app.postJson));
  mountResponses(hono, door);
  mountConsole(hono, door); // the web console, on loopback by default (TRAWL_CONSOLE)
  mountMetrics(hono, door); // GET /metrics for admin keys, unless the metrics have their own listener

  hono.notFound((c) => {
    const err = new ServiceError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}. See GET /openapi.json.`);
    return errorResponse(c, err, c.get('requestId'), errorBodyFor(c.req.path), requestLogger(app, c));
  });
  hono.onError((err, c) =>
    errorResponse(c, err, c.get('requestId'), c.get('errorBody') ?? errorBodyFor(c.req.path), requestLogger(app, c)),
  );
  return hono;
}

/** A listening HTTP door: its URL and port, and how to drain or close it. */
export interface RunningServer {
  url: string;
  port: number;
  /**
   * Drains the listener (./drain.ts): refuses new connections, ends event streams with a retry hint,
   * lets requests in flight finish for up to `ms`, then cuts the rest. `/ready` is the caller's to flip.
   */
  drain(ms: number): Promise<DrainOutcome>;
  close(): Promise<void>;
}

/** Listens on `host:port` and resolves once the server accepts connections. */
export function startHttpServer(
  app: Door,
  host = app.config.host,
  port = app.config.port,
  operations: readonly Operation[] = OPERATIONS,
): Promise<RunningServer> {
  const drain = createDrain();
  const hono = createHttpApp(app, operations, drain);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: hono.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      const url = `http://${shownHost}:${info.port}`;
      app.auth.listening(url); // OAuth's resources are named by it, unless TRAWL_PUBLIC_URL is set
      resolve({
        url,
        port: info.port,
        drain: (ms) => drain.run(ms),
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    drain.attach(server as Server);
    server.once('error', reject);
  });
}
