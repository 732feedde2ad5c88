/**
 * `createApp(config)`: the store, caches and services of one Trawl process, with `close()`. Every door
 * (HTTP, MCP stdio, CLI commands) is built on one of these; tests build a fresh one per file.
 */
import { ConfigError, type Config } from '../config/config.js';
import { createPrices, DEFAULT_PRICES, type Prices } from '../core/pricing.js';
import { systemClock, type Clock } from '../core/context.js';
import { createConsoleSessions } from '../core/accounts/console-sessions.js';
import { coreSettingsOf } from './core-settings.js';
import { createServices } from './services.js';
import type { OperatorDoor, Workers } from './door.js';
import type { Lifecycle } from './lifecycle.js';
import type { Services } from '../core/ports.js';
import { createOpRunner } from '../ops/invoke.js';
import { createBrowserRenderer } from '../fetch/browser.js';
import type { HostLookup } from '../fetch/address-guard.js';
import { createApiClient, type ApiClient } from '../fetch/api-client.js';
import { createFetcher, DEFAULT_USER_AGENT } from '../fetch/fetcher.js';
import type { Fetcher } from '../fetch/types.js';
import { createOpenAiEmbedder, type Embedder } from '../providers/embeddings.js';
import { createOpenAiChatModel } from '../providers/model/openai-chat.js';
import type { ChatModel } from '../providers/model/types.js';
import { createWebSearchProviders, type GetJson, type WebSearchProvider } from '../providers/search/index.js';
import { createLogger, logFormatOf, type Logger } from '../lib/logger.js';
import { createSecretBox, loadOperatorKey, parsePreviousKey } from '../core/monitors/secret-box.js';
import { resealAll } from '../core/migrate/reseal.js';
import { createOAuthService } from '../core/oauth/oauth.service.js';
import { createWebhookSender, type WebhookSender } from '../fetch/webhook-sender.js';
import { createCacheStore } from '../store/sqlite/cache.js';
import { setSchemaLimits } from '../schemas/json-schema.js';
import { setSchemaTimeout } from '../core/synthesis/schema-worker.js';
import { openDatabase, type Db } from '../store/sqlite/database.js';
import { openPgStore } from '../store/pg/database.js';
import { createSharedStore, type SharedStore } from '../store/pg/stores.js';
import { sqliteStores } from '../store/sqlite/stores.js';
import type { Stores } from '../store/contracts/stores.js';
import { redactUrl } from '../lib/redact.js';
import { noTracing, type Tracing } from '../lib/tracing.js';
import { startTracing } from '../observe/tracing/start.js';
import { VERSION } from '../version.js';
import { createDoorAuth } from './auth.js';
import { checkReplicaCopy } from './replica-copy.js';
import { recordCopyEpoch } from '../store/sqlite/replica-copy.js';
import { metricsSources } from './metrics.js';
import { readinessOf } from './readiness.js';
import { observedEmbedder, observedModel, observedSearch } from './observed-providers.js';
import { createMetricsExporter } from '../observe/metrics/exporter.js';
import { tracedProviders, tracedStores, tracedWebhookSender } from './traced.js';

/**
 * The app: what its doors use (./door.ts), and, for the composition root and tests, the services' record
 * and the store's handles.
 */
export interface App extends OperatorDoor {
  /** Every service by name: the composition root's record (tests read it too); a door never sees it. */
  services: Services;
  /** This machine's SQLite database: the whole store, or with PostgreSQL a replica's derived copy. */
  db: Db;
  /** The durable repositories, on SQLite or PostgreSQL. */
  stores: Stores;
  /** The shared PostgreSQL store of a replica (`TRAWL_DATABASE_URL`); absent on SQLite. */
  shared?: SharedStore;
}

