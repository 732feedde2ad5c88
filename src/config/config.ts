/**
 * Configuration: read once from `TRAWL_*` environment variables and CLI flags (flags win), validated with
 * zod, frozen. A bad setting fails fast with a message naming the variable and the flag.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import envPaths from 'env-paths';
import { z } from 'zod';
import '../lib/zod-messages.js';
import { isLoopbackHostname } from '../lib/loopback.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const list = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .or(z.array(z.string()));

const booleanish = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');

/** A setting given as JSON text, parsed; `message` says what it should be when it is not JSON. */
const jsonText = (message: string) =>
  z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
  });

function isIpOrCidr(entry: string): boolean {
  const [ip, prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || !ip) return false;
  const family = isIP(ip);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/**
 * One row per setting: env var, CLI flag, schema, default and the line docs/configuration.md shows. After a
 * change, `node scripts/settings-table.mjs` regenerates that table and the CLI's flags (src/config/flags.ts).
 */
export const SETTINGS = {
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
    schema: z.coerce.number().int().min(0).max(65535),
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
    schema: z.coerce.number().int().min(2).max(200),
    default: 10,
    doc: 'PostgreSQL connections one process keeps at most (its pool), besides one that listens for notifications.',
  },
  leaseMs: {
    env: 'TRAWL_LEASE_MS',
    flag: '--lease-ms',
    schema: z.coerce.number().int().min(1000).max(3_600_000),
    default: 60_000,
    doc: 'How long a process holds a monitor run or an agent run it claimed without renewing it (renewed every third of it); after a crash, another process takes the work over once the lease has run out.',
  },
  pollMs: {
    env: 'TRAWL_POLL_MS',
    flag: '--poll-ms',
    schema: z.coerce.number().int().min(100).max(600_000),
    default: 5000,
    doc: 'How often a process looks for work other processes left or gave up (due monitors, queued agent runs, webhook retries) and, with PostgreSQL, for documents another replica wrote whose notification it missed.',
  },
  logLevel: {
    env: 'TRAWL_LOG_LEVEL',
    flag: '--log-level',
    schema: z.enum(LOG_LEVELS),
    default: 'info',
    doc: 'Log level of the JSON logs on stderr: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`.',
  },
  maxBodyBytes: {
    env: 'TRAWL_MAX_BODY_BYTES',
    flag: '--max-body-bytes',
    schema: z.coerce
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024),
    default: 4 * 1024 * 1024,
    doc: 'Largest request body the REST and MCP HTTP doors accept, in bytes (413 above it). Its shape is limited too, whatever this is: 64 levels, 10,000 keys per object, 200,000 values, 20,000 objects and arrays (docs/api.md).',
  },
  maxSchemaBytes: {
    env: 'TRAWL_MAX_SCHEMA_BYTES',
    flag: '--max-schema-bytes',
    schema: z.coerce
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024),
    default: 64 * 1024,
    doc: 'Largest caller JSON Schema (`outputSchema`, `summary.schema`, agent-run and monitor schemas), in bytes of JSON (422 `INVALID_JSON_SCHEMA` above it).',
  },
  maxSchemaDepth: {
    env: 'TRAWL_MAX_SCHEMA_DEPTH',
    flag: '--max-schema-depth',
    schema: z.coerce.number().int().min(4).max(56),
    default: 32,
    doc: 'Deepest a caller JSON Schema may nest, in JSON levels (`{"properties": {"a": {}}}` is 3). Request bodies nest at most 64 levels.',
  },
  maxSchemaEnumValues: {
    env: 'TRAWL_MAX_SCHEMA_ENUM_VALUES',
    flag: '--max-schema-enum-values',
    schema: z.coerce.number().int().min(1).max(100_000),
    default: 1000,
    doc: 'Most `enum` values a caller JSON Schema may list, all its enums together.',
  },
  maxSchemaProperties: {
    env: 'TRAWL_MAX_SCHEMA_PROPERTIES',
    flag: '--max-schema-properties',
    schema: z.coerce.number().int().min(10).max(100_000),
    default: 500,
    doc: "Most property names a caller JSON Schema may declare, all its `properties` together (/search keeps the spec's 10).",
  },
  maxSchemaSubschemas: {
    env: 'TRAWL_MAX_SCHEMA_SUBSCHEMAS',
    flag: '--max-schema-subschemas',
    schema: z.coerce.number().int().min(10).max(100_000),
    default: 1000,
    doc: 'Most schema objects a caller JSON Schema may hold: the root and every one under `properties`, `items`, `anyOf`, `$defs` and the like. Bounds the time to compile it.',
  },
  schemaTimeoutMs: {
    env: 'TRAWL_SCHEMA_TIMEOUT_MS',
    flag: '--schema-timeout-ms',
    schema: z.coerce.number().int().min(100).max(60_000),
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
  mcpKeyless: {
    env: 'TRAWL_MCP_KEYLESS',
    flag: '--mcp-keyless',
    schema: booleanish,
    default: false,
    doc: 'Let `POST /mcp` answer without an API key, for one local user: only on a loopback `TRAWL_HOST` (refused at start otherwise), with Host and Origin still checked and `Origin: null` refused. Any process of this machine can then call it (docs/mcp.md).',
  },
  userAgent: {
    env: 'TRAWL_USER_AGENT',
    flag: '--user-agent',
    schema: z.string().min(1).max(512),
    default: undefined,
    doc: 'User-Agent of every fetch. Default: `Trawl/<version> (+https://github.com/trawl)`; robots.txt rules for `Trawl` apply either way.',
  },
  allowPrivateNetwork: {
    env: 'TRAWL_ALLOW_PRIVATE_NETWORK',
    flag: '--allow-private-network',
    schema: booleanish,
    default: false,
    doc: 'Let fetches reach loopback, private, link-local and metadata addresses (local docs). Off by default: the SSRF guard refuses them on every redirect hop.',
  },
  privateAllowlist: {
    env: 'TRAWL_PRIVATE_ALLOWLIST',
    flag: '--private-allowlist',
    schema: list.refine((items) => items.every(isIpOrCidr), 'each entry must be an IP address or a CIDR block'),
    default: [] as string[],
    doc: 'Comma-separated IPs or CIDRs (e.g. `10.1.2.0/24`) that page fetches may reach although they are private; everything else private stays refused. It does not apply to monitor webhooks, which must reach a public endpoint (only `TRAWL_ALLOW_INSECURE_WEBHOOKS` lifts that).',
  },
  robots: {
    env: 'TRAWL_ROBOTS',
    flag: '--robots',
    schema: booleanish,
    default: true,
    doc: 'Obey robots.txt (RFC 9309) for every automated fetch. Turn off only for sites you own.',
  },
  fetchMaxBytes: {
    env: 'TRAWL_FETCH_MAX_BYTES',
    flag: '--fetch-max-bytes',
    schema: z.coerce
      .number()
      .int()
      .min(64 * 1024)
      .max(512 * 1024 * 1024),
    default: 16 * 1024 * 1024,
    doc: 'Largest response body a fetch reads, in bytes (after decompression); larger pages fail with `CRAWL_TOO_LARGE`.',
  },
  documentMaxInflatedBytes: {
    env: 'TRAWL_DOCUMENT_MAX_INFLATED_BYTES',
    flag: '--document-max-inflated-bytes',
    schema: z.coerce
      .number()
      .int()
      .min(1024 * 1024)
      .max(2 * 1024 * 1024 * 1024),
    default: 128 * 1024 * 1024,
    doc: "Most bytes a PDF's compressed streams may expand to while it is read, all streams together (Flate, LZW, Brotli, object streams, nested filters); past it the page fails with `CRAWL_TOO_LARGE`. `TRAWL_FETCH_MAX_BYTES` bounds the download, this what it inflates to (docs/contents.md).",
  },
  documentParseTimeoutMs: {
    env: 'TRAWL_DOCUMENT_PARSE_TIMEOUT_MS',
    flag: '--document-parse-timeout-ms',
    schema: z.coerce.number().int().min(100).max(600_000),
    default: 20_000,
    doc: 'Longest reading one PDF may take in its worker thread; past it the thread is stopped and the page fails with `CRAWL_TIMEOUT`.',
  },
  documentParseMemoryMb: {
    env: 'TRAWL_DOCUMENT_PARSE_MEMORY_MB',
    flag: '--document-parse-memory-mb',
    schema: z.coerce.number().int().min(64).max(16_384),
    default: 256,
    doc: 'JavaScript heap (MB) of each PDF worker thread (its `resourceLimits`); a PDF that needs more stops the thread and fails with `CRAWL_TOO_LARGE`. Decoded streams are outside it, under `TRAWL_DOCUMENT_MAX_INFLATED_BYTES`.',
  },
  documentParseThreads: {
    env: 'TRAWL_DOCUMENT_PARSE_THREADS',
    flag: '--document-parse-threads',
    schema: z.coerce.number().int().min(1).max(64),
    default: 2,
    doc: 'Worker threads reading PDFs at once; more PDFs wait for one. Two, so that one slow PDF (until its deadline) never holds up the others; each can hold its heap and the inflate cap.',
  },
  fetchConcurrency: {
    env: 'TRAWL_FETCH_CONCURRENCY',
    flag: '--fetch-concurrency',
    schema: z.coerce.number().int().min(1).max(1024),
    default: 16,
    doc: "Live fetches of `/contents` running at once; more wait in the admission queue, served round-robin between teams, the wait counted against each fetch's `livecrawlTimeout` (`x-svc-queued`, `x-svc-queue-ms`; docs/operations.md).",
  },
  browser: {
    env: 'TRAWL_BROWSER',
    flag: '--browser',
    schema: z.string().min(1),
    default: undefined,
    doc: 'Path of a Chromium executable (e.g. `/usr/bin/chromium`) to render JavaScript-only pages. Without it such pages fail with `CRAWL_NEEDS_BROWSER`.',
  },
  embeddingsUrl: {
    env: 'TRAWL_EMBEDDINGS_URL',
    aliases: ['TRAWL_EMBEDDINGS_BASE_URL'],
    flag: '--embeddings-url',
    schema: z.url({ protocol: /^https?$/ }),
    default: undefined,
    doc: 'Base URL of an OpenAI-compatible embeddings API (`POST {url}/embeddings`), e.g. `https://api.openai.com/v1` or a local server. Highlight scores then are cosines of embeddings; without it, of the lexical model (docs/contents.md). Also read from `TRAWL_EMBEDDINGS_BASE_URL`.',
  },
  embeddingsModel: {
    env: 'TRAWL_EMBEDDINGS_MODEL',
    flag: '--embeddings-model',
    schema: z.string().min(1),
    default: 'text-embedding-3-small',
    doc: 'Model name sent to the embeddings API.',
  },
  embeddingsApiKey: {
    env: 'TRAWL_EMBEDDINGS_API_KEY',
    flag: '--embeddings-api-key',
    schema: z.string().min(1),
    default: undefined,
    doc: 'Bearer key of the embeddings API (never logged). Prefer the variable to the flag, which shows in `ps`.',
  },
  codeModel: {
    env: 'TRAWL_CODE_MODEL',
    flag: '--code-model',
    schema: z.string().min(1),
    default: undefined,
    doc: "Trawl's code retrieval model, which ranks `/context` with the lexical index: the path of a model file, or `off` to rank by words only. Loaded on the first code query or code-index write, never at start-up; a missing or broken file is warned about once and code is ranked lexically (`trawl doctor` says so). Not used when an embeddings provider is configured (docs/code-context.md).",
  },
  modelBaseUrl: {
    env: 'TRAWL_MODEL_BASE_URL',
    flag: '--model-base-url',
    schema: z.url({ protocol: /^https?$/ }),
    default: undefined,
    doc: 'Base URL of an OpenAI-compatible Chat Completions API (`POST {url}/chat/completions`: OpenAI, Ollama, vLLM, llama.cpp, LM Studio, gateways), e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. Synthesis (`outputSchema`, `stream`, model summaries) then uses it (docs/synthesis.md).',
  },
  model: {
    env: 'TRAWL_MODEL',
    flag: '--model',
    schema: z.string().min(1),
    default: 'gpt-4o-mini',
    doc: 'Model name sent to the Chat Completions API (e.g. `gpt-4o-mini`, `llama3.1:8b`).',
  },
  modelApiKey: {
    env: 'TRAWL_MODEL_API_KEY',
    flag: '--model-api-key',
    schema: z.string().min(1),
    default: undefined,
    doc: 'Bearer key of the Chat Completions API (never logged). Prefer the variable to the flag, which shows in `ps`.',
  },
  modelPrefer: {
    env: 'TRAWL_MODEL_PREFER',
    flag: '--model-prefer',
    schema: z.enum(['server', 'client']),
    default: 'server',
    doc: "`server`: the configured model writes answers, and an MCP client's own model (sampling) only when none is configured; `client`: an MCP client that supports sampling writes its own answers.",
  },
  modelTimeoutMs: {
    env: 'TRAWL_MODEL_TIMEOUT_MS',
    flag: '--model-timeout-ms',
    schema: z.coerce.number().int().min(1000).max(600_000),
    default: 60_000,
    doc: 'How long one model call may take, retries included (for a stream: the wait for its start and for each pause), in ms.',
  },
  modelMaxTokens: {
    env: 'TRAWL_MODEL_MAX_TOKENS',
    flag: '--model-max-tokens',
    schema: z.coerce.number().int().min(64).max(32_000),
    default: 1200,
    doc: 'Completion tokens an answer may take.',
  },
  modelInputPrice: {
    env: 'TRAWL_MODEL_INPUT_PRICE',
    flag: '--model-input-price',
    schema: z.coerce.number().min(0).max(1000),
    default: undefined,
    doc: 'Dollars per million input tokens, for `costDollars`; default: the list price of well-known hosted models, else 0 (docs/synthesis.md).',
  },
  modelOutputPrice: {
    env: 'TRAWL_MODEL_OUTPUT_PRICE',
    flag: '--model-output-price',
    schema: z.coerce.number().min(0).max(1000),
    default: undefined,
    doc: 'Dollars per million output tokens, for `costDollars`; default as for the input price.',
  },
  createFirstKey: {
    env: 'TRAWL_CREATE_FIRST_KEY',
    flag: '--create-first-key',
    schema: booleanish,
    default: true,
    doc: 'Whether `trawl serve` creates an API key on a first start with none (written to `<data dir>/first-api-key`, mode 0600).',
  },
  searxngUrl: {
    env: 'TRAWL_SEARXNG_URL',
    flag: '--searxng-url',
    schema: z.url({ protocol: /^https?$/ }),
    default: undefined,
    doc: 'Base URL of a SearXNG instance with the JSON format enabled (`GET {url}/search?format=json`); `/search` then federates with it (docs/providers.md). Credentials in the URL become a Basic Authorization header.',
  },
  braveApiKey: {
    env: 'TRAWL_BRAVE_API_KEY',
    flag: '--brave-api-key',
    schema: z.string().min(1),
    default: undefined,
    doc: 'Subscription token of the Brave Search API; `/search` then federates with Brave web search (never logged; prefer the variable to the flag, which shows in `ps`).',
  },
  upstreamUrl: {
    env: 'TRAWL_UPSTREAM_URL',
    flag: '--upstream-url',
    schema: z.url({ protocol: /^https?$/ }),
    default: undefined,
    doc: 'Base URL of a service speaking this API (the hosted API Trawl mirrors, or another Trawl instance): `/search` then federates with its `POST {url}/search`.',
  },
  upstreamApiKey: {
    env: 'TRAWL_UPSTREAM_API_KEY',
    flag: '--upstream-api-key',
    schema: z.string().min(1),
    default: undefined,
    doc: 'API key sent as `x-api-key` to the upstream service (never logged; prefer the variable to the flag).',
  },
  providerTimeoutMs: {
    env: 'TRAWL_PROVIDER_TIMEOUT_MS',
    flag: '--provider-timeout-ms',
    schema: z.coerce.number().int().min(100).max(60_000),
    default: 4000,
    doc: 'How long `/search` waits for each web-search provider, in ms; a slower or failing provider is left out of the answer (logged as a warning).',
  },
  workers: {
    env: 'TRAWL_WORKERS',
    flag: '--workers',
    schema: z.coerce.number().int().min(1).max(64),
    default: 1,
    doc: 'HTTP worker processes of `trawl serve` sharing its port (node:cluster); one per core serves more requests per second. Each holds its own caches.',
  },
  mcpMaxTokens: {
    env: 'TRAWL_MCP_MAX_TOKENS',
    flag: '--mcp-max-tokens',
    schema: z.coerce.number().int().min(500).max(25000),
    default: 6000,
    doc: 'Token budget of an MCP tool answer (its text and structured content, o200k_base tokens) unless a call sets `maxTokens`: a longer answer is cut at a clean boundary and continued by `cursor` (docs/mcp.md).',
  },
  mcpMaxTasks: {
    env: 'TRAWL_MCP_MAX_TASKS',
    flag: '--mcp-max-tasks',
    schema: z.coerce.number().int().min(1).max(10_000),
    default: 32,
    doc: "MCP tasks one API key (or the local stdio user) may have open at once (`working` or `input_required`), over every process on the data directory; a task-augmented `tools/call` beyond it is refused with a JSON-RPC error naming this setting (docs/mcp.md). Task work also holds one of the key's requests in flight (`TRAWL_RATE_LIMIT_CONCURRENCY`) while it runs.",
  },
  mcpTaskTtlMs: {
    env: 'TRAWL_MCP_TASK_TTL_MS',
    flag: '--mcp-task-ttl-ms',
    schema: z.coerce.number().int().min(60_000).max(86_400_000),
    default: 600_000,
    doc: 'How long an MCP task and its result are kept after it ends when the client asks for no `ttl`, in ms (held under `TRAWL_MCP_TASK_MAX_TTL_MS`).',
  },
  mcpTaskMaxTtlMs: {
    env: 'TRAWL_MCP_TASK_MAX_TTL_MS',
    flag: '--mcp-task-max-ttl-ms',
    schema: z.coerce.number().int().min(60_000).max(86_400_000),
    default: 3_600_000,
    doc: "The longest `ttl` an MCP task is granted, in ms: a longer one asked is cut to it, and the task's answer says the `ttl` granted.",
  },
  prices: {
    env: 'TRAWL_PRICES',
    flag: '--prices',
    schema: jsonText('must be a JSON object of prices in dollars').pipe(
      // the names are checked against the price table when the app is built (config depends on nothing above it)
      z.record(z.string(), z.number().min(0).max(10_000)),
    ),
    default: undefined,
    doc: 'Prices in dollars that replace entries of the price table, as a JSON object, e.g. `{"contentsPage": 0.002, "codeContext": 0.01}`; unknown names are refused. The table and its defaults (the spec\'s prices): docs/accounts.md.',
  },
  metering: {
    env: 'TRAWL_METERING',
    flag: '--metering',
    schema: booleanish,
    default: true,
    doc: 'Record what every priced request cost, per key, day and operation (`trawl usage`), and enforce team credits and budgets. `false` records nothing and enforces neither (scopes, blocked teams and rate limits still hold).',
  },
  rateLimitQps: {
    env: 'TRAWL_RATE_LIMIT_QPS',
    flag: '--rate-limit-qps',
    schema: z.coerce.number().min(0).max(100_000),
    default: 0,
    doc: 'Requests per second each API key may make (a token bucket of one second of burst, shared by every process on the data directory); `0`, the default, for no rate limit (the in-flight limit still holds). A key made with `--qps` has its own. Over the limit: 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`; over MCP, tool calls count (not protocol messages).',
  },
  rateLimitConcurrency: {
    env: 'TRAWL_RATE_LIMIT_CONCURRENCY',
    flag: '--rate-limit-concurrency',
    schema: z.coerce.number().int().min(0).max(100_000),
    default: 8,
    doc: 'Requests of one API key in flight at once, per process (`0`: no limit). A client sending one request after another never meets it; a concurrent burst beyond it gets 429 `RATE_LIMIT_EXCEEDED` (retry in 1 s). Over MCP, tool calls count.',
  },
  searchCacheMb: {
    env: 'TRAWL_SEARCH_CACHE_MB',
    flag: '--search-cache-mb',
    schema: z.coerce.number().int().min(1).max(65_536),
    default: 512,
    doc: "Memory for the search index's decoded posting lists of recently queried terms, per process (each worker of `--workers` has its own). An index of a million documents answers `instant` in a few ms once its queries' lists fit (docs/search.md); a list too big for a quarter of it is decoded per query.",
  },
  agentConcurrency: {
    env: 'TRAWL_AGENT_CONCURRENCY',
    flag: '--agent-concurrency',
    schema: z.coerce.number().int().min(0).max(1000),
    default: 2,
    doc: "Agent runs of one API key running at once (more wait queued), the spec's two by default; a key with its own `--qps` runs a fifth of it, as the spec says. `0`: no limit.",
  },
  x402Rails: {
    env: 'TRAWL_X402_RAILS',
    flag: '--x402-rails',
    schema: jsonText('must be a JSON array of payment rails').pipe(
      z
        .array(
          z.object({
            scheme: z.string().min(1),
            network: z.string().min(1),
            asset: z.string().min(1),
            payTo: z.string().min(1),
            maxTimeoutSeconds: z.int().min(1).max(3600).default(60),
            extra: z.record(z.string(), z.unknown()).optional(),
          }),
        )
        .min(1),
    ),
    default: undefined,
    doc: 'Payment rails for keyless requests paid with x402, as a JSON array of `{scheme, network, asset, payTo, maxTimeoutSeconds?, extra?}`; with `TRAWL_X402_FACILITATOR_URL`, a request without an API key to a priced endpoint gets a 402 payment challenge (docs/accounts.md).',
  },
  x402FacilitatorUrl: {
    env: 'TRAWL_X402_FACILITATOR_URL',
    flag: '--x402-facilitator-url',
    schema: z.url(),
    default: undefined,
    doc: 'The x402 facilitator that verifies and settles payments (`POST {url}/verify`, `{url}/settle`).',
  },
  x402FacilitatorApiKey: {
    env: 'TRAWL_X402_FACILITATOR_API_KEY',
    flag: '--x402-facilitator-api-key',
    schema: z.string().min(1),
    default: undefined,
    doc: 'Bearer token for the facilitator, if it needs one (never logged; prefer the variable to the flag).',
  },
  agentMaxCost: {
    env: 'TRAWL_AGENT_MAX_COST',
    flag: '--agent-max-cost',
    schema: z.coerce.number().min(1).max(100),
    default: 100,
    doc: 'The most an agent run may be budgeted, in dollars (`budget.maxCostDollars` above it is refused with 400); 1-100.',
  },
  monitors: {
    env: 'TRAWL_MONITORS',
    flag: '--monitors',
    schema: booleanish,
    default: true,
    doc: 'Run scheduled monitors and deliver their webhooks in this process (`trawl serve`, `trawl mcp`). Several processes on one data directory share the work: each slot runs once.',
  },
  monitorConcurrency: {
    env: 'TRAWL_MONITOR_CONCURRENCY',
    flag: '--monitor-concurrency',
    schema: z.coerce.number().int().min(1).max(64),
    default: 4,
    doc: 'Monitor runs executing at once in one process; more due runs wait as `pending` (docs/monitors.md).',
  },
  allowInsecureWebhooks: {
    env: 'TRAWL_ALLOW_INSECURE_WEBHOOKS',
    flag: '--allow-insecure-webhooks',
    schema: booleanish,
    default: false,
    doc: 'Let monitor webhooks use HTTP and loopback or private addresses. For local development and tests only: by default webhooks must be HTTPS and public, the host resolved and checked at creation, on PATCH and at every delivery. The only setting that opens webhooks (`TRAWL_PRIVATE_ALLOWLIST` does not).',
  },
  secretKey: {
    env: 'TRAWL_SECRET_KEY',
    flag: '--secret-key',
    schema: z.string().min(1),
    default: undefined,
    doc: 'Operator key sealing webhook secrets at rest (AES-256-GCM): 32 bytes as base64 or 64 hex characters. Default: a key made once in `<data dir>/secret.key` (mode 0600). Required with `TRAWL_DATABASE_URL`: every replica must hold the same key. Never logged; prefer the variable to the flag.',
  },
  webhookTimeoutMs: {
    env: 'TRAWL_WEBHOOK_TIMEOUT_MS',
    flag: '--webhook-timeout-ms',
    schema: z.coerce.number().int().min(1000).max(60_000),
    default: 10_000,
    doc: 'Time a webhook receiver has to answer one delivery attempt, in ms; slower is a failed attempt, retried.',
  },
  webhookRetryHours: {
    env: 'TRAWL_WEBHOOK_RETRY_HOURS',
    flag: '--webhook-retry-hours',
    schema: z.coerce.number().int().min(1).max(168),
    default: 24,
    doc: 'How long failed webhook deliveries are retried (exponential backoff from 30 s to 1 h, with jitter) before they are given up.',
  },
} as const;

