/** The web-search providers against loopback servers speaking SearXNG's, Brave's and the spec's wire formats. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createApiClient, type ApiClient } from '../../../src/fetch/api-client.js';
import {
  createBraveProvider,
  createSearxngProvider,
  createUpstreamProvider,
  createWebSearchProviders,
  type WebSearchProvider,
  type WebSearchQuery,
} from '../../../src/providers/search/index.js';
import { startProviderServer, type ProviderServer } from '../../fixtures/providers/server.js';

const NOW = Date.parse('2024-06-15T12:00:00Z');
const skew = Date.now() - NOW;
const now = () => Date.now() - skew;
const BRAVE_KEY = 'BSA-brave-secret-123';
const UPSTREAM_KEY = 'up-secret-456';

let server: ProviderServer;
let client: ApiClient;

beforeAll(async () => {
  server = await startProviderServer();
  client = createApiClient({ userAgent: 'trawl-test' });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

beforeEach(() => {
  server.seen.length = 0;
  server.modes.searxng = server.modes.brave = server.modes.upstream = 'ok';
});

const query = (over: Partial<WebSearchQuery> = {}): WebSearchQuery => ({
  query: 'python asyncio tutorial',
  numResults: 10,
  timeoutMs: 2000,
  ...over,
});
const searxng = (base = `${server.base}/searxng/`) =>
  createSearxngProvider({ baseUrl: base, get: client.getJson, now });
const brave = () =>
  createBraveProvider({ apiKey: BRAVE_KEY, get: client.getJson, url: `${server.base}/brave/res/v1/web/search`, now });
const upstream = (apiKey: string | null = UPSTREAM_KEY) =>
  createUpstreamProvider({ baseUrl: `${server.base}/upstream/`, apiKey: apiKey ?? undefined, post: client.postJson });

describe('SearXNG provider', () => {
  it('asks the JSON API and normalises its results', async () => {
    const hits = await searxng().search(query({ numResults: 5 }));
    const request = server.seen[0]!;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/searxng/search');
    expect(Object.fromEntries(request.query)).toEqual({ q: 'python asyncio tutorial', format: 'json', pageno: '1' });
    expect(hits.slice(0, 3)).toEqual([
      {
        url: 'https://docs.python.org/3/library/asyncio.html',
        title: 'asyncio — Asynchronous I/O',
        snippet: 'asyncio is a library to write concurrent code using the async/await syntax.',
        publishedDate: null,
        score: 9.5,
        provider: 'searxng',
        rank: 1,
      },
      expect.objectContaining({ url: 'https://realpython.com/async-io-python/', publishedDate: '2023-06-14T00:00:00.000Z', rank: 2 }), // prettier-ignore
      expect.objectContaining({ url: 'https://superfastpython.com/python-asyncio/', title: 'https://superfastpython.com/python-asyncio/', publishedDate: '2024-03-01T07:30:00.000Z', rank: 3 }), // prettier-ignore
    ]);
    // The www./fragment duplicate, the magnet link and the relative URL are gone; page 2 filled the rest.
    expect(hits.map((h) => h.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(hits[3]!.url).toBe('https://example.org/p2/0');
    expect(server.seen.map((r) => r.query.get('pageno'))).toEqual(['1', '2']);
  });

  it('pages until numResults, at most three pages', async () => {
    const hits = await searxng().search(query({ numResults: 100 }));
    expect(server.seen.map((r) => r.query.get('pageno'))).toEqual(['1', '2', '3']);
    expect(hits).toHaveLength(23);
    expect(new Set(hits.map((h) => h.url)).size).toBe(23);
  });

  it('pushes down domains as site: operators, the start date as time_range, news as a category', async () => {
    const p = searxng();
    await p.search(
      query({ includeDomains: ['docs.python.org'], excludeDomains: ['*.w3schools.com'], category: 'news' }),
    );
    await p.search(query({ includeDomains: ['a.dev', 'https://b.dev/docs/'], startPublishedDate: '2024-06-10' }));
    await p.search(query({ includeDomains: ['1.io', '2.io', '3.io', '4.io', '5.io', '6.io'], userLocation: 'DE' }));
    await p.search(query({ startPublishedDate: '2020-01-01T00:00:00Z', endPublishedDate: '2024-01-01', category: 'company' })); // prettier-ignore
    const sent = server.seen.filter((r) => r.query.get('pageno') === '1').map((r) => Object.fromEntries(r.query));
    expect(sent[0]).toMatchObject({ q: 'python asyncio tutorial site:docs.python.org -site:w3schools.com', categories: 'news' }); // prettier-ignore
    expect(sent[1]).toMatchObject({ q: 'python asyncio tutorial (site:a.dev OR site:b.dev/docs)', time_range: 'week' });
    expect(sent[2]).toEqual({ q: 'python asyncio tutorial', format: 'json', pageno: '1' });
    expect(sent[3]).toEqual({ q: 'python asyncio tutorial', format: 'json', pageno: '1' });
  });

  it('sends credentials in the URL as Basic auth and never names the password', async () => {
    const withAuth = `${server.base.replace('http://', 'http://trawl:s3cret-pw@')}/searxng`;
    await searxng(withAuth).search(query({ numResults: 1 }));
    expect(server.seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('trawl:s3cret-pw').toString('base64')}`);
    server.modes.searxng = 'echo-key';
    const failure = await searxng(withAuth)
      .search(query())
      .catch((err: Error) => err);
    expect(failure).toMatchObject({ tag: 'SERVICE_UNAVAILABLE' });
    expect((failure as Error).message).toContain('[redacted]');
    expect((failure as Error).message).not.toContain('s3cret-pw');
  });

  it('says so when the JSON format is off or every engine failed', async () => {
    server.modes.searxng = 'forbidden';
    await expect(searxng().search(query())).rejects.toThrow(/searxng failed: .*answered 403.*search\.formats/);
    server.modes.searxng = 'no-engines';
    await expect(searxng().search(query())).rejects.toThrow(/no engine answered: google \(CAPTCHA\), bing \(timeout\)/);
  });
});

describe('Brave provider', () => {
  it('sends the token header and the documented parameters, and reads web.results', async () => {
    const hits = await brave().search(query({ query: 'rust async runtime', numResults: 3 }));
    const request = server.seen[0]!;
    expect(request.headers['x-subscription-token']).toBe(BRAVE_KEY);
    expect(request.headers.accept).toBe('application/json');
    expect(Object.fromEntries(request.query)).toEqual({
      q: 'rust async runtime',
      count: '3',
      offset: '0',
      result_filter: 'web',
      text_decorations: 'false',
    });
    expect(hits).toEqual([
      {
        url: 'https://tokio.rs/',
        title: 'Tokio - An asynchronous Rust runtime',
        snippet: 'Tokio is an event-driven, non-blocking I/O platform for writing asynchronous applications with the Rust programming language & more.', // prettier-ignore
        publishedDate: '2024-02-10T12:00:00.000Z',
        provider: 'brave',
        rank: 1,
      },
      expect.objectContaining({ url: 'https://async.rs/', snippet: 'Async version of the Rust standard library — fast "and" simple', publishedDate: '2023-03-03T00:00:00.000Z' }), // prettier-ignore
      expect.objectContaining({ url: 'https://rust-lang.github.io/async-book/', publishedDate: null, rank: 3 }),
    ]);
  });

  it('pushes down country, freshness and site: operators', async () => {
    const p = brave();
    await p.search(query({ userLocation: 'de', startPublishedDate: '2024-01-01', endPublishedDate: '2024-03-31T23:00:00Z', includeDomains: ['docs.rs'] })); // prettier-ignore
    await p.search(query({ userLocation: 'IE', startPublishedDate: '2024-06-01' }));
    await p.search(query({ endPublishedDate: '2023-12-31', excludeDomains: ['pinterest.com', 'quora.com'] }));
    await p.search(query({ query: 'x'.repeat(395), includeDomains: ['docs.rs'] }));
    const sent = server.seen.filter((r) => r.query.get('offset') === '0').map((r) => Object.fromEntries(r.query));
    expect(sent[0]).toMatchObject({ q: 'python asyncio tutorial site:docs.rs', country: 'DE', freshness: '2024-01-01to2024-03-31' }); // prettier-ignore
    expect(sent[1]).toMatchObject({ freshness: '2024-06-01to2024-06-15' });
    expect(sent[1]!.country).toBeUndefined();
    expect(sent[2]).toMatchObject({ q: 'python asyncio tutorial -site:pinterest.com -site:quora.com', freshness: '1970-01-01to2023-12-31' }); // prettier-ignore
    expect(sent[3]!.q).toBe('x'.repeat(395));
  });

  it('pages by offset in pages of 20 and stops when Brave has no more', async () => {
    const hits = await brave().search(query({ numResults: 50 }));
    expect(server.seen.map((r) => [r.query.get('count'), r.query.get('offset')])).toEqual([['20', '0'], ['20', '1']]); // prettier-ignore
    expect(hits.map((h) => h.url)).toEqual([
      'https://tokio.rs/',
      'https://async.rs/',
      'https://rust-lang.github.io/async-book/',
      'https://github.com/smol-rs/smol',
    ]);
  });
});

describe('upstream provider', () => {
  it('POSTs the spec body with only the fields set, and the key in x-api-key', async () => {
    const hits = await upstream().search(
      query({ query: 'undici pooling', numResults: 7, includeDomains: ['nodejs.org'], userLocation: 'US', category: 'news', startPublishedDate: '2024-01-01' }), // prettier-ignore
    );
    const request = server.seen[0]!;
    expect(request.method).toBe('POST');
    expect(request.headers['x-api-key']).toBe(UPSTREAM_KEY);
    expect(request.headers['x-trawl-federated']).toBe('1');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body).toEqual({
      query: 'undici pooling',
      type: 'fast',
      numResults: 7,
      includeDomains: ['nodejs.org'],
      startPublishedDate: '2024-01-01',
      userLocation: 'US',
      category: 'news',
    });
    expect(hits).toEqual([
      {
        url: 'https://undici.nodejs.org/',
        title: 'Undici: an HTTP/1.1 client for Node.js',
        snippet: 'undici pools connections per origin and pipelines requests.',
        publishedDate: '2024-05-01T00:00:00.000Z',
        author: 'Node.js contributors',
        score: 0.42,
        provider: 'upstream',
        rank: 1,
      },
      {
        url: 'https://example.com/blog/pooling',
        title: 'Connection pooling in Node.js',
        snippet: 'A long article about keep-alive agents and connection pools in Node.js.',
        publishedDate: null,
        author: null,
        provider: 'upstream',
        rank: 2,
      },
    ]);
  });

  it('sends no x-api-key without a key', async () => {
    await upstream(null).search(query());
    expect(server.seen[0]!.headers['x-api-key']).toBeUndefined();
    expect(server.seen[0]!.body).toEqual({ query: 'python asyncio tutorial', type: 'fast', numResults: 10 });
  });
});

describe('failing providers', () => {
  const cases: [keyof ProviderServer['modes'], () => WebSearchProvider][] = [
    ['searxng', () => searxng()],
    ['brave', () => brave()],
    ['upstream', () => upstream()],
  ];
  const secrets = [BRAVE_KEY, UPSTREAM_KEY];

  it.each(cases)(
    '%s: a 5xx, garbage JSON or a shapeless answer is SERVICE_UNAVAILABLE naming the provider',
    async (name, make) => {
      // prettier-ignore
      for (const [mode, message] of [['fail', /answered 503/], ['garbage', /non-JSON/], ['shapeless', /answered/]] as const) {
      server.modes[name] = mode;
      const failure = await make().search(query()).catch((err: Error) => err);
      expect(failure).toMatchObject({ name: 'ServiceError', tag: 'SERVICE_UNAVAILABLE' });
      expect((failure as Error).message).toMatch(new RegExp(`^web search provider ${name} failed: `));
      expect((failure as Error).message).toMatch(message);
      for (const secret of secrets) expect((failure as Error).message).not.toContain(secret);
    }
    },
  );

  it.each(cases)('%s: an answer echoing the key is redacted', async (name, make) => {
    server.modes[name] = 'echo-key';
    const failure = await make()
      .search(query())
      .catch((err: Error) => err);
    expect((failure as Error).message).toMatch(/answered 401/);
    for (const secret of secrets) expect((failure as Error).message).not.toContain(secret);
    expect(JSON.stringify(failure)).not.toMatch(/secret-/);
  });

  it.each(cases)('%s: a slow provider fails at timeoutMs', async (name, make) => {
    server.modes[name] = 'slow'; // answers (fine) after 3 s: only the deadline makes this a failure
    const failure = await make()
      .search(query({ timeoutMs: 300 }))
      .catch((err: Error) => err);
    expect(failure).toMatchObject({ tag: 'SERVICE_UNAVAILABLE' });
    expect((failure as Error).message).toMatch(new RegExp(`${name} failed: .*did not answer within 300 ms`));
  });

  it.each(cases)('%s: a cancelled signal stops the call', async (name, make) => {
    server.modes[name] = 'slow';
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    // the answer would come (fine) after 3 s: the rejection can only be the cancellation
    await expect(make().search(query(), controller.signal)).rejects.toThrow(/cancelled/);
  });

  it('keeps the first pages when a later page fails', async () => {
    server.modes.searxng = 'slow-after-first'; // page 2 would answer after 3 s, and page 3 be asked
    const hits = await searxng().search(query({ numResults: 30, timeoutMs: 400 }));
    expect(server.seen.map((r) => r.query.get('pageno'))).toEqual(['1', '2']);
    expect(hits.map((h) => h.url)).toEqual([
      'https://docs.python.org/3/library/asyncio.html',
      'https://realpython.com/async-io-python/',
      'https://superfastpython.com/python-asyncio/',
    ]);
  });
});

describe('createWebSearchProviders', () => {
  const deps = () => ({ getJson: client.getJson, postJson: client.postJson });

  it('builds nothing when nothing is configured', () => {
    expect(createWebSearchProviders({}, deps())).toEqual([]);
    expect(createWebSearchProviders(loadConfig({ TRAWL_UPSTREAM_API_KEY: 'orphan' }), deps())).toEqual([]);
  });

  it('builds one provider per configured setting', async () => {
    const config = loadConfig({
      TRAWL_SEARXNG_URL: `${server.base}/searxng`,
      TRAWL_BRAVE_API_KEY: 'k',
      TRAWL_UPSTREAM_URL: `${server.base}/upstream`,
    });
    const providers = createWebSearchProviders(config, deps());
    expect(providers.map((p) => p.name)).toEqual(['searxng', 'brave', 'upstream']);
    const hits = await providers[2]!.search(query());
    expect(hits[0]!.provider).toBe('upstream');
    expect(server.seen[0]!.headers['x-api-key']).toBeUndefined();
  });
});