export interface AppOptions {
  logger?: Logger;
  clock?: Clock;
  /** A fetcher built elsewhere (benchmarks share one); default: one from the config. */
  fetcher?: Fetcher;
  /** How host names are resolved by the fetcher and the webhook sender (default: the system resolver). */
  lookup?: HostLookup;
  /**
   * Threads that analyze batches of documents (default: the cores less one, which is left to the thread
   * that answers requests). A bulk command that answers none (`trawl import`) gives every core, and
   * the threads then start with the document writer rather than at its first batch.
   */
  analysisThreads?: number;
  /** The shared PostgreSQL store (opened by `openApp` when `TRAWL_DATABASE_URL` is set), closed with the app. */
  shared?: SharedStore;
  /**
   * With a shared store, whether this process keeps this machine's copy of the documents and indexes
   * following the shared log (default: yes; a bulk command that answers no searches says no).
   */
  follow?: boolean;
  /** The process's tracing port (`openApp` starts it from the OTEL settings); default: traces off. */
  tracing?: Tracing;
}

/** Providers the operator configured: embeddings, a language model and web-search APIs, over one JSON client. */
function createProviders(
  config: Config,
  userAgent: string,
  logger: Logger,
): {
  embedder?: Embedder;
  model?: ChatModel;
  webSearch: WebSearchProvider[];
  postJson: ApiClient['postJson'];
  getJson: GetJson;
  close(): Promise<void>;
} {
  // a model may think longer than the client's default 60 s before its headers or between chunks
  const patience = Math.max(60_000, config.modelTimeoutMs);
  const client = createApiClient({
    userAgent,
    logger,
    headersTimeoutMs: patience,
    bodyTimeoutMs: patience,
  });
  const model = config.modelBaseUrl
    ? observedModel(
        createOpenAiChatModel({
          baseUrl: config.modelBaseUrl,
          apiKey: config.modelApiKey,
          model: config.model,
          post: client.postJson,
          postStream: client.postStream,
          timeoutMs: config.modelTimeoutMs,
          logger,
        }),
      )
    : undefined;
  const embedder = config.embeddingsUrl
    ? observedEmbedder(
        createOpenAiEmbedder({
          baseUrl: config.embeddingsUrl,
          apiKey: config.embeddingsApiKey,
          model: config.embeddingsModel,
          post: client.postJson,
        }),
      )
    : undefined;
  // every provider call is counted and timed (trawl_provider_calls_total)
  const webSearch = createWebSearchProviders(config, { getJson: client.getJson, postJson: client.postJson }).map(observedSearch); // prettier-ignore
  return {
    embedder,
    model,
    webSearch,
    postJson: client.postJson,
    getJson: client.getJson,
    close: () => client.close(),
  };
}

/** x402 payments: rails and a facilitator both configured, or neither (a half configuration fails fast). */
function checkX402(config: Config): void {
  if (Boolean(config.x402Rails) !== Boolean(config.x402FacilitatorUrl)) {
    throw new ConfigError(
      'x402 needs both TRAWL_X402_RAILS (what is accepted) and TRAWL_X402_FACILITATOR_URL (who verifies and settles); set both or neither.',
    );
  }
  // the HTTP door builds the facilitator client; a URL it cannot use fails here, before anything is opened
  const url = config.x402FacilitatorUrl;
  if (url && !['http:', 'https:'].includes(new URL(url).protocol)) {
    throw new ConfigError('TRAWL_X402_FACILITATOR_URL must be an http(s) URL.');
  }
}

/** Signing in through an organisation's issuer needs Trawl's own authorization server and its client at the issuer. */
function checkOidc(config: Config): void {
  if (!config.oidcIssuer) return;
  const missing = [
    ...(config.oauth === 'on' ? [] : ['TRAWL_OAUTH=on']),
    ...(config.oidcClientId ? [] : ['TRAWL_OIDC_CLIENT_ID']),
    ...(config.oidcClientSecret ? [] : ['TRAWL_OIDC_CLIENT_SECRET']),
  ];
  if (missing.length === 0) return;
  throw new ConfigError(
    `TRAWL_OIDC_ISSUER (sign-in through your organisation's issuer) also needs ${missing.join(', ')}: Trawl's client id and secret at the issuer, registered with the redirect URI <TRAWL_PUBLIC_URL>/oauth/federated/callback.`,
  );
}

