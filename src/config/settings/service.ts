/** Settings of the services: workers, MCP answer budgets and tasks, prices and metering, rate limits, the search cache, agent runs, x402 payments, monitors and webhooks. */
import { z } from 'zod';
import { booleanish, jsonText, integer } from './fields.js';

/** Rows of SETTINGS (../settings.ts): env var, CLI flag, schema, default and the line docs/configuration.md shows. */
export const SERVICE_SETTINGS = {
  workers: {
    env: 'TRAWL_WORKERS',
    flag: '--workers',
    schema: integer(1, 64),
    default: 1,
    doc: 'HTTP worker processes of `trawl serve` sharing its port (node:cluster); one per core serves more requests per second. Each holds its own caches.',
  },
  mcpMaxTokens: {
    env: 'TRAWL_MCP_MAX_TOKENS',
    flag: '--mcp-max-tokens',
    schema: integer(500, 25000),
    default: 6000,
    doc: 'Token budget of an MCP tool answer (its text and structured content, o200k_base tokens) unless a call sets `maxTokens`: a longer answer is cut at a clean boundary and continued by `cursor` (docs/mcp.md).',
  },
  mcpMaxTasks: {
    env: 'TRAWL_MCP_MAX_TASKS',
    flag: '--mcp-max-tasks',
    schema: integer(1, 10_000),
    default: 32,
    doc: "MCP tasks one API key (or the local stdio user) may have open at once (`working` or `input_required`), over every process on the data directory; a task-augmented `tools/call` beyond it is refused with a JSON-RPC error naming this setting (docs/mcp.md). Task work also holds one of the key's requests in flight (`TRAWL_RATE_LIMIT_CONCURRENCY`) while it runs.",
  },
  mcpTaskTtlMs: {
    env: 'TRAWL_MCP_TASK_TTL_MS',
    flag: '--mcp-task-ttl-ms',
    schema: integer(60_000, 86_400_000),
    default: 600_000,
    doc: 'How long an MCP task and its result are kept after it ends when the client asks for no `ttl`, in ms (held under `TRAWL_MCP_TASK_MAX_TTL_MS`).',
  },
  mcpTaskMaxTtlMs: {
    env: 'TRAWL_MCP_TASK_MAX_TTL_MS',
    flag: '--mcp-task-max-ttl-ms',
    schema: integer(60_000, 86_400_000),
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
    schema: integer(0, 100_000),
    default: 8,
    doc: 'Requests of one API key in flight at once, per process (`0`: no limit). A client sending one request after another never meets it; a concurrent burst beyond it gets 429 `RATE_LIMIT_EXCEEDED` (retry in 1 s). Over MCP, tool calls count.',
  },
  searchCacheMb: {
    env: 'TRAWL_SEARCH_CACHE_MB',
    flag: '--search-cache-mb',
    schema: integer(1, 65_536),
    default: 512,
    doc: "Memory for the search index's decoded posting lists of recently queried terms, per process (each worker of `--workers` has its own). An index of a million documents answers `instant` in a few ms once its queries' lists fit (docs/search.md); a list too big for a quarter of it is decoded per query.",
  },
  agentConcurrency: {
    env: 'TRAWL_AGENT_CONCURRENCY',
    flag: '--agent-concurrency',
    schema: integer(0, 1000),
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
    schema: integer(1, 64),
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
  secretKeyPrevious: {
    env: 'TRAWL_SECRET_KEY_PREVIOUS',
    flag: '--secret-key-previous',
    schema: z.string().min(1),
    default: undefined,
    doc: 'The operator key before a rotation, same form as `TRAWL_SECRET_KEY`: what it sealed (webhook secrets, the OAuth keys) still opens, while new seals use `TRAWL_SECRET_KEY`. Run `trawl secrets reseal`, then remove it (docs/operations.md#rotating-the-secret-key). Never logged.',
  },
  webhookTimeoutMs: {
    env: 'TRAWL_WEBHOOK_TIMEOUT_MS',
    flag: '--webhook-timeout-ms',
    schema: integer(1000, 60_000),
    default: 10_000,
    doc: 'Time a webhook receiver has to answer one delivery attempt, in ms; slower is a failed attempt, retried.',
  },
  webhookRetryHours: {
    env: 'TRAWL_WEBHOOK_RETRY_HOURS',
    flag: '--webhook-retry-hours',
    schema: integer(1, 168),
    default: 24,
    doc: 'How long failed webhook deliveries are retried (exponential backoff from 30 s to 1 h, with jitter) before they are given up.',
  },
} as const;