type Settings = typeof SETTINGS;
export type Config = Readonly<{
  [K in keyof Settings]: K extends 'dataDir'
    ? string
    : Settings[K]['default'] extends undefined
      ? z.output<Settings[K]['schema']> | undefined
      : z.output<Settings[K]['schema']>;
}>;

/** Flags as parsed by the CLI, keyed like SETTINGS (`dataDir`, `port`, ...). */
export type ConfigFlags = Partial<Record<keyof Settings, unknown>>;

/** A setting had a bad value; the message names the variable and flag. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * The variable a setting is read from and its value: the main variable, else the first alias set (a
 * name the issue tracker or other tools use). Empty means unset; two names set to different values fail.
 */
function readEnv(env: Record<string, string | undefined>, setting: Settings[keyof Settings]) {
  const names = [setting.env, ...('aliases' in setting ? setting.aliases : [])];
  const set = names.filter((name) => env[name] !== undefined && env[name] !== '');
  const [name] = set;
  const conflict = set.find((other) => env[other] !== env[name!]);
  if (conflict) {
    throw new ConfigError(`Environment variables ${name} and ${conflict} are both set, to different values; set one.`);
  }
  return { name: name ?? setting.env, value: name === undefined ? undefined : env[name] };
}

/** Reads every setting from flags, then env, then its default; throws ConfigError naming the first bad one. */
export function loadConfig(env: Record<string, string | undefined> = {}, flags: ConfigFlags = {}): Config {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [keyof Settings, Settings[keyof Settings]][]) {
    const fromFlag = flags[key];
    const fromEnv = readEnv(env, setting);
    const raw = fromFlag ?? fromEnv.value;
    if (raw === undefined) {
      out[key] = key === 'dataDir' ? defaultDataDir(env) : setting.default;
      continue;
    }
    const parsed = (setting.schema as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      const source = fromFlag !== undefined ? `flag ${setting.flag}` : `environment variable ${fromEnv.name}`;
      const why = parsed.error.issues[0]?.message ?? 'invalid value';
      throw new ConfigError(`Invalid ${source}=${JSON.stringify(raw)}: ${why}. ${setting.doc}`);
    }
    out[key] = parsed.data;
  }
  out.dataDir = path.resolve(out.dataDir as string);
  if (out.mcpKeyless === true && !isLoopbackHostname(out.host as string)) {
    throw new ConfigError(
      `TRAWL_MCP_KEYLESS (--mcp-keyless) needs a loopback listener, since any caller could use /mcp without a key; TRAWL_HOST is ${JSON.stringify(out.host)}. Listen on 127.0.0.1, ::1 or localhost, or turn keyless off.`,
    );
  }
  return Object.freeze(out) as Config;
}

function defaultDataDir(env: Record<string, string | undefined>): string {
  // env-paths reads XDG_DATA_HOME / LOCALAPPDATA from process.env; honour an injected env the same way.
  if (process.platform === 'linux' && env.XDG_DATA_HOME) return path.join(env.XDG_DATA_HOME, 'trawl');
  return envPaths('trawl', { suffix: '' }).data;
}
