/**
 * What a door (HTTP, MCP, CLI) is built on: the operations, run with the services each declares; the few
 * services a door answers with itself (keys and accounts for who calls, agent runs and answer snapshots
 * for what the doors present); the settings, logger and clock, the JSON client a door calls out with,
 * and the app's close. Neither the services' record (src/core/ports.ts) nor the store's handles (the
 * database, the repositories, the shared PostgreSQL store) are part of it.
 */
import type { Config } from '../config/config.js';
import type { Accounts } from '../core/accounts/accounts.service.js';
import type { KeysService } from '../core/accounts/keys.service.js';
import type { ConsoleSessions } from '../core/accounts/console-sessions.js';
import type { AgentRunsService } from '../core/agent/agent-runs.service.js';
import type { OwnIssuer } from '../core/accounts/oauth.js';
import type { Caller, Clock } from '../core/context.js';
import type { TaskJobs } from '../core/jobs/tasks.js';
import type { OAuthService } from '../core/oauth/oauth.service.js';
import type { ResealReport } from '../core/migrate/reseal.js';
import type { Services } from '../core/ports.js';
import type { AnswerSnapshots } from '../core/snapshots/answer-snapshots.js';
import type { ApiClient } from '../fetch/api-client.js';
import type { Logger } from '../lib/logger.js';
import type { Tracing } from '../lib/tracing.js';
import type { OpRunner } from '../ops/invoke.js';
import type { Readiness } from '../core/status/readiness.js';
import type { MetricsExporter } from '../observe/metrics/exporter.js';

/** The two resources a token may be for: `/mcp`, and the REST API (`/`). */
export type OAuthResource = 'mcp' | 'rest';

/** OAuth on the HTTP door (./auth.ts): resources, the issuers trusted, and their tokens' verification. */
export interface DoorAuth {
  /** Whether access tokens are accepted: Trawl's own authorization server is on, or TRAWL_AUTH_ISSUER is set. */
  enabled(): boolean;
  /** The URL clients reach the door at: TRAWL_PUBLIC_URL, else the listener's (no trailing slash). */
  publicUrl(): string;
  /** The listener's URL, told once it is bound (the default public URL, with the port it bound). */
  listening(url: string): void;
  /** The listener's own URL (the server calling itself, as the console's sign-in does), once bound. */
  localUrl(): string | undefined;
  /** The URL naming a resource: `<public url>/mcp` or `<public url>/` (RFC 8707, RFC 9728). */
  resource(kind: OAuthResource): string;
  /** The issuers whose tokens are accepted, for the protected-resource metadata. */
  authorizationServers(): string[];
  /**
   * The caller an access token stands for at a resource (core/accounts/oauth.ts): INVALID_API_KEY for a
   * token refused, IDENTITY_NOT_MAPPED for a person of no team, TEAM_BLOCKED is the door's to check.
   */
  verifyToken(token: string, kind: OAuthResource): Promise<Caller>;
  /** Trusts Trawl's own authorization server (the composition root plugs it in when it is on). */
  useOwnIssuer(issuer: OwnIssuer): void;
}

export interface Door {
  config: Config;
  /**
   * JSON POST over the app's API client (timeouts, size caps, secret-free errors), for what a door calls
   * out to itself: the x402 facilitator of the HTTP door.
   */
  postJson: ApiClient['postJson'];
  logger: Logger;
  clock: Clock;
  /** Spans of the door's requests and tool calls (src/lib/tracing.ts; recording nothing when traces are off). */
  tracing: Tracing;
  /** The registry's operations, each run with only the services it declares (src/ops/invoke.ts). */
  ops: OpRunner;
  /** API keys: who a request's key is (authentication), and the first key of a new installation. */
  keys: KeysService;
  /** OAuth access tokens: the resources, the trusted issuers, and verification (./auth.ts). */
  auth: DoorAuth;
  /** Teams' metering, request rates, budgets and prices, which a door applies before an operation runs. */
  accounts: Accounts;
  /** Agent runs as the doors present them themselves: the Responses door's streams, MCP tasks, agent_run. */
  agentRuns: AgentRunsService;
  /** Answers cut to a token budget, kept so that the MCP door's cursors continue them exactly. */
  answerSnapshots: AnswerSnapshots;
  /** Tool calls that run on after their request (the MCP door presents them as MCP tasks). */
  tasks: TaskJobs;
  /** The web console's sign-in sessions (the HTTP door's cookie, src/http/console/). */
  consoleSessions: ConsoleSessions;
  /** Trawl's own OAuth authorization server, its store-side half (the HTTP door mounts it under /oauth). */
  oauth: OAuthService;
  /**
   * This process's metrics in the Prometheus text format (src/observe/metrics/): `GET /metrics`, or the
   * metrics listener; a worker of `--workers N` joins the primary's aggregation.
   */
  metrics: MetricsExporter;
  /** Whether this process can serve (`GET /ready`), and the switch a SIGTERM flips (core/status/readiness.ts). */
  readiness: Readiness;
  /**
   * Runs `stop` first when the app closes, before its engines, fetcher and model clients: for work a
   * door started on the app (MCP tasks), which must end before the clients it uses wait for it.
   */
  onClose(stop: () => void | Promise<void>): void;
  close(): Promise<void>;
}

/**
 * What the operator's commands (the CLI) use besides a door's: the bulk tools and records that no route
 * serves (crawls, imports, code indexing, index rebuilds, monitors' and audit listings), acting as the
 * operator of the installation.
 */
export type OperatorTools = Pick<
  Services,
  'audit' | 'monitors' | 'crawl' | 'imports' | 'indexer' | 'searchIndex' | 'documents' | 'code' | 'retention'
>;

/** The background work of a serving process (`trawl serve`, `trawl mcp`), started by its command. */
export interface Workers {
  /**
   * What one process of a machine runs for its indexes: a replica follows the shared logs into this
   * machine's copy; new pages and chunks are embedded (with an embeddings provider); indexes an upgrade
   * emptied are rebuilt in the background (progress and failures in the log).
   */
  startIndexing(): void;
  /**
   * The job engines: agent runs (queued ones, and those of a stopped process), monitors when `monitors`,
   * and the periodic retention sweep.
   */
  startEngines(options: { monitors: boolean }): void;
  /**
   * Stops the job engines at once, handing back what this process holds (a SIGTERM's drain): its agent
   * runs go back to the queue for another process, monitor runs end interrupted, deliveries in flight
   * finish. The app's `close` stops them too; calling this first is for a process that drains requests.
   */
  stopEngines(): Promise<void>;
}

/** The CLI's door: a door, the operator's tools and the serving process's workers. */
export interface OperatorDoor extends Door {
  operator: OperatorTools;
  workers: Workers;
  /** The store's sealed values: `trawl secrets reseal` seals those the previous operator key sealed again. */
  secrets: { reseal(): Promise<ResealReport> };
}
