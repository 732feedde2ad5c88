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

  it('sends findSimilar bodies Trawl accepts', async () => {
    const calls = [exa.findSimilar('https://example.com/post', { excludeSourceDomain: true, numResults: 3 })];
    for (const call of calls) {
      const err = await failure(call);
      // 501: the request was valid and reached its (not yet built) capability; a 400 would mean a
      // shape the hosted API accepts was refused.
      expect(err.statusCode, err.message).toBe(501);
      expect(err.message).toMatch(/not built yet/);
    }
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
