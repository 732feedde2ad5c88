/** Settings of the process: where the store is, the listener, the lease and poll of shared work, logging, request and caller-schema limits, and the MCP door's hosts, origins, tools and betas. */
import { z } from 'zod';
import { LOG_LEVELS, list, booleanish, integer } from './fields.js';

/** `HOST:PORT`, `[IPv6]:PORT` or a port alone (on 127.0.0.1), as `{host, port}`. */
const listenAddress = z.string().transform((text, ctx) => {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65535) {
    ctx.addIssue({ code: 'custom', message: 'must be HOST:PORT, [IPv6]:PORT or a port (0-65535)' });
    return z.NEVER;
  }
  const host = match[1] ?? '127.0.0.1';
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port };
});

/** Rows of SETTINGS (../settings.ts): env var, CLI flag, schema, default and the line docs/configuration.md shows. */
export const SERVER_SETTINGS = {
  host: {
    env: 'TRAWL_HOST',
    flag: '--host',
    schema: z.string().min(1),
    default: '127.0.0.1',
    doc: 'Address `trawl serve` listens on. Use `0.0.0.0` to serve a team (put TLS in front).',
  },
  port: {
    env: 'TRAWL_PORT',
    flag: '--port',
    schema: integer(0, 65535),
    default: 8787,
    doc: 'TCP port of `trawl serve`; `0` picks a free one (the log says which).',
  },
  dataDir: {
    env: 'TRAWL_DATA_DIR',
    flag: '--data-dir',
    schema: z.string().min(1),
    default: undefined,
    doc: 'Directory of the SQLite database and caches. Default: the per-user data directory (`~/.local/share/trawl` on Linux, `~/Library/Application Support/trawl` on macOS, `%LOCALAPPDATA%\\trawl\\Data` on Windows).',
  },
  databaseUrl: {
    env: 'TRAWL_DATABASE_URL',
    flag: '--database-url',
    schema: z
      .string()
      .min(1)
      .refine((url) => /^postgres(ql)?:\/\//.test(url), 'must be a postgres:// or postgresql:// URL'),
    default: undefined,
    doc: 'PostgreSQL (15 or later) as the store of everything durable, shared by every replica pointing at it (docs/operations.md). Needs `TRAWL_SECRET_KEY`. Unset: embedded SQLite in the data directory. Never logged; a password in it stays out of every message.',
  },
  databaseSchema: {
    env: 'TRAWL_DATABASE_SCHEMA',
    flag: '--database-schema',
    schema: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier'),
    default: 'public',
    doc: 'The PostgreSQL schema Trawl keeps its tables in (created if missing), so one database can hold several Trawl deployments.',
  },
  databasePoolSize: {
    env: 'TRAWL_DATABASE_POOL_SIZE',
    flag: '--database-pool-size',
    schema: integer(2, 200),
    default: 10,
    doc: 'PostgreSQL connections one process keeps at most (its pool), besides one that listens for notifications.',
  },
  leaseMs: {
    env: 'TRAWL_LEASE_MS',
    flag: '--lease-ms',
    schema: integer(1000, 3_600_000),
    default: 60_000,
    doc: 'How long a process holds a monitor run, an agent run or a crawl it claimed without renewing it (renewed every third of it); after a crash, another process takes the work over once the lease has run out.',
  },
  pollMs: {
    env: 'TRAWL_POLL_MS',
    flag: '--poll-ms',
    schema: integer(100, 600_000),
    default: 5000,
    doc: 'How often a process looks for work other processes left or gave up (due monitors, queued agent runs, webhook retries) and, with PostgreSQL, for documents another replica wrote whose notification it missed.',
  },
  drainMs: {
    env: 'TRAWL_DRAIN_MS',
    flag: '--drain-ms',
    schema: integer(0, 600_000),
    default: 10_000,
    doc: 'On SIGTERM or SIGINT, how long `trawl serve` lets requests in flight finish before it cuts their connections (docs/operations.md#readiness-and-graceful-restarts). New connections are refused at once, `/ready` answers 503, and agent runs go back to the queue at once.',
  },
  readyMaxLagSeconds: {
    env: 'TRAWL_READY_MAX_LAG_SECONDS',
    flag: '--ready-max-lag-seconds',
    schema: integer(1, 86_400),
    default: 60,
    doc: "With PostgreSQL, how far this machine's copy of the documents may lag behind the shared store (its last heartbeat's lag) before `GET /ready` answers 503.",
  },
  metricsListen: {
    env: 'TRAWL_METRICS_LISTEN',
    flag: '--metrics-listen',
    schema: listenAddress,
    default: undefined,
    doc: "Serve Prometheus metrics at `GET /metrics` on a listener of their own, without a key: `HOST:PORT` (`127.0.0.1:9464`, `[::1]:9464`) or a port alone (on 127.0.0.1). A non-loopback host is refused unless `TRAWL_METRICS_PUBLIC` is true. While it is set, the main listener's `/metrics` answers 404. Unset: `/metrics` on the main listener, for `admin` keys only (docs/operations.md#metrics). With `--workers N` the primary serves it, summing the workers'.",
  },
  metricsPublic: {
    env: 'TRAWL_METRICS_PUBLIC',
    flag: '--metrics-public',
    schema: booleanish,
    default: false,
    doc: 'Allow `TRAWL_METRICS_LISTEN` on a non-loopback address (`0.0.0.0:9464` for a scraper on another machine). The metrics listener asks no key: keep it behind a firewall or a private network.',
  },
  logLevel: {
    env: 'TRAWL_LOG_LEVEL',
    flag: '--log-level',
    schema: z.enum(LOG_LEVELS),
    default: 'info',
    doc: 'Log level of the logs on stderr: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`.',
  },
  logFormat: {
    env: 'TRAWL_LOG_FORMAT',
    flag: '--log-format',
    schema: z.enum(['auto', 'json', 'pretty']),
    default: 'auto',
    doc: 'How log lines on stderr are written: `json` (one JSON object per line, for collectors), `pretty` (short `12:04:05 INFO  message key=value` lines; colours unless `NO_COLOR`), or `auto`: pretty when stderr is a terminal, JSON when not.',
  },
  maxBodyBytes: {
    env: 'TRAWL_MAX_BODY_BYTES',
    flag: '--max-body-bytes',
    schema: integer(1024, 64 * 1024 * 1024),
    default: 4 * 1024 * 1024,
    doc: 'Largest request body the REST and MCP HTTP doors accept, in bytes (413 above it). Its shape is limited too, whatever this is: 64 levels, 10,000 keys per object, 200,000 values, 20,000 objects and arrays (docs/api.md).',
  },
  importMaxBytes: {
    env: 'TRAWL_IMPORT_MAX_BYTES',
    flag: '--import-max-bytes',
    schema: integer(1024, 16 * 1024 * 1024 * 1024),
    default: 64 * 1024 * 1024,
    doc: "Largest JSONL file the console's import (`POST /console/api/imports`) accepts, in bytes (413 above it). It is written to `<data dir>/uploads/` as it arrives and imported in the background, then deleted; `trawl import` reads files of any size.",
  },
  maxSchemaBytes: {
    env: 'TRAWL_MAX_SCHEMA_BYTES',
    flag: '--max-schema-bytes',
    schema: integer(1024, 1024 * 1024),
    default: 64 * 1024,
    doc: 'Largest caller JSON Schema (`outputSchema`, `summary.schema`, agent-run and monitor schemas), in bytes of JSON (422 `INVALID_JSON_SCHEMA` above it).',
  },
  maxSchemaDepth: {
    env: 'TRAWL_MAX_SCHEMA_DEPTH',
    flag: '--max-schema-depth',
    schema: integer(4, 56),
    default: 32,
    doc: 'Deepest a caller JSON Schema may nest, in JSON levels (`{"properties": {"a": {}}}` is 3). Request bodies nest at most 64 levels.',
  },
  maxSchemaEnumValues: {
    env: 'TRAWL_MAX_SCHEMA_ENUM_VALUES',
    flag: '--max-schema-enum-values',
    schema: integer(1, 100_000),
    default: 1000,
    doc: 'Most `enum` values a caller JSON Schema may list, all its enums together.',
  },
  maxSchemaProperties: {
    env: 'TRAWL_MAX_SCHEMA_PROPERTIES',
    flag: '--max-schema-properties',
    schema: integer(10, 100_000),
    default: 500,
    doc: "Most property names a caller JSON Schema may declare, all its `properties` together (/search keeps the spec's 10).",
  },
  maxSchemaSubschemas: {
    env: 'TRAWL_MAX_SCHEMA_SUBSCHEMAS',
    flag: '--max-schema-subschemas',
    schema: integer(10, 100_000),
    default: 1000,
    doc: 'Most schema objects a caller JSON Schema may hold: the root and every one under `properties`, `items`, `anyOf`, `$defs` and the like. Bounds the time to compile it.',
  },
  schemaTimeoutMs: {
    env: 'TRAWL_SCHEMA_TIMEOUT_MS',
    flag: '--schema-timeout-ms',
    schema: integer(100, 60_000),
    default: 2000,
    doc: 'Longest one compile of a caller JSON Schema, or one validation against it, may take in the schema worker thread before it is stopped (422 `INVALID_JSON_SCHEMA`).',
  },
  allowedHosts: {
    env: 'TRAWL_ALLOWED_HOSTS',
    flag: '--allowed-hosts',
    schema: list,
    default: [] as string[],
    doc: 'Comma-separated `Host` header values `/mcp` accepts (DNS-rebinding guard). Default: the loopback names when listening on loopback; no check otherwise.',
  },
  allowedOrigins: {
    env: 'TRAWL_ALLOWED_ORIGINS',
    flag: '--allowed-origins',
    schema: list,
    default: [] as string[],
    doc: 'Comma-separated browser origins `/mcp` accepts besides loopback ones (`http://localhost:*`).',
  },
  tools: {
    env: 'TRAWL_TOOLS',
    flag: '--tools',
    schema: list,
    default: [] as string[],
    doc: 'MCP tools to serve: names and groups, comma-separated (`default`, `web`, `code`, `monitors`, `agent`, `all`; docs/mcp.md). Empty: the default set (`search`, `get_contents`, `get_code_context`). Over HTTP, `/mcp?tools=` chooses within it.',
  },
  mcpBetas: {
    env: 'TRAWL_MCP_BETAS',
    flag: '--mcp-betas',
    schema: list,
    default: [] as string[],
    doc: 'Beta tokens (as in the `Svc-Beta` header) that MCP tool calls run with; stdio has no headers. Over HTTP the request header adds to these.',
  },
  oauth: {
    env: 'TRAWL_OAUTH',
    flag: '--oauth',
    schema: z.enum(['off', 'on']),
    default: 'off',
    doc: "`on`: Trawl is its own OAuth 2.1 authorization server under `/oauth` (metadata at `/.well-known/oauth-authorization-server/oauth`): MCP clients sign a person in with an API key of their team on Trawl's sign-in page and get short-lived tokens for `/mcp` and the REST API (docs/accounts.md#signing-in-with-oauth). `off`: those paths answer 404. Outside loopback, set `TRAWL_PUBLIC_URL` and serve over TLS.",
  },
  oauthDcr: {
    env: 'TRAWL_OAUTH_DCR',
    flag: '--oauth-dcr',
    schema: booleanish,
    default: false,
    doc: 'With `TRAWL_OAUTH=on`, also accept OAuth Dynamic Client Registration (`POST /oauth/reg`, RFC 7591) from clients that do not use Client ID Metadata Documents. Off by default: registration is open to anyone who reaches the server.',
  },
  console: {
    env: 'TRAWL_CONSOLE',
    flag: '--console',
    schema: z.enum(['auto', 'on', 'off']),
    default: 'auto',
    doc: 'The web console at `/console` (docs/console.md): `auto` serves it when `TRAWL_HOST` is a loopback address, `on` on any address (put TLS in front: its session cookie is `Secure` when `TRAWL_PUBLIC_URL` is https), `off` never (404).',
  },
  consoleSessionIdleMinutes: {
    env: 'TRAWL_CONSOLE_SESSION_IDLE_MINUTES',
    flag: '--console-session-idle-minutes',
    schema: integer(5, 7 * 24 * 60),
    default: 480,
    doc: 'A console session ends after this long without a request (and after at most 24 hours, or this if longer); it also ends on sign-out, when its key is revoked, or when its team is blocked.',
  },
  mcpKeyless: {
    env: 'TRAWL_MCP_KEYLESS',
    flag: '--mcp-keyless',
    schema: booleanish,
    default: false,
    doc: 'Let `POST /mcp` answer without an API key, for one local user: only on a loopback `TRAWL_HOST` (refused at start otherwise), with Host and Origin still checked and `Origin: null` refused. Any process of this machine can then call it (docs/mcp.md).',
  },
} as const;
