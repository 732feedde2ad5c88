/** A debug logger whose lines the test reads back: as one text, or each parsed. */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/lib/logger.js';

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, as written. */
  text(): string;
  /** Every line written so far, parsed. */
  entries(): Record<string, unknown>[];
}

/** A logger at debug level writing into memory. */
export function captureLogs(): CapturedLogs {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    logger: createLogger('debug', stream),
    text: () => lines.join(''),
    entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