/** The fetcher of the config: user agent, SSRF guard, size cap, robots.txt, and a browser if configured. */
function createAppFetcher(config: Config, userAgent: string, logger: Logger, lookup: HostLookup | undefined): Fetcher {
  const guard = {
    allowPrivateNetwork: config.allowPrivateNetwork,
    privateAllowlist: config.privateAllowlist,
    lookup,
  };
  const browser = config.browser
    ? createBrowserRenderer({ executablePath: config.browser, guard, userAgent, logger })
    : undefined;
  return createFetcher({
    userAgent,
    ...guard,
    maxBodyBytes: config.fetchMaxBytes,
    robots: config.robots,
    browser,
    logger,
  });
}

/**
 * The webhook sender of the config: HTTPS and the SSRF guard unless insecure webhooks are allowed. The
 * page fetches' allowlist (TRAWL_PRIVATE_ALLOWLIST) does not apply: a webhook needs a public endpoint.
 */
function createAppWebhookSender(config: Config, userAgent: string, options: AppOptions): WebhookSender {
  return createWebhookSender({
    requireHttps: !config.allowInsecureWebhooks,
    guard: { allowPrivateNetwork: config.allowInsecureWebhooks, privateAllowlist: [], lookup: options.lookup },
    timeoutMs: config.webhookTimeoutMs,
    userAgent,
  });
}

/** Limits of caller JSON Schemas and the schema worker's deadline: process-wide, as the request schemas are. */
function configureCallerSchemas(config: Config): void {
  setSchemaLimits({
    maxBytes: config.maxSchemaBytes,
    maxDepth: config.maxSchemaDepth,
    maxEnumValues: config.maxSchemaEnumValues,
    maxProperties: config.maxSchemaProperties,
    maxSubschemas: config.maxSchemaSubschemas,
  });
  setSchemaTimeout(config.schemaTimeoutMs);
}

/** The price table: TRAWL_PRICES over the defaults; a name the table lacks stops start-up, naming it. */
function pricesOf(config: Config): Prices {
  const overrides = config.prices ?? {};
  const unknown = Object.keys(overrides).filter((name) => !Object.hasOwn(DEFAULT_PRICES, name));
  if (unknown.length > 0) {
    const names = unknown.map((name) => `${name}: unknown field`).join('; ');
    throw new ConfigError(
      `Invalid TRAWL_PRICES (--prices): ${names}. The names are those of the price table in docs/accounts.md.`,
    );
  }
  return createPrices(overrides as Partial<Prices>);
}

/**
 * The app of `config`, its store opened first: PostgreSQL when `TRAWL_DATABASE_URL` is set (connected,
 * migrated under a lock, refused when newer than this code, with `TRAWL_SECRET_KEY` required), else the
 * data directory's SQLite. Every command builds its app here.
 */
export async function openApp(config: Config, options: AppOptions = {}): Promise<App> {
  // traces, when an OTLP endpoint is set: the SDK is imported here, and only then (docs/operations.md#traces)
  options = { ...options, tracing: options.tracing ?? (await startTracingOf(config)) };
  if (!config.databaseUrl || options.shared) return createApp(config, options);
  checkSharedSecret(config);
  const where = redactUrl(config.databaseUrl);
  const pg = await openPgStore(config.databaseUrl, {
    schema: config.databaseSchema,
    max: config.databasePoolSize,
  }).catch((err: unknown) => {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`Cannot open the PostgreSQL store at ${where} (schema ${config.databaseSchema}): ${why}`);
  });
  const shared = createSharedStore(pg);
  try {
    // a copy built from another incarnation of the store (a pg_restore since) is removed before it is opened
    const copy = await checkReplicaCopy(pg.pool, config.dataDir);
    const app = createApp(config, { ...options, shared });
    recordCopyEpoch(app.db, copy.epoch);
    if (copy.rebuilt) {
      app.logger.warn({ dataDir: config.dataDir }, `${copy.rebuilt}: this machine's copy was removed and is built again from the shared store`); // prettier-ignore
    }
    if (copy.rebased > 0) {
      app.logger.warn({ rows: copy.rebased }, "log rows restored from a server ahead of this one were moved to this server's transaction ids"); // prettier-ignore
    }
    return app;
  } catch (err) {
    await shared.close();
    throw err;
  }
}

