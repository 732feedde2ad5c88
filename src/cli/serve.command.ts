/**
 * `trawl serve`: the HTTP door on the configured address, until SIGINT/SIGTERM; with `--workers N`, N
 * worker processes share the port (node:cluster) and the primary only supervises them.
 */
import { consoleEnabled } from '../http/console/routes.js';
import cluster from 'node:cluster';
import fs from 'node:fs';
import path from 'node:path';
import { openDoor } from '../compose/open.js';
import type { Door, OperatorDoor } from '../compose/door.js';
import type { Config } from '../config/config.js';
import { startHttpServer, type RunningServer } from '../http/server.js';
import { checkToolsSetting } from '../mcp/selection.js';
import { restrictFile } from '../lib/private-files.js';
import { isLoopbackHostname } from '../lib/loopback.js';
import type { Logger } from '../lib/logger.js';
import { checkMetricsHost, clusterScrape, startMetricsListener, type MetricsListener } from '../observe/metrics/listener.js'; // prettier-ignore

export const FIRST_KEY_FILE = 'first-api-key';

/**
 * On a first start (no key ever made) creates the operator's key (every scope, `admin` included) and
 * writes it to `<dataDir>/first-api-key` (0600), telling the operator once where it is and that it is an
 * admin key. The key itself never goes to the log. A file left from an earlier start is made 0600 too.
 */
export async function ensureFirstKey(app: Door): Promise<void> {
  const file = path.join(app.config.dataDir, FIRST_KEY_FILE);
  restrictFile(file); // one left from an earlier start, written before files were kept private
  if (!app.config.createFirstKey) return;
  const made = await app.keys.createFirst('operator (first key)');
  if (!made) return;
  fs.writeFileSync(file, `${made.key}\n`, { mode: 0o600 });
  restrictFile(file); // the mode above applies only to a new file, and through the umask
  app.logger.warn(
    { keyId: made.id, file },
    `No API key existed, so one was created: the operator's key, with every scope, admin included (it manages ` +
      `every team's keys and credits; keep it to yourself). Read it with: cat ${file} — then delete the file. ` +
      'Make keys for your agents and teams with: trawl keys create --name NAME (they get every scope but admin)',
  );
}

export async function runServe(config: Config): Promise<void> {
  checkToolsSetting(config.tools); // fail fast on unknown tool names
  if (config.metricsListen) checkMetricsHost(config.metricsListen.host, config.metricsPublic);
  if (config.workers > 1 && cluster.isPrimary) return supervise(config);
  const app = await openDoor(config);
  if (cluster.isPrimary) await ensureFirstKey(app);
  // a worker of --workers N answers the primary's metrics listener; a lone process serves its own
  if (config.metricsListen && cluster.isWorker) await app.metrics.joinCluster();
  const metrics = config.metricsListen && cluster.isPrimary ? await listenForMetrics(config, app.metrics.scrape, app.logger) : undefined; // prettier-ignore
  const server = await listenOrExplain(app, config);
  // the index workers run in one process of the machine (the primary, or the first worker)
  if (cluster.isPrimary || cluster.worker?.id === 1) app.workers.startIndexing();
  // every worker runs the job engines: a slot, a run and a delivery are claimed by exactly one process
  app.workers.startEngines({ monitors: config.monitors });
  app.logger.info({ url: server.url, dataDir: config.dataDir }, `listening on ${server.url}`);
  if (consoleEnabled(config)) {
    app.logger.info({ url: `${server.url}/console` }, `web console at ${server.url}/console (sign in with an API key)`);
  }
  warnOfResourceUrl(app, config);
  onStopSignals((signal) => drainAndStop(app, server, metrics, config.drainMs, signal));
}

/**
 * Calls `stop` on the first SIGINT or SIGTERM. A second signal to a lone process stops it at once (a
 * second Ctrl-C); a worker of `--workers N` ignores it (Ctrl-C reaches it beside the primary's SIGTERM).
 */
