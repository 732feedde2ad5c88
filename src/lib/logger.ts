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
