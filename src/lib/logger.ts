/**
 * Structured logs (pino) on stderr only: stdout belongs to the MCP stdio stream. Secrets are redacted
 * wherever they may appear (headers, webhook secrets, model and provider keys).
 */
import { pino, stdSerializers, type Bindings, type ChildLoggerOptions, type Logger, type LevelWithSilent } from 'pino';
import { contentFreeArgs, contentFreeFields } from './content-free.js';
import { redactText } from './redact.js';
import { prettyStream } from './pretty-log.js';

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

/** Marks a logger (and, by inheritance, its children) whose lines must carry no content. */
const CONTENT_FREE = Symbol('trawl.contentFree');
const isContentFree = (logger: Logger) => (logger as Logger & { [CONTENT_FREE]?: true })[CONTENT_FREE] === true;

/**
 * Every log call passes here: a content-free logger's arguments are cut down to the allowlist
 * (content-free.ts); the message strings of any call (`logger.info({...}, 'listening on ' + url)`) are
 * redacted.
 */
function redactMessages(this: Logger, args: unknown[], method: (...a: unknown[]) => void): void {
  const safe = isContentFree(this) ? contentFreeArgs(args) : args;
  method.apply(
    this,
    safe.map((a) => (typeof a === 'string' ? redactText(a) : a)),
  );
}

/** How log lines are written: JSON lines, or short readable lines for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';
/** `TRAWL_LOG_FORMAT`: `auto` is readable lines when stderr is a terminal, JSON when not. */
export type LogFormatSetting = LogFormat | 'auto';

/** The format `setting` gives on this process's stderr. */
export function logFormatOf(setting: LogFormatSetting, stderr: { isTTY?: boolean } = process.stderr): LogFormat {
  if (setting !== 'auto') return setting;
  return stderr.isTTY ? 'pretty' : 'json';
}

const jsonLines = (destination: number | NodeJS.WritableStream) =>
  typeof destination === 'number' ? pino.destination({ fd: destination, sync: false }) : destination;

/** A logger writing to stderr (fd 2) at `level`: JSON lines, or readable ones (`pretty`, for a terminal). */
export function createLogger(
  level: LevelWithSilent,
  destination: number | NodeJS.WritableStream = 2,
  format: LogFormat = 'json',
  /** Colour the levels of readable lines (a terminal, and no NO_COLOR). */
  color = false,
): Logger {
  const stream =
    format === 'pretty'
      ? prettyStream(typeof destination === 'number' ? process.stderr : destination, color)
      : jsonLines(destination);
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

/**
 * The logger of a request from a zero-retention team: every line, at every level and through every child
 * logger made from it, keeps only the content-free fields (src/lib/content-free.ts: an allowlist, so no
 * URL, query or text appears under any field name), its message has URLs and quoted parts removed, and it
 * is marked `zeroRetention: true` (docs/accounts.md).
 */
export function withoutContent(logger: Logger): Logger {
  if (isContentFree(logger)) return logger;
  const scoped = Object.assign(logger.child({ zeroRetention: true }), { [CONTENT_FREE]: true as const });
  const makeChild = scoped.child as unknown as (
    this: Logger,
    bindings: Bindings,
    options?: ChildLoggerOptions,
  ) => Logger;
  // children inherit this `child` too (pino makes a child with Object.create of its parent)
  scoped.child = function contentFreeChild(this: Logger, bindings: Bindings, options?: ChildLoggerOptions) {
    return makeChild.call(this, contentFreeFields(bindings), options);
  } as unknown as Logger['child'];
  return scoped;
}