function onStopSignals(stop: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  const on = (signal: NodeJS.Signals) => {
    if (stopping) {
      if (!cluster.isWorker) process.exit(1);
      return;
    }
    stopping = true;
    void stop(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`trawl: stopping failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
}

/**
 * The graceful stop (docs/operations.md#readiness-and-graceful-restarts): `/ready` answers 503 at once;
 * the listener refuses new connections and lets requests in flight finish for up to `drainMs`; at the
 * same time the job engines hand back what they hold (agent runs are queued again for another process
 * at once); then the app closes.
 */
async function drainAndStop(
  app: OperatorDoor,
  server: RunningServer,
  metrics: MetricsListener | undefined,
  drainMs: number,
  signal: NodeJS.Signals,
): Promise<void> {
  app.readiness.startDraining();
  app.logger.info({ signal, drainMs }, 'draining: no new connections; requests in flight may finish');
  const [drained] = await Promise.all([server.drain(drainMs), app.workers.stopEngines()]);
  if (drained.cut > 0) app.logger.warn({ cut: drained.cut }, `requests still in flight after ${drainMs} ms were cut`);
  app.logger.info('shutting down');
  await metrics?.close();
  await app.close();
}

/** A worker's exit code when its port is taken (Linux's errno of EADDRINUSE), so the primary stops. */
const EXIT_PORT_TAKEN = 98;

/** What to do when the port is taken: the cause, and the settings that pick another. */
function portTakenMessage(config: Config): string {
  return (
    `port ${config.port} on ${config.host} is taken by another program (another trawl serve? trawl doctor says what ` +
    `answers there): stop it, or listen elsewhere with --port N (TRAWL_PORT), or --port 0 for any free port.`
  );
}

/** Starts the HTTP door; a taken port closes the app and ends the process with a hint of `--port`. */
async function listenOrExplain(app: Door, config: Config) {
  try {
    return await startHttpServer(app);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    await app.close();
    if (cluster.isWorker) process.exit(EXIT_PORT_TAKEN);
    throw new Error(portTakenMessage(config));
  }
}

/**
 * The primary of `--workers N`: migrates the database and makes the first key once, forks the workers
 * (which share the port), replaces a worker that dies, and stops them all on SIGINT/SIGTERM.
 */
async function supervise(config: Config): Promise<void> {
  const app = await openDoor(config);
  await ensureFirstKey(app);
  const logger = app.logger;
  await app.close();
  // the workers' metrics, summed, on the metrics listener (each worker joins the aggregation)
  if (config.metricsListen) await listenForMetrics(config, await clusterScrape(), logger);
  let stopping = false;
  for (let i = 0; i < config.workers; i++) cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (code === EXIT_PORT_TAKEN) {
      // every worker would meet the same taken port: stop rather than fork workers that die at once
      stopping = true;
      process.stderr.write(`trawl: ${portTakenMessage(config)}\n`);
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      process.exitCode = 1;
      return;
    }
    logger.error({ worker: worker.id, code, signal }, 'a worker died; starting another');
    cluster.fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return; // the workers are draining (each within TRAWL_DRAIN_MS)
    stopping = true;
    logger.info({ signal }, 'shutting down the workers (each drains its requests)');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    const exited = () => Object.keys(cluster.workers ?? {}).length === 0;
    const wait = setInterval(() => {
      if (!exited()) return;
      clearInterval(wait);
      process.exit(0);
    }, 50);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** The metrics listener of `TRAWL_METRICS_LISTEN`, serving `scrape`; logs where it is. */
async function listenForMetrics(
  config: Config,
  scrape: () => Promise<{ contentType: string; text: string }>,
  logger: Logger,
): Promise<MetricsListener> {
  const listener = await startMetricsListener({ ...config.metricsListen!, allowPublic: config.metricsPublic }, scrape, logger); // prettier-ignore
  logger.info({ url: listener.url }, `metrics at ${listener.url}`);
  return listener;
}

/**
 * With OAuth on and no TRAWL_PUBLIC_URL, resources are named by the listener's address: right for a
 * loopback test, wrong behind a proxy or on 0.0.0.0, where tokens minted for the public URL would not
 * match. Said once at start, with the setting that fixes it. On loopback the name is still exact: a
 * client that connects to `localhost` is refused by its own check of the resource (it names
 * 127.0.0.1), so the line says which URL to give clients.
 */
function warnOfResourceUrl(app: Door, config: Config): void {
  if (!app.auth.enabled() || config.publicUrl) return;
  if (isLoopbackHostname(config.host)) {
    app.logger.info(
      { resource: app.auth.resource('mcp') },
      `OAuth names this server ${app.auth.publicUrl()}: give MCP clients ${app.auth.resource('mcp')} exactly (another name of this machine, such as localhost, is another resource to them), or set TRAWL_PUBLIC_URL to the name they use`,
    );
    return;
  }
  app.logger.warn(
    { resource: app.auth.resource('mcp') },
    `OAuth resources are named by the listener, ${app.auth.publicUrl()}: set TRAWL_PUBLIC_URL to the URL clients reach Trawl at, or their tokens' audience will not match`,
  );
}