/** The tracing port of the OTEL settings: traces off (no SDK loaded) unless an OTLP endpoint is set. */
function startTracingOf(config: Config): Promise<Tracing> {
  return startTracing({
    endpoint: config.otlpEndpoint,
    tracesEndpoint: config.otlpTracesEndpoint,
    disabled: config.otelSdkDisabled,
    propagate: config.tracePropagate,
    serviceVersion: VERSION,
  });
}

/**
 * Replicas share sealed webhook secrets, so they must share the key that seals them: a key file made in
 * one machine's data directory would leave the others unable to open them.
 */
function checkSharedSecret(config: Config): void {
  if (config.secretKey) return;
  throw new ConfigError(
    'TRAWL_DATABASE_URL needs TRAWL_SECRET_KEY: every replica seals and opens webhook secrets in the shared ' +
      'database with one operator key, which a data directory of its own cannot give them. Make one with ' +
      '`openssl rand -base64 32` and give the same value to every replica (and to `trawl migrate`).',
  );
}

/** The process's logger for `config`: its level, and JSON or readable lines (`TRAWL_LOG_FORMAT`; colours on a terminal unless NO_COLOR). */
export function loggerOf(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  const format = logFormatOf(config.logFormat);
  return createLogger(config.logLevel, 2, format, process.stderr.isTTY === true && !process.env.NO_COLOR);
}

/**
 * The app of `config` over stores already open: `options.shared` (from `openApp`) or the data
 * directory's SQLite. Synchronous, for tests and tools that build apps directly on SQLite.
 */
