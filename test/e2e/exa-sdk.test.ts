/**
 * The official Exa TypeScript SDK against Trawl, by changing only the base URL: its request bodies pass
 * validation (so real programs are not rejected for their shape), and its error handling reads ours.
 */
import { Exa } from 'exa-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { ARTICLE } from '../fixtures/site/articles.js';
import { startTestServer, type TestServer } from '../helpers/app.js';

let t: TestServer;
let exa: Exa;
let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
  t = await startTestServer({ privateAllowlist: ['127.0.0.1'] });
  exa = new Exa(t.key, t.url);
});
afterAll(async () => {
  await t.close();
  await site.close();
});

/** The error a call rejects with (exa-js throws ExaError with statusCode and our message). */
async function failure(call: Promise<unknown>): Promise<{ statusCode: number; message: string }> {
  try {
    await call;
  } catch (err) {
    return err as { statusCode: number; message: string };
  }
  throw new Error('expected the call to fail');
}

describe('exa-js against Trawl', () => {
  it('searches with search and searchAndContents as the SDK sends them', async () => {
    const plain = await exa.search('vector databases', { numResults: 5, type: 'fast', includeDomains: ['github.com'] });
    expect(Array.isArray(plain.results)).toBe(true);
    expect(typeof plain.requestId).toBe('string');
    const withText = await exa.searchAndContents('vector databases', {
      text: { maxCharacters: 2000 },
      highlights: true,
    });
    expect(Array.isArray(withText.results)).toBe(true);
    const summarized = await exa.searchAndContents('rust', {
      summary: { query: 'what is it' },
      livecrawl: 'fallback',
      filterEmptyResults: true,
    });
    expect(Array.isArray(summarized.results)).toBe(true);
  });

  it('finds similar pages with findSimilar and findSimilarAndContents', async () => {
    t.app.services.documents.upsert(
      {
        url: 'https://blog.example.com/ferrous-cli',
        title: 'Ferrous CLI tips',
        text: 'Install the Ferrous CLI with npm, then create a client and tune retryBackoffMs.',
        author: null,
        publishedDate: null,
        kind: 'html',
        metadata: {},
        origin: 'fetch',
        collection: null,
        contentHash: 'x',
        fetchedAt: '2026-11-20T10:00:00.000Z',
      },
      '2026-11-20T10:00:00.000Z',
    );
    // the docs page, so the getContents test below still reads the article live
    const source = `${site.url}/docs/getting-started`;
    const plain = await exa.findSimilar(source, { excludeSourceDomain: true, numResults: 3 });
    expect(plain.results.map((r) => r.url)).toContain('https://blog.example.com/ferrous-cli');
    const withText = await exa.findSimilarAndContents(source, { text: true, numResults: 1 });
    expect(withText.results[0]?.text).toContain('tune retryBackoffMs');
    // a source Trawl cannot read is a clear error, not a 400 for the request's shape
    const err = await failure(exa.findSimilar(`${site.url}/missing`));
    expect(err.statusCode).toBe(502);
    expect(err.message).toMatch(/missing/);
  });

  it('reads pages with getContents: results, statuses and costs as the SDK types them', async () => {
    const url = `${site.url}/articles/rust-async`;
    const res = await exa.getContents([url, `${site.url}/missing`], {
      text: { maxCharacters: 2000 },
      highlights: { query: 'futures are lazy', maxCharacters: 400 },
      summary: true,
      maxAgeHours: 24,
    });
    expect(res.results).toHaveLength(1);
    const [page] = res.results;
    expect(page?.url).toBe(url);
    expect(page?.title).toBe(ARTICLE.title);
    expect(page?.author).toBe(ARTICLE.author);
    expect(page?.text).toContain(ARTICLE.sentence);
    expect(page?.highlights?.length).toBeGreaterThan(0);
    expect(page?.highlightScores?.length).toBe(page?.highlights?.length);
    expect(typeof page?.summary).toBe('string');
    expect(res.statuses).toEqual([
      { id: url, status: 'success', source: 'crawled' },
      { id: `${site.url}/missing`, status: 'error', error: { tag: 'CRAWL_NOT_FOUND', httpStatusCode: 404 } },
    ]);
    expect(res.costDollars?.total).toBeGreaterThan(0);
    expect(res.requestId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('surfaces validation errors with the field named', async () => {
    const err = await failure(exa.search('x', { numResults: 500 }));
    expect(err.statusCode).toBe(400);
    expect(err.message).toMatch(/numResults: must be at most 100/);
  });

  it('refuses dynamic highlights without the beta header, naming the header to send', async () => {
    const err = await failure(
      exa.getContents(['https://example.com'], { highlights: { dynamic: true } } as Parameters<
        typeof exa.getContents
      >[1]),
    );
    expect(err.statusCode).toBe(400);
    expect(err.message).toMatch(/Svc-Beta: dynamic-highlights-2026-08-28/);
  });

  it('is refused with a wrong key', async () => {
    const err = await failure(new Exa('wrong-key', t.url).search('x'));
    expect(err.statusCode).toBe(401);
    expect(err.message).toMatch(/Invalid API key/);
  });
});
