/**
 * Readable log lines for a terminal (TRAWL_LOG_FORMAT, issue 37 part 10): pino's JSON line becomes
 * `time LEVEL message key=value`, redaction still applies, and `auto` picks it only on a terminal.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logFormatOf } from '../../../src/lib/logger.js';
import { prettyLine } from '../../../src/lib/pretty-log.js';

const line = (entry: Record<string, unknown>) =>
  JSON.stringify({ level: 30, time: '2026-11-29T17:04:05.123Z', pid: 42, name: 'trawl', ...entry });

describe('prettyLine', () => {
  it('shows the time, the level and the message, then the fields that say something', () => {
    expect(prettyLine(line({ msg: 'listening on http://127.0.0.1:8787', url: 'http://127.0.0.1:8787' }), false)).toBe(
      '17:04:05 INFO  listening on http://127.0.0.1:8787  url=http://127.0.0.1:8787\n',
    );
    expect(prettyLine(line({ level: 40, msg: 'slow', ms: 12.5, route: '/search', note: 'two words' }), false)).toBe(
      '17:04:05 WARN  slow  ms=12.5 route=/search note="two words"\n',
    );
  });

  it('shows an error as its type and message, cuts long values, and colours the level only when asked', () => {
    const err = { type: 'TypeError', message: 'boom', stack: 'TypeError: boom\n    at x' };
    const out = prettyLine(line({ level: 50, msg: 'failed', err, body: 'x'.repeat(500) }), false);
    expect(out).toMatch(/^17:04:05 ERROR failed {2}err="TypeError: boom" body=x+…\n$/);
    expect(out.length).toBeLessThan(200);
    expect(out).not.toContain('\x1b[');
    expect(prettyLine(line({ msg: 'hi' }), true)).toBe('17:04:05 \x1b[36mINFO \x1b[0m hi\n');
  });

  it('passes a line that is not JSON through as it is', () => {
    expect(prettyLine('plain text', false)).toBe('plain text\n');
  });
});

describe('createLogger in the pretty format', () => {
  it('writes readable lines, redacted as the JSON ones are', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const logger = createLogger('info', out, 'pretty');
    logger.info(
      { apiKey: 'trawl_secretsecretsecret', host: 'example.com' },
      'key made for https://u:hunter2pass@h.test/x',
    );
    logger.debug('not at info');
    await new Promise((r) => setImmediate(r));
    expect(text).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}key made for https:\/\/h\.test\/x {2}apiKey=\[redacted\] host=example\.com\n$/,
    );
    expect(text).not.toContain('hunter2pass');
    expect(text).not.toContain('secretsecret');
  });

  it('auto is pretty on a terminal and JSON elsewhere; json and pretty are what they say', () => {
    expect(logFormatOf('auto', { isTTY: true })).toBe('pretty');
    expect(logFormatOf('auto', { isTTY: false })).toBe('json');
    expect(logFormatOf('auto', {})).toBe('json');
    expect(logFormatOf('json', { isTTY: true })).toBe('json');
    expect(logFormatOf('pretty', {})).toBe('pretty');
  });
});
