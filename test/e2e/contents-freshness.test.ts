/**
 * /contents freshness end to end: every `maxAgeHours` case and the deprecated `livecrawl` values, on an
 * app whose clock the test moves, against fixture pages that count their visits or answer 304.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/logger.js';
import { ETAG_V1, etagOf, etagPage, send, startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { counterPage } from '../fixtures/site/articles.js';
import { simpleArticle } from '../fixtures/site/layout.js';
import { postJson, tempDir } from '../helpers/app.js';

interface Status {
  id: string;
  status: 'success' | 'error';
  source?: 'cached' | 'crawled';
  error?: { tag: string; httpStatusCode: number | null } | null;
}
interface ContentsBody {
  results: { url: string; text?: string }[];
  statuses: Status[];
}

const HOUR = 3600_000;
/** The app's clock: real time plus an offset the tests move forward. */
const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };

let site: FixtureSite;
let app: App;
let server: RunningServer;
let key: string;
let cleanup: () => void;
beforeAll(async () => {
  site = await startFixtureSite();
  const tmp = tempDir();
  cleanup = tmp.cleanup;
  const config = loadConfig(
    {},
    {
      dataDir: tmp.dir,
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      privateAllowlist: ['127.0.0.1'],
      rateLimitQps: 0,
    },
  );
  app = createApp(config, { logger: createLogger('silent'), clock });
  server = await startHttpServer(app, '127.0.0.1', 0);
  key = (await app.services.keys.create('test', {}, null)).key;
});
afterAll(async () => {
  await server?.close();
  await app?.close();
  cleanup?.();
  await site?.close();
});

const u = (path: string) => site.url + path;

/** Reads one URL with the given freshness options; returns its status and text. */
async function read(path: string, options: Record<string, unknown> = {}) {
  const res = await postJson(
    server.url,
    '/contents',
    { urls: [u(path)], text: true, ...options },
    { 'x-api-key': key },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const body = res.body as unknown as ContentsBody;
  return { status: body.statuses[0]!, text: body.results[0]?.text };
}

/** The visit number a counter page's text reports. */
const served = (text: string | undefined) => Number(/served (\d+) times?/.exec(text ?? '')?.[1] ?? NaN);

describe('maxAgeHours', () => {
  it('omitted: crawls when nothing is cached, then serves the cache', async () => {
    const first = await read('/counter?case=omitted');
    const second = await read('/counter?case=omitted');
    expect([first.status.source, second.status.source]).toEqual(['crawled', 'cached']);
    expect([served(first.text), served(second.text)]).toEqual([1, 1]);
    expect(site.hits('/counter?case=omitted')).toBe(1);
  });

  it('0: always crawls', async () => {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await read('/counter?case=zero', { maxAgeHours: 0 }));
    expect(runs.map((r) => r.status.source)).toEqual(['crawled', 'crawled', 'crawled']);
    expect(runs.map((r) => served(r.text))).toEqual([1, 2, 3]);
    expect(site.hits('/counter?case=zero')).toBe(3);
  });

  it('-1: cache only; an uncached URL is SOURCE_NOT_AVAILABLE and the site is not asked', async () => {
    const miss = await read('/counter?case=cache-only', { maxAgeHours: -1 });
    expect(miss.status).toMatchObject({ id: u('/counter?case=cache-only'), status: 'error' });
    expect(miss.status.error).toEqual({ tag: 'SOURCE_NOT_AVAILABLE', httpStatusCode: null });
    expect(miss.text).toBeUndefined();
    expect(site.hits('/counter?case=cache-only')).toBe(0);
    await read('/counter?case=cache-only');
    const hit = await read('/counter?case=cache-only', { maxAgeHours: -1 });
    expect(hit.status.source).toBe('cached');
    expect(site.hits('/counter?case=cache-only')).toBe(1);
  });

  it('positive: serves a copy younger than that, crawls an older one', async () => {
    await read('/counter?case=age');
    const fresh = await read('/counter?case=age', { maxAgeHours: 1 });
    expect(fresh.status.source).toBe('cached');
    clock.offsetMs += 2 * HOUR;
    const young = await read('/counter?case=age', { maxAgeHours: 3 });
    expect([young.status.source, served(young.text)]).toEqual(['cached', 1]);
    const expired = await read('/counter?case=age', { maxAgeHours: 1 });
    expect([expired.status.source, served(expired.text)]).toEqual(['crawled', 2]);
    const again = await read('/counter?case=age', { maxAgeHours: 1 });
    expect([again.status.source, served(again.text)]).toEqual(['cached', 2]);
    expect(site.hits('/counter?case=age')).toBe(2);
  });
});

