/**
 * A zero-retention logger keeps an allowlist of fields (src/lib/content-free.ts): a URL, a query or a
 * text cannot reach its lines under any field name, nested, in a child's bindings, in an error or in the
 * message, while the fields that say what happened stay.
 */
import { describe, expect, it } from 'vitest';
import { withoutContent } from '../../../src/lib/logger.js';
import { captureLogs } from '../../helpers/log-capture.js';

const URL = 'https://private.example.com/report?q=merger';

describe('withoutContent', () => {
  it('drops every field off the allowlist, whatever its name, and keeps the ones that say what happened', () => {
    const { logger, text, entries } = captureLogs();
    withoutContent(logger).debug(
      {
        id: URL,
        target: URL,
        q: 'merger talks',
        urls: [URL],
        nested: { deep: { href: URL } },
        requestId: 'req_abc123',
        tag: 'CRAWL_NOT_FOUND',
        status: 404,
        ms: 12.5,
        ok: false,
      },
      'content fetch failed',
    );
    expect(text()).not.toMatch(/private\.example|merger/);
    expect(entries()[0]).toMatchObject({
      zeroRetention: true,
      requestId: 'req_abc123',
      tag: 'CRAWL_NOT_FOUND',
      status: 404,
      ms: 12.5,
      ok: false,
      msg: 'content fetch failed',
    });
    expect(Object.keys(entries()[0]!)).not.toEqual(expect.arrayContaining(['id', 'target', 'q', 'urls', 'nested']));
  });

  it('keeps no URL or words under an allowlisted name either', () => {
    const { logger, text } = captureLogs();
    withoutContent(logger).info({ status: URL, tool: 'merger talks in private', kind: '//evil.example.com' }, 'x');
    expect(text()).not.toMatch(/private|merger|evil/);
  });

  it('reduces errors to their class, tag and code; messages lose URLs and quoted parts', () => {
    const { logger, text, entries } = captureLogs();
    const err = Object.assign(new Error(`fetching ${URL} failed`), { code: 'ECONNRESET' });
    const zr = withoutContent(logger);
    zr.error({ err }, `page ${URL} said "merger talks"`);
    zr.warn(err);
    zr.info('reading %s', URL);
    expect(text()).not.toMatch(/private\.example|merger|stack/);
    expect(entries()[0]).toMatchObject({ err: { type: 'Error', code: 'ECONNRESET' }, msg: 'page [content] said [content]' }); // prettier-ignore
    expect(entries()[1]).toMatchObject({ err: { type: 'Error', code: 'ECONNRESET' } });
  });

  it('filters the bindings of children and grandchildren, which stay content-free', () => {
    const { logger, text, entries } = captureLogs();
    const child = withoutContent(logger).child({ requestId: 'req_1', url: URL }).child({ tool: 'search', query: 'merger' }); // prettier-ignore
    child.info({ title: 'Merger report' }, 'tool call');
    expect(text()).not.toMatch(/private\.example|merger/i);
    expect(entries()[0]).toMatchObject({ zeroRetention: true, requestId: 'req_1', tool: 'search', msg: 'tool call' });
    expect(withoutContent(child)).toBe(child);
  });

  it('leaves other loggers as they were', () => {
    const { logger, entries } = captureLogs();
    withoutContent(logger);
    logger.child({ requestId: 'req_2' }).debug({ url: 'https://public.example.com/a' }, 'page fetched');
    expect(entries()[0]).toMatchObject({ url: 'https://public.example.com/a', requestId: 'req_2' });
    expect(entries()[0]!.zeroRetention).toBeUndefined();
  });
});