export function createApp(config: Config, options: AppOptions = {}): App {
  if (config.databaseUrl && !options.shared) {
    throw new ConfigError('TRAWL_DATABASE_URL is set: open the app with openApp, which connects to PostgreSQL first.');
  }
  checkX402(config); // before anything is opened
  checkOidc(config);
  const prices = pricesOf(config);
  configureCallerSchemas(config);
  const logger = options.logger ?? loggerOf(config);
  const clock = options.clock ?? systemClock;
  const db = openDatabase(config.dataDir);
  const { shared } = options;
  const tracing = options.tracing ?? noTracing;
  const stores = tracedStores(tracing, shared?.stores ?? sqliteStores(db));
  const cache = shared?.cache ?? createCacheStore(config.dataDir);
  // TRAWL_USER_AGENT, else the fetcher's own (it names this version), for every request the app makes
  const userAgent = config.userAgent ?? DEFAULT_USER_AGENT;
  const fetcher = options.fetcher ?? createAppFetcher(config, userAgent, logger, options.lookup);
  const providers = tracedProviders(tracing, createProviders(config, userAgent, logger));
  const webhookSender = tracedWebhookSender(tracing, createAppWebhookSender(config, userAgent, options));
  // during a rotation, TRAWL_SECRET_KEY_PREVIOUS still opens what the old key sealed (`trawl secrets reseal`)
  const secretBox = createSecretBox(
    loadOperatorKey({ configured: config.secretKey, dataDir: config.dataDir }),
    parsePreviousKey(config.secretKeyPrevious),
  );
  const { services, lifecycle } = createServices({
    db,
    stores,
    replica: shared && { shared, follow: options.follow ?? true, pollMs: config.pollMs },
    sharedEmbeddings: shared?.embeddings,
    cache,
    clock,
    logger,
    fetcher,
    embedder: providers.embedder,
    webSearch: providers.webSearch,
    model: providers.model,
    synthesis: {
      preferClientModel: config.modelPrefer === 'client',
      price: { input: config.modelInputPrice, output: config.modelOutputPrice },
      maxTokens: config.modelMaxTokens,
    },
    prices,
    secretBox,
    webhookSender,
    status: { settings: config, getJson: providers.getJson },
    analysisThreads: options.analysisThreads,
    settings: coreSettingsOf(config),
  });
  const { tasks } = services;
  const auth = createDoorAuth({ config, keys: services.keys, clock, userAgent, lookup: options.lookup });
  const oauth = createOAuthService({
    repo: stores.oauth,
    buckets: stores.rateBuckets,
    box: secretBox,
    keys: services.keys,
    clock,
    logger,
  });
  // Trawl's own authorization server (TRAWL_OAUTH=on): its tokens verified with its keys, named by the door's public URL
  if (config.oauth === 'on') auth.useOwnIssuer(oauth.issuerAt(() => auth.publicUrl()));
  let closed = false;
  const stops: (() => void | Promise<void>)[] = [];
  // GET /metrics: prom-client loads on the first scrape; the store-backed gauges are read then
  const metrics = createMetricsExporter({
    sources: metricsSources({ db, stores, services, lifecycle, replica: Boolean(shared), now: () => clock.now().getTime() }), // prettier-ignore
    logger,
  });
  return {
    config,
    metrics,
    readiness: readinessOf(config, db, shared, lifecycle),
    postJson: providers.postJson,
    logger,
    clock,
    db,
    stores,
    shared,
    services,
    ops: createOpRunner(services, tracing),
    tracing,
    keys: services.keys,
    auth,
    accounts: services.accounts,
    agentRuns: services.agentRuns,
    answerSnapshots: services.answerSnapshots,
    operator: {
      audit: services.audit,
      monitors: services.monitors,
      crawl: services.crawl,
      imports: services.imports,
      indexer: services.indexer,
      searchIndex: services.searchIndex,
      documents: services.documents,
      code: services.code,
      retention: services.retention,
    },
    workers: workersOf(services, lifecycle, logger),
    secrets: { reseal: () => resealAll(stores.sealed, secretBox) },
    tasks,
    oauth,
    consoleSessions: createConsoleSessions(stores.consoleSessions, services.keys, clock, {
      idleMs: config.consoleSessionIdleMinutes * 60_000,
    }),
    onClose: (stop) => void stops.push(stop),
    async close() {
      if (closed) return;
      closed = true;
      // in-process tasks end first (interrupted), before the clients their work uses wait for it
      await tasks.stop();
      // the console's crawls, imports and code indexes stop (interrupted) while their store and fetcher are open
      await services.operatorJobs.stop();
      for (const stop of stops) await stop();
      await services.monitors.engine.stop();
      await services.agentRuns.engine.stop();
      await services.retention.stop();
      await services.semantic?.stop();
      await services.codeSemantic?.stop();
      await fetcher.close();
      await providers.close();
      await auth.close();
      await webhookSender.close();
      await cache.close();
      await lifecycle.stopIndexWorkers();
      db.close();
      await shared?.close();
      await tracing.shutdown(); // the spans still buffered are exported
      logger.flush();
    },
  };
}

/** The background work a serving command starts: index followers and embedders, then the job engines. */
function workersOf(services: Services, lifecycle: Lifecycle, logger: Logger): Workers {
  return {
    startIndexing() {
      // a replica on PostgreSQL: documents other replicas write reach this machine's indexes
      lifecycle.followShared();
      // new pages and chunks are embedded in the background when an embeddings provider is configured
      services.semantic?.start();
      services.codeSemantic?.start();
      // an upgrade that changed the index format left it empty: rebuilt from the stored documents
      void lifecycle.rebuildMarkedIndexes().catch((err: unknown) => logger.error({ err }, 'index rebuild failed'));
    },
    startEngines({ monitors }) {
      // a slot, a run and a delivery are claimed by exactly one process, so every process may run them
      if (monitors) services.monitors.engine.start();
      services.agentRuns.engine.start(); // queued runs, and runs of a stopped process
      services.retention.start(); // the periodic sweep: one process of those sharing the store at a time
    },
    async stopEngines() {
      // agent runs first: another replica resumes them while the rest stops
      await services.agentRuns.engine.stop();
      await services.monitors.engine.stop();
      await services.retention.stop();
    },
  };
}
