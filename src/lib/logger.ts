/**
 * Structured logs (pino) on stderr only: stdout belongs to the MCP stdio stream. Secrets are redacted
 * wherever they may appear (headers, webhook secrets, model and provider keys).
 */
import { pino, stdSerializers, type Logger, type LevelWithSilent } from 'pino';
import { redactText } from './redact.js';

export type { Logger };

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'headers.authorization',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'apiKey',
  'key',
  'secret',
  'webhookSecret',
  'embeddingsApiKey',
  '*.embeddingsApiKey',
  'braveApiKey',
  '*.braveApiKey',
  'upstreamApiKey',
  '*.upstreamApiKey',
  'secretKey',
  '*.secretKey',
  'x402FacilitatorApiKey',
  '*.x402FacilitatorApiKey',
  'modelApiKey',
  '*.modelApiKey',
  'headers["svc-signature"]',
  'headers["x-subscription-token"]',
  '*.apiKey',
  '*.key',
  '*.secret',
  '*.webhookSecret',
  '*.authorization',
];

/** Deepest level of a logged object whose strings are checked; deeper values are left out. */
const MAX_DEPTH = 6;

/** `value` with every string passed through `redactText` (URLs, key-like tokens); errors go to `safeError`. */
function redactDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object' || value instanceof Error) return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, depth + 1)]));
}

/** pino's error serializer, then every string of it (message, stack, a provider's echoed body) redacted. */
function safeError(err: unknown): unknown {
  const serialized = stdSerializers.err(err as Error) as unknown;
  if (serialized === null || typeof serialized !== 'object') return redactDeep(serialized, 0);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(serialized)) if (k !== 'raw') out[k] = redactDeep(v, 1);
  return out;
}

/** The message strings of a log call (`logger.info({...}, 'listening on ' + url)`), redacted too. */
function redactMessages(this: Logger, args: unknown[], method: (...a: unknown[]) => void): void {
  method.apply(
    this,
    args.map((a) => (typeof a === 'string' ? redactText(a) : a)),
  );
}

/** A logger writing JSON lines to stderr (fd 2) at `level`. */
export function createLogger(level: LevelWithSilent, destination: number | NodeJS.WritableStream = 2): Logger {
  const stream = typeof destination === 'number' ? pino.destination({ fd: destination, sync: false }) : destination;
  return pino(
    {
      name: 'trawl',
      level,
      base: { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: safeError, error: safeError },
      formatters: { log: (object) => redactDeep(object, 0) as Record<string, unknown> },
      hooks: { logMethod: redactMessages },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    stream,
  );
}

/** Fields that can carry a request's content (queries, URLs, texts, error messages naming them). */
const CONTENT_PATHS = [
  'query',
  'url',
  'urls',
  'text',
  'title',
  'input',
  'body',
  'prompt',
  'reason',
  'err.message',
  'err.stack',
];

/**
 * The logger of a request from a zero-retention team: every line keeps its event and numbers, but the
 * fields that can carry the request's content are removed, at every level (docs/accounts.md).
 */
export function withoutContent(logger: Logger): Logger {
  const paths = [...CONTENT_PATHS, ...CONTENT_PATHS.filter((p) => !p.includes('.')).map((p) => `*.${p}`)];
  return logger.child({ zeroRetention: true }, { redact: { paths, remove: true } });
}
