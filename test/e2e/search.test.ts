// /search through the real REST door: the local index ranks stored documents, every filter really
// filters, company results carry entities, and web-search providers on loopback (SearXNG and an
// upstream speaking this API) are fused in, or left out with a warning when they fail or are slow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedDoc } from '../helpers/documents.js';
import type { DocumentRecord } from '../../src/store/contracts/documents.js';
import { startProviderServer, type ProviderServer } from '../fixtures/providers/server.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';

const FETCHED = '2026-11-20T10:00:00.000Z';

const doc = storedDoc;

const DOCS: DocumentRecord[] = [
  doc('https://docs.example.com/guide/pooling', 'Connection pooling guide', 'Connection pooling keeps sockets open between requests.', { publishedDate: '2024-03-01T00:00:00.000Z' }), // prettier-ignore
  doc('https://blog.example.com/2025/05/12/pooling-news', 'Pooling lands in the HTTP client', 'Connection pooling shipped today in the new release of the client.', { publishedDate: '2025-05-12T09:00:00.000Z', metadata: { ogType: 'article', ldTypes: ['NewsArticle'], ldSubjectTypes: ['NewsArticle'] } }), // prettier-ignore
  doc('https://other.org/pooling', 'Pooling in swimming', 'Connection pooling is not about swimming pools, but this page mentions it.', { publishedDate: '2023-01-01T00:00:00.000Z' }), // prettier-ignore
  doc(
    'https://acme.example/about',
    'About Acme Corp',
    'Acme Corp builds connection pooling hardware for data centres since 1999.',
    {
      metadata: {
        ldTypes: ['Organization'],
        ldSubjectTypes: ['Organization'],
        organization: { types: ['Organization'], subject: true, name: 'Acme Corp', url: 'https://acme.example/', foundingDate: '1999-04-01', numberOfEmployees: 120, address: { streetAddress: '1 Main St', addressLocality: 'Springfield', postalCode: '12345' } }, // prettier-ignore
      },
    },
  ),
  doc(
    'https://shop.example.de/pooling',
    'Pooling Zubehör',
    'Connection pooling adapters sold here, connection pooling for everyone.',
  ),
];

let t: TestServer;
let providers: ProviderServer;
let withProviders: TestServer;

beforeAll(async () => {
  t = await startTestServer();
  await t.app.services.documents.upsertMany(DOCS, FETCHED);
  providers = await startProviderServer();
  withProviders = await startTestServer({
    searxngUrl: `${providers.base}/searxng`,
    upstreamUrl: `${providers.base}/upstream`,
    upstreamApiKey: 'upstream-secret-key',
    providerTimeoutMs: 1000,
  });
  await withProviders.app.services.documents.upsertMany(DOCS, FETCHED);
});
afterAll(async () => {
  await t.close();
  await withProviders.close();
  await providers.close();
});

