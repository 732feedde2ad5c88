/**
 * The official Exa TypeScript SDK against Trawl, by changing only the base URL: its request bodies pass
 * validation (so real programs are not rejected for their shape), older clients' options (`type:
 * "keyword" | "hybrid"`, deprecated highlight options) are served, a result of an imported collection
 * seeds findSimilar, its error handling reads ours, and answers without a model are extracted and say so.
 * With a model: exa-sdk-answer.test.ts; agent runs and monitors: exa-sdk-runs.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
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
    await t.app.services.documents.upsert(
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
    expect(err.statusCode).toBe(400);
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
    // each entry as the spec has it (a `message` beside them says why, where Trawl knows)
    expect(res.statuses).toMatchObject([
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

/** Claims of a SciFact-like corpus, imported without URLs: search returns them as `import://scifact/<_id>`. */
const SCIFACT = [
  { _id: '4983', title: 'Microstructural development of human newborn cerebral white matter', text: 'Diffusion tensor MRI of preterm infants shows the apparent diffusion coefficient of cerebral white matter falling with age, and anisotropy rising as white matter fibres organise.' }, // prettier-ignore
  { _id: '5836', title: 'White matter injury in preterm infants', text: 'Preterm infants imaged with diffusion tensor MRI at term show white matter injury: a raised apparent diffusion coefficient and lower anisotropy in cerebral white matter.' }, // prettier-ignore
  { _id: '7912', title: 'Sourdough fermentation', text: 'Lactic acid bacteria and wild yeasts ferment the dough; a longer fermentation gives a sourer bread.' }, // prettier-ignore
];

describe('older clients and imported results', () => {
  beforeAll(async () => {
    const file = path.join(t.dataDir, 'scifact.jsonl');
    fs.writeFileSync(file, SCIFACT.map((r) => JSON.stringify(r)).join('\n'));
    const done = await t.app.services.imports.importPath(file, {
      collection: 'scifact',
      batch: 100,
      onIssue: () => undefined,
    });
    expect(done.imported).toBe(3);
  });

  it('searches with type "keyword" (run as fast) and "hybrid" (run as auto)', async () => {
    for (const [type, resolved] of [
      ['keyword', 'fast'],
      ['hybrid', 'auto'],
    ] as const) {
      const res = await exa.search('preterm white matter diffusion', { type: type as never, numResults: 2 });
      expect(res.results.map((r) => r.url)).toContain('import://scifact/5836');
      expect(res.resolvedSearchType).toBe(resolved);
    }
  });

  it('takes the deprecated numSentences and highlightsPerUrl under search and findSimilar contents', async () => {
    const highlights = { numSentences: 1, highlightsPerUrl: 3 };
    const searched = await exa.search('preterm white matter', { numResults: 1, contents: { highlights } });
    const [found] = searched.results;
    expect(found?.highlights?.length).toBeGreaterThan(0);
    // one sentence is about 1333 characters of highlights per result
    expect(found!.highlights!.join('').length).toBeLessThanOrEqual(1333);
    const legacy = await exa.searchAndContents('preterm white matter', { numResults: 1, highlights });
    expect(legacy.results[0]?.highlights?.length).toBeGreaterThan(0);
    const similar = await exa.findSimilarAndContents('import://scifact/4983', { numResults: 1, highlights });
    expect(similar.results[0]?.highlights?.length).toBeGreaterThan(0);
  });

  it('finds pages similar to an imported result, by the URL search returned for it', async () => {
    const searched = await exa.search('newborn cerebral white matter microstructural', { numResults: 1 });
    const source = searched.results[0]!.url;
    expect(source).toBe('import://scifact/4983');
    const similar = await exa.findSimilar(source, { numResults: 2 });
    expect(similar.results[0]?.url).toBe('import://scifact/5836');
    expect(similar.results.map((r) => r.url)).not.toContain(source);
    const err = await failure(exa.findSimilar('import://scifact/0000'));
    expect(err.statusCode).toBe(400);
    expect(err.message).toMatch(/^url: import:\/\/scifact\/0000 is not a document of the index/);
  });

  it('runs the tool helpers, which call search and getContents', async () => {
    const searched = await exa.tools.webSearch().run({ query: 'preterm white matter diffusion' });
    expect(searched).toContain('import://scifact/5836');
    // the spec's /contents returns no text unless asked: the tool is configured with text
    const read = await exa.tools.getContents({ text: true }).run({ urls: ['import://scifact/7912'] });
    expect(read).toContain('Lactic acid bacteria');
  });

  it('answers the clients it has no endpoints for (websets, research) with 404', async () => {
    expect((await failure(exa.websets.list())).statusCode).toBe(404);
    expect((await failure(exa.research.list())).statusCode).toBe(404);
  });

  it('answers answer and streamAnswer without a model by extraction, saying so, and refuses an outputSchema answer', async () => {
    const res = (await exa.answer('what happens to white matter in preterm infants')) as unknown as Record<
      string,
      unknown
    >;
    expect(String(res.answer)).toMatch(/white matter/i);
    expect(res.warnings).toEqual([{ code: 'MODEL_MISSING', message: expect.stringMatching(/extractive/) }]);
    let streamed = '';
    for await (const chunk of exa.streamAnswer('what happens to white matter in preterm infants')) streamed += chunk.content ?? ''; // prettier-ignore
    expect(streamed).toBe(res.answer);
    const outputSchema = { type: 'object', properties: { finding: { type: 'string' } } };
    const err = await failure(exa.answer('what is white matter', { outputSchema }));
    expect(err.statusCode).toBe(403);
    expect(err.message).toMatch(/^outputSchema: .*TRAWL_MODEL_BASE_URL and TRAWL_MODEL/);
  });
});
