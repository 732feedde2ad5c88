/**
 * Structured logs (pino) on stderr only: stdout belongs to the MCP stdio stream. Secrets are redacted
 * wherever they may appear (headers, webhook secrets, model and provider keys).
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';

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

/** A logger writing JSON lines to stderr (fd 2) at `level`. */
export function createLogger(level: LevelWithSilent, destination: number | NodeJS.WritableStream = 2): Logger {
  const stream = typeof destination === 'number' ? pino.destination({ fd: destination, sync: false }) : destination;
  return pino(
    {
      name: 'trawl',
      level,
      base: { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    stream,
  );
}

/** Fields that can carry a request's content (queries, URLs, texts, error messages naming them). */
const CONTENT_PATHS = ['query', 'url', 'urls', 'text', 'title', 'input', 'body', 'prompt', 'reason', 'err.message', 'err.stack']; // prettier-ignore

/**
 * The logger of a request from a zero-retention team: every line keeps its event and numbers, but the
 * fields that can carry the request's content are removed, at every level (docs/accounts.md).
 */
export function withoutContent(logger: Logger): Logger {
  const paths = [...CONTENT_PATHS, ...CONTENT_PATHS.filter((p) => !p.includes('.')).map((p) => `*.${p}`)];
  return logger.child({ zeroRetention: true }, { redact: { paths, remove: true } });
}
