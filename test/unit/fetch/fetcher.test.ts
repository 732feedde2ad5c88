import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetcher, DEFAULT_USER_AGENT, productToken } from '../../../src/fetch/fetcher.js';
import { toFetchError } from '../../../src/fetch/errors.js';
import { fetchError, pause, recordingSleep, redirect, send, startSite, testFetcher, type Site } from './fixture.js';

const PAGE = '<!doctype html><title>t</title><p>' + 'hello world '.repeat(50) + '</p>';

describe('fetcher: redirects, timeouts, caps, encodings', () => {
  let site: Site;
  const fetcher = testFetcher({ robots: false, maxBodyBytes: 1000, headersTimeoutMs: 5000 });

  beforeAll(async () => {
    site = await startSite({
      '/a': redirect('/b', 301),
      '/b': redirect('/c', 307),
      '/c': redirect('/final?x=1', 308),
      '/final': send(PAGE),
      '/loop1': redirect('/loop2'),
      '/loop2': redirect('/loop1'),
      '/slow-headers': async (_req, res) => {
        await pause(1500);
        await send('late')(_req, res);
      },
      '/slow-body': async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < 20 && !res.destroyed; i++) {
          res.write('chunk ');
          await pause(100);
        }
        res.end();
      },
      '/big-declared': send('x'.repeat(2000), 'text/plain'),
      '/big-chunked': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
        for (let i = 0; i < 20; i++) res.write('y'.repeat(100));
        res.end();
      },
      '/bomb': send(zlib.gzipSync(Buffer.alloc(50_000, 32)), 'text/plain', { 'content-encoding': 'gzip' }),
      '/gzip': send(zlib.gzipSync('gzip body'), 'text/plain', { 'content-encoding': 'gzip' }),
      '/br': send(zlib.brotliCompressSync('br body'), 'text/plain', { 'content-encoding': 'br' }),
      '/deflate': send(zlib.deflateSync('deflate body'), 'text/plain', { 'content-encoding': 'deflate' }),
      '/deflate-raw': send(zlib.deflateRawSync('raw deflate body'), 'text/plain', { 'content-encoding': 'deflate' }),
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await site.close();
  });

  it('follows a redirect chain and reports the final URL', async () => {
    const res = await fetcher.fetch({ url: `${site.origin}/a`, timeoutMs: 5000 });
    expect(res).toMatchObject({ requestedUrl: `${site.origin}/a`, url: `${site.origin}/final?x=1`, status: 200 });
    expect(res.kind).toBe('html');
    expect(res.text).toBe(PAGE);
    expect(site.lastHeaders.get('/final')?.['user-agent']).toBe(DEFAULT_USER_AGENT);
  });

  it('stops at the redirect limit and on loops', async () => {
    const limited = testFetcher({ robots: false, maxRedirects: 2 });
    const before = site.count('/c');
    try {
      const err = await fetchError(limited.fetch({ url: `${site.origin}/a`, timeoutMs: 5000 }));
      expect(err.tag).toBe('CRAWL_TOO_MANY_REDIRECTS');
      expect(site.count('/c') - before).toBe(1);
      expect(site.count('/final')).toBe(1);
    } finally {
      await limited.close();
    }
    const loop = await fetchError(fetcher.fetch({ url: `${site.origin}/loop1`, timeoutMs: 5000 }));
    expect(loop.tag).toBe('CRAWL_TOO_MANY_REDIRECTS');
    expect(loop.message).toMatch(/loop/);
  });

  it('tells its own headers timeout from the whole-fetch timeout', async () => {
    const impatient = testFetcher({ robots: false, headersTimeoutMs: 200 });
    try {
      const own = await fetchError(impatient.fetch({ url: `${site.origin}/slow-headers`, timeoutMs: 5000 }));
      expect(own.tag).toBe('CRAWL_TIMEOUT');
    } finally {
      await impatient.close();
    }
    // the headers would come (fine) after 1.5 s: the tag says which deadline ended it
    const whole = await fetchError(fetcher.fetch({ url: `${site.origin}/slow-headers`, timeoutMs: 300 }));
    expect(whole.tag).toBe('CRAWL_LIVECRAWL_TIMEOUT');
  });

  it('bounds the body by the whole-fetch timeout too', async () => {
    // the body would end (fine) after 2 s
    const err = await fetchError(fetcher.fetch({ url: `${site.origin}/slow-body`, timeoutMs: 400 }));
    expect(err.tag).toBe('CRAWL_LIVECRAWL_TIMEOUT');
  });

  it.each(['/big-declared', '/big-chunked', '/bomb'])('caps the body size (%s)', async (path) => {
    const err = await fetchError(fetcher.fetch({ url: site.origin + path, timeoutMs: 5000 }));
    expect(err.tag).toBe('CRAWL_TOO_LARGE');
    expect(err.message).toMatch(/1000-byte cap/);
  });

  it.each([
    ['/gzip', 'gzip body'],
    ['/br', 'br body'],
    ['/deflate', 'deflate body'],
    ['/deflate-raw', 'raw deflate body'],
  ])('decodes %s', async (path, text) => {
    const res = await fetcher.fetch({ url: site.origin + path, timeoutMs: 5000 });
    expect(res.text).toBe(text);
    expect(site.lastHeaders.get(path)?.['accept-encoding']).toBe('gzip, br, deflate');
  });
});

