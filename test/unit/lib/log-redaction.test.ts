/**
 * Log redaction (issue 21, defect 8): URLs lose `user:pass@` and the values of secret-looking query
 * parameters wherever they appear in a log line (fields, nested objects, messages, errors), and key-like
 * tokens are removed from texts.
 */
import { describe, expect, it } from 'vitest';
import { redactText, redactUrl, safeExcerpt } from '../../../src/lib/redact.js';
import { captureLogs } from '../../helpers/log-capture.js';

const SECRETS = ['hunter2pass', 'tok-abc-123456', 'sigvalue987', 'qwerty-api-key'];

describe('redactUrl', () => {
  it('strips userinfo and blanks secret-looking parameters, keeping the others', () => {
    const url = 'https://alice:hunter2pass@example.com/a?q=rust&token=tok-abc-123456&X-Amz-Signature=sigvalue987#frag';
    expect(redactUrl(url)).toBe('https://example.com/a?q=rust&token=[redacted]&X-Amz-Signature=[redacted]');
  });
  it('leaves plain URLs and non-URLs alone', () => {
    expect(redactUrl('https://example.com/docs')).toBe('https://example.com/docs');
    expect(redactUrl('not a url')).toBe('not a url');
  });
});

describe('redactText', () => {
  it('removes bearer values, key fields, vendor keys and URLs with credentials inside a text', () => {
    const text =
      'upstream said {"error":"bad key","api_key":"qwerty-api-key"} for Authorization: Bearer abcdefghijkl ' +
      'sk-proj-AbCdEf0123456789xyz at http://u:hunter2pass@h.test/x?access_token=tok-abc-123456';
    const out = redactText(text);
    for (const s of [...SECRETS, 'abcdefghijkl', 'sk-proj-AbCdEf0123456789xyz']) expect(out).not.toContain(s);
    expect(out).toContain('bad key');
  });
  it('keeps hex ids and ordinary words', () => {
    const id = '0123456789abcdef0123456789abcdef';
    expect(redactText(`request ${id} failed: not found`)).toBe(`request ${id} failed: not found`);
  });
  it('bounds an excerpt and scrubs known secrets', () => {
    const out = safeExcerpt(`echo: ${'x'.repeat(500)} mysecretvalue`, ['mysecretvalue'], 50);
    expect(out.length).toBeLessThanOrEqual(50);
    expect(safeExcerpt('key is mysecretvalue', ['mysecretvalue'])).toBe('key is [redacted]');
  });
});

describe('the logger', () => {
  it('never writes credentials of a URL, in fields, nested objects, messages or errors', () => {
    const { logger, text } = captureLogs();
    const url = 'https://alice:hunter2pass@example.com/a?token=tok-abc-123456&sig=sigvalue987&q=ok';
    logger.debug({ url }, 'page fetched');
    logger.debug({ urls: [url], page: { url } }, 'nested');
    logger.info(`listening on ${url}`);
    logger.warn({ err: new Error(`fetching ${url} failed: api_key=qwerty-api-key`) }, 'failed');
    const out = text();
    for (const s of SECRETS) expect(out).not.toContain(s);
    expect(out).toContain('https://example.com/a?token=[redacted]&sig=[redacted]&q=ok');
    expect(out).toContain('page fetched');
  });
});