describe('deprecated livecrawl', () => {
  it('never = cache only', async () => {
    const miss = await read('/counter?case=never', { livecrawl: 'never' });
    expect(miss.status.error?.tag).toBe('SOURCE_NOT_AVAILABLE');
    expect(site.hits('/counter?case=never')).toBe(0);
    await read('/counter?case=never');
    expect((await read('/counter?case=never', { livecrawl: 'never' })).status.source).toBe('cached');
    expect(site.hits('/counter?case=never')).toBe(1);
  });

  it('always = crawl every time; fallback = crawl only when nothing is cached', async () => {
    const always = [await read('/counter?case=always', { livecrawl: 'always' })];
    always.push(await read('/counter?case=always', { livecrawl: 'always' }));
    expect(always.map((r) => [r.status.source, served(r.text)])).toEqual([
      ['crawled', 1],
      ['crawled', 2],
    ]);
    const fallback = [await read('/counter?case=fallback', { livecrawl: 'fallback' })];
    fallback.push(await read('/counter?case=fallback', { livecrawl: 'fallback' }));
    expect(fallback.map((r) => r.status.source)).toEqual(['crawled', 'cached']);
    expect(site.hits('/counter?case=fallback')).toBe(1);
  });

  it('preferred = crawl live, and fall back to the cached copy when the live fetch fails', async () => {
    let failing = false;
    site.setPage('/flaky', (_req, res, { count }) =>
      failing
        ? send(res, 503, 'text/html', simpleArticle('Down', ['Service unavailable.']))
        : send(res, 200, 'text/html; charset=utf-8', counterPage(count)),
    );
    const first = await read('/flaky', { livecrawl: 'preferred' });
    const second = await read('/flaky', { livecrawl: 'preferred' });
    expect([first, second].map((r) => [r.status.source, served(r.text)])).toEqual([
      ['crawled', 1],
      ['crawled', 2],
    ]);
    failing = true;
    const fallback = await read('/flaky', { livecrawl: 'preferred' });
    expect(fallback.status).toMatchObject({ status: 'success', source: 'cached' });
    expect(served(fallback.text)).toBe(2);
    const always = await read('/flaky', { livecrawl: 'always' });
    expect(always.status.status).toBe('error');
    expect(always.status.error?.tag).toBe('SOURCE_NOT_AVAILABLE');
  });
});

describe('conditional refresh', () => {
  it('revalidates with If-None-Match: a 304 keeps the text, a changed page updates the document', async () => {
    const first = await read('/etag');
    expect(first.status.source).toBe('crawled');
    // The stored document keeps the page's main text (its own rendering, not necessarily the result's).
    expect((await app.services.documents.get(u('/etag')))?.text).toContain('first edition');

    const unchanged = await read('/etag', { maxAgeHours: 0 });
    const revalidation = site.requests.filter((r) => r.path === '/etag').at(-1)!;
    expect(revalidation.headers['if-none-match']).toBe(etagOf(ETAG_V1));
    expect(unchanged.status).toMatchObject({ status: 'success', source: 'crawled' });
    expect(unchanged.text).toBe(first.text);

    const edition = 'Second edition: configuration files now live next to the project, not in the home folder.';
    site.setPage('/etag', etagPage(simpleArticle('Release notes', [edition, 'Older notes moved to the archive.'])));
    const changed = await read('/etag', { maxAgeHours: 0 });
    expect(changed.status.source).toBe('crawled');
    expect(changed.text).toContain(edition);
    const stored = await app.services.documents.get(u('/etag'));
    expect(stored?.text).toContain(edition);
    expect(stored?.text).not.toContain('first edition');
    expect(site.hits('/etag')).toBe(3);
  });
});