describe('fetcher: retries, conditional requests, status mapping', () => {
  let site: Site;
  let flaky = 0;
  const recorder = recordingSleep();
  const fetcher = testFetcher({ robots: false, sleep: recorder.sleep });

  beforeAll(async () => {
    site = await startSite({
      '/flaky': (req, res) => {
        if (++flaky <= 2) res.writeHead(503).end('busy');
        else void send('<p>finally</p>')(req, res);
      },
      '/down': (_req, res) => void res.writeHead(503).end(),
      '/limited': (req, res) => {
        if (site.count('/limited') === 1) res.writeHead(429, { 'retry-after': '2' }).end();
        else void send('<p>ok</p>')(req, res);
      },
      '/limited-long': (_req, res) => void res.writeHead(429, { 'retry-after': '3600' }).end(),
      '/etag': (req, res) => {
        if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
        void send('<p>v1</p>', 'text/html', { etag: '"v1"', 'last-modified': 'Wed, 01 Jan 2025 00:00:00 GMT' })(
          req,
          res,
        );
      },
      '/since': (req, res) => {
        if (req.headers['if-modified-since']) return void res.writeHead(304).end();
        void send('<p>fresh</p>')(req, res);
      },
      '/gone': (_req, res) => void res.writeHead(410).end(),
      '/forbidden': (_req, res) => void res.writeHead(403).end(),
      '/broken': (_req, res) => void res.writeHead(500).end(),
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await site.close();
  });

  it('retries 503 with growing backoff, then succeeds', async () => {
    recorder.waits.length = 0;
    const res = await fetcher.fetch({ url: `${site.origin}/flaky`, timeoutMs: 60_000 });
    expect(res.text).toBe('<p>finally</p>');
    expect(site.count('/flaky')).toBe(3);
    expect(recorder.waits).toEqual([375, 750]);
  });

  it('gives up after the retries with the last status', async () => {
    const err = await fetchError(fetcher.fetch({ url: `${site.origin}/down`, timeoutMs: 60_000 }));
    expect(err).toMatchObject({ tag: 'SOURCE_NOT_AVAILABLE', httpStatusCode: 503 });
    expect(site.count('/down')).toBe(3);
  });

  it('never plans a retry beyond the fetch deadline', async () => {
    const before = site.count('/down');
    const err = await fetchError(fetcher.fetch({ url: `${site.origin}/down`, timeoutMs: 400 }));
    expect(err.tag).toBe('SOURCE_NOT_AVAILABLE');
    expect(site.count('/down') - before).toBe(1);
  });

  it('honours Retry-After on 429 up to a cap', async () => {
    recorder.waits.length = 0;
    const res = await fetcher.fetch({ url: `${site.origin}/limited`, timeoutMs: 60_000 });
    expect(res.status).toBe(200);
    expect(recorder.waits).toEqual([2000]);
    const err = await fetchError(fetcher.fetch({ url: `${site.origin}/limited-long`, timeoutMs: 60_000 }));
    expect(err).toMatchObject({ tag: 'CRAWL_HTTP_ERROR', httpStatusCode: 429 });
    expect(site.count('/limited-long')).toBe(1);
  });

  it('retries a refused connection and reports the source as not available', async () => {
    const closed = await startSite({});
    const url = `${closed.origin}/`;
    await closed.close();
    recorder.waits.length = 0;
    const err = await fetchError(fetcher.fetch({ url, timeoutMs: 60_000 }));
    expect(err.tag).toBe('SOURCE_NOT_AVAILABLE');
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(recorder.waits).toHaveLength(2);
  });

  it('sends validators and reports 304 as not modified', async () => {
    const first = await fetcher.fetch({ url: `${site.origin}/etag`, timeoutMs: 5000 });
    expect(first).toMatchObject({ etag: '"v1"', lastModified: 'Wed, 01 Jan 2025 00:00:00 GMT', notModified: false });
    const again = await fetcher.fetch({ url: `${site.origin}/etag`, timeoutMs: 5000, conditional: { etag: '"v1"' } });
    expect(again).toMatchObject({ status: 304, notModified: true, text: '' });
    const since = await fetcher.fetch({
      url: `${site.origin}/since`,
      timeoutMs: 5000,
      conditional: { lastModified: 'Wed, 01 Jan 2025 00:00:00 GMT' },
    });
    expect(since.notModified).toBe(true);
    expect(site.lastHeaders.get('/since')?.['if-modified-since']).toBe('Wed, 01 Jan 2025 00:00:00 GMT');
  });

  it.each([
    ['/missing', 'CRAWL_NOT_FOUND', 404],
    ['/gone', 'CRAWL_NOT_FOUND', 410],
    ['/forbidden', 'CRAWL_HTTP_ERROR', 403],
    ['/broken', 'SOURCE_NOT_AVAILABLE', 500],
  ])('maps %s to %s', async (path, tag, status) => {
    const err = await fetchError(fetcher.fetch({ url: site.origin + path, timeoutMs: 5000 }));
    expect(err).toMatchObject({ tag, httpStatusCode: status });
  });

  it('reports a caller abort as a cancelled fetch', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await fetchError(
      fetcher.fetch({ url: `${site.origin}/etag`, timeoutMs: 5000, signal: controller.signal }),
    );
    expect(err.message).toMatch(/cancelled/);
  });

  it('maps network error codes in one place', () => {
    const of = (code: string) => toFetchError(Object.assign(new Error(code), { code }), 'example.com').tag;
    expect(of('ENOTFOUND')).toBe('CRAWL_NOT_FOUND');
    expect(of('ECONNREFUSED')).toBe('SOURCE_NOT_AVAILABLE');
    expect(of('UND_ERR_CONNECT_TIMEOUT')).toBe('CRAWL_TIMEOUT');
    expect(of('UND_ERR_BODY_TIMEOUT')).toBe('CRAWL_TIMEOUT');
    expect(of('CERT_HAS_EXPIRED')).toBe('CRAWL_UNKNOWN_ERROR');
    expect(of('HPE_INVALID_CONSTANT')).toBe('CRAWL_UNKNOWN_ERROR');
  });

  it('names Trawl in the user agent and takes its product token for robots.txt', () => {
    expect(DEFAULT_USER_AGENT).toMatch(/^Trawl\/\d+\.\d+\.\d+ \(\+https:\/\/github\.com\/trawl\)$/);
    expect(productToken('TrawlBot/2.0 (ops@example.com)')).toBe('TrawlBot');
    const custom = createFetcher({ userAgent: 'MyCrawler/1.0' });
    return custom.close();
  });
});