const search = (server: TestServer, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  postJson(server.url, '/search', body, { 'x-api-key': server.key, ...headers });
const urlsOf = (body: Record<string, unknown>) => (body.results as { url: string }[]).map((r) => r.url);

describe('POST /search on the local index', () => {
  it('ranks stored documents and answers with the spec fields', async () => {
    const res = await search(t, { query: 'connection pooling guide', numResults: 3 });
    expect(res.status).toBe(200);
    expect(urlsOf(res.body)[0]).toBe('https://docs.example.com/guide/pooling');
    expect(res.body.results).toHaveLength(3);
    const first = (res.body.results as Record<string, unknown>[])[0]!;
    expect(first).toMatchObject({ title: 'Connection pooling guide', id: 'https://docs.example.com/guide/pooling' });
    expect(first.publishedDate).toBe('2024-03-01T00:00:00.000Z');
    expect(typeof res.body.requestId).toBe('string');
    expect((res.body.costDollars as { total: number }).total).toBeGreaterThan(0);
    expect(typeof res.body.searchTime).toBe('number');
  });

  it.each(['instant', 'fast', 'auto', 'neural', 'deep-lite', 'deep', 'deep-reasoning'])(
    'answers type %s',
    async (type) => {
      const res = await search(t, { query: 'connection pooling', type, numResults: 5 });
      expect(res.status).toBe(200);
      expect(urlsOf(res.body).length).toBeGreaterThan(0);
    },
  );

  it('applies domain filters: domains, subdomain wildcards, path prefixes, exclusions', async () => {
    const q = { query: 'connection pooling', numResults: 10 };
    expect(urlsOf((await search(t, { ...q, includeDomains: ['example.com'] })).body).sort()).toEqual([
      'https://blog.example.com/2025/05/12/pooling-news',
      'https://docs.example.com/guide/pooling',
    ]);
    expect(urlsOf((await search(t, { ...q, includeDomains: ['*.example.com'] })).body)).toHaveLength(2);
    expect(urlsOf((await search(t, { ...q, includeDomains: ['docs.example.com/guide'] })).body)).toEqual([
      'https://docs.example.com/guide/pooling',
    ]);
    expect(urlsOf((await search(t, { ...q, includeDomains: ['docs.example.com/api'] })).body)).toEqual([]);
    const excluded = urlsOf((await search(t, { ...q, excludeDomains: ['example.com', 'other.org'] })).body);
    expect(excluded.sort()).toEqual(['https://acme.example/about', 'https://shop.example.de/pooling']);
  });

  it('applies published-date filters (undated pages fail them)', async () => {
    const res = await search(t, {
      query: 'connection pooling',
      startPublishedDate: '2024-01-01',
      endPublishedDate: '2024-12-31',
    });
    expect(urlsOf(res.body)).toEqual(['https://docs.example.com/guide/pooling']);
  });

  it('applies crawl-date filters', async () => {
    expect(urlsOf((await search(t, { query: 'connection pooling', startCrawlDate: '2026-11-21' })).body)).toEqual([]);
    expect(urlsOf((await search(t, { query: 'connection pooling', endCrawlDate: '2026-11-21' })).body)).toHaveLength(5);
  });

  it('applies includeText and excludeText as exact phrases', async () => {
    const inc = await search(t, { query: 'connection pooling', includeText: ['swimming pools'] });
    expect(urlsOf(inc.body)).toEqual(['https://other.org/pooling']);
    const exc = await search(t, { query: 'connection pooling', excludeText: ['swimming pools'] });
    expect(urlsOf(exc.body)).not.toContain('https://other.org/pooling');
    expect(urlsOf(exc.body)).toHaveLength(4);
  });

  it('filters by category and gives company results their entity', async () => {
    const news = await search(t, { query: 'connection pooling', category: 'news' });
    expect(urlsOf(news.body)).toEqual(['https://blog.example.com/2025/05/12/pooling-news']);
    const companies = await search(t, { query: 'connection pooling', category: 'company' });
    expect(urlsOf(companies.body)).toEqual(['https://acme.example/about']);
    const entity = (companies.body.results as { entities?: Record<string, unknown>[] }[])[0]!.entities![0]!;
    expect(entity).toMatchObject({ type: 'company', version: 1, properties: { name: 'Acme Corp', foundedYear: 1999 } });
  });

  it('rejects filters a category does not support, with the field named', async () => {
    const res = await search(t, { query: 'acme', category: 'company', excludeDomains: ['x.com'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/excludeDomains/);
  });

  it('prefers results from the caller country with userLocation', async () => {
    const plain = urlsOf((await search(t, { query: 'connection pooling', type: 'fast' })).body);
    const de = urlsOf((await search(t, { query: 'connection pooling', type: 'fast', userLocation: 'DE' })).body);
    expect(de.indexOf('https://shop.example.de/pooling')).toBeLessThan(
      plain.indexOf('https://shop.example.de/pooling'),
    );
  });

  it('returns contents nested under contents, with highlights on the search query', async () => {
    const res = await search(t, {
      query: 'sockets open',
      numResults: 1,
      contents: { text: { maxCharacters: 30 }, highlights: { maxCharacters: 200 } },
    });
    expect(res.status).toBe(200);
    const r = (res.body.results as Record<string, unknown>[])[0]!;
    expect(r.url).toBe('https://docs.example.com/guide/pooling');
    expect(typeof r.text).toBe('string');
    expect((r.text as string).length).toBeLessThanOrEqual(30);
    expect((r.highlights as string[])[0]).toMatch(/sockets open/);
  });

  it('treats query syntax and injection attempts as words', async () => {
    for (const query of ['"pooling', 'pooling AND (', "'; DROP TABLE search_docs; --", 'NEAR(a b)', '*']) {
      const res = await search(t, { query });
      expect(res.status).toBe(200);
    }
    expect(urlsOf((await search(t, { query: '"connection pooling" OR' })).body).length).toBeGreaterThan(0);
  });

  it('answers without a model where that is honest, and names the setting where it is not', async () => {
    const text = await search(t, { query: 'connection pooling', outputSchema: { type: 'text' } });
    expect(text.status).toBe(200);
    const output = text.body.output as {
      content: string;
      grounding: { field: string; citations: { url: string }[] }[];
    };
    expect(output.content).toMatch(/[Cc]onnection pooling/);
    expect(output.grounding[0]!.field).toBe('content');
    const resultUrls = urlsOf(text.body);
    for (const c of output.grounding[0]!.citations) expect(resultUrls).toContain(c.url);
    const object = await search(t, {
      query: 'connection pooling',
      outputSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
    });
    expect(object.status).toBe(403);
    expect(object.body.tag).toBe('FEATURE_DISABLED');
    expect(object.body.error).toContain('TRAWL_MODEL_BASE_URL');
  });

  it('enforces numResults limits with the spec tags', async () => {
    const res = await search(t, { query: 'x', numResults: 500 });
    expect(res.status).toBe(400);
    expect(['NUM_RESULTS_EXCEEDED', 'INVALID_NUM_RESULTS']).toContain(res.body.tag);
  });
});

describe('POST /search with web-search providers', () => {
  it('fuses provider hits with local results, deduplicated', async () => {
    providers.modes.searxng = 'ok';
    providers.modes.upstream = 'ok';
    const res = await search(withProviders, { query: 'connection pooling', type: 'fast', numResults: 20 });
    expect(res.status).toBe(200);
    const urls = urlsOf(res.body);
    expect(urls).toContain('https://docs.example.com/guide/pooling');
    expect(urls).toContain('https://docs.python.org/3/library/asyncio.html');
    expect(new Set(urls).size).toBe(urls.length);
    const upstream = providers.seen.find((r) => r.path === '/upstream/search');
    expect(upstream?.headers['x-trawl-federated']).toBe('1');
  });

  it('answers from the index alone, with a warning logged, when providers fail or are slow', async () => {
    providers.modes.searxng = 'fail';
    providers.modes.upstream = 'slow';
    // the slow provider answers after 3 s: had the search waited, its page would be in the results
    const res = await search(withProviders, { query: 'connection pooling', type: 'auto' });
    expect(res.status).toBe(200);
    expect(urlsOf(res.body)).toContain('https://docs.example.com/guide/pooling');
    expect(urlsOf(res.body)).not.toContain('https://docs.python.org/3/library/asyncio.html');
    providers.modes.searxng = 'ok';
    providers.modes.upstream = 'ok';
  });

  it('does not ask providers for instant searches, nor for federated requests', async () => {
    const before = providers.seen.length;
    await search(withProviders, { query: 'connection pooling', type: 'instant' });
    await search(withProviders, { query: 'connection pooling', type: 'fast' }, { 'x-trawl-federated': '1' });
    expect(providers.seen.length).toBe(before);
  });

  it('keeps compliance searches on the local index (cache-only)', async () => {
    await withProviders.app.services.accounts.teams.update('default', { enterprise: true }, null); // hipaa is enterprise-only
    const before = providers.seen.length;
    const res = await search(withProviders, { query: 'connection pooling', type: 'fast', compliance: 'hipaa' });
    expect(res.status).toBe(200);
    expect(urlsOf(res.body)).toContain('https://docs.example.com/guide/pooling');
    expect(providers.seen.length).toBe(before);
  });

  it('filters provider hits too', async () => {
    const res = await search(withProviders, { query: 'asyncio', type: 'fast', excludeDomains: ['python.org'] });
    expect(urlsOf(res.body).some((u) => u.includes('python.org'))).toBe(false);
  });
});
