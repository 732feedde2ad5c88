/**
 * POST /contents end to end: the real HTTP door reading the loopback fixture site, black-box against the
 * spec's /contents section (response shape, statuses and tags, content kinds, options, validation, ids,
 * robots.txt and the SSRF guard).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { ARTICLE, FORUM } from '../fixtures/site/articles.js';
import { DOCS, OFF_SITE_LINKS } from '../fixtures/site/docs.js';
import { FEED, JSON_DOC, LATIN1, PDF, SJIS } from '../fixtures/site/formats.js';
import { MARKERS } from '../fixtures/site/layout.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';

interface Status {
  id: string;
  status: 'success' | 'error';
  source?: 'cached' | 'crawled';
  error?: { tag: string; httpStatusCode: number | null } | null;
}
interface Result {
  title: string;
  url: string;
  id: string;
  publishedDate?: string | null;
  author?: string | null;
  image?: string;
  favicon?: string;
  text?: string;
  highlights?: string[];
  highlightScores?: number[];
  summary?: string;
  subpages?: { title: string; url: string }[];
  extras?: {
    links?: string[];
    imageLinks?: string[];
    richLinks?: { url: string; text: string }[];
    codeBlocks?: { language: string | null; code: string }[];
  };
}
interface ContentsBody {
  requestId: string;
  results: Result[];
  statuses: Status[];
  costDollars: { total: number };
  searchTime: number;
  context?: string;
}

let t: TestServer;
let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
  t = await startTestServer({ privateAllowlist: ['127.0.0.1'], fetchMaxBytes: 1048576 });
});
afterAll(async () => {
  await t?.close();
  await site?.close();
});

const u = (path: string) => site.url + path;

async function contents(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await postJson(t.url, '/contents', body, { 'x-api-key': t.key, ...headers });
  return { status: res.status, headers: res.headers, raw: res.body, body: res.body as unknown as ContentsBody };
}

/** Reads one URL and returns its result (or undefined) and status, asserting the request itself succeeded. */
async function read(url: string, options: Record<string, unknown> = { text: true }) {
  const res = await contents({ urls: [url], ...options });
  expect(res.status, JSON.stringify(res.raw)).toBe(200);
  return { result: res.body.results[0], status: res.body.statuses[0]!, body: res.body };
}

const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];

describe('response shape', () => {
  it('answers 200 with exactly the spec fields and the x-request-id / x-svc-* headers', async () => {
    const res = await contents({ urls: [u('/articles/rust-async')], text: true });
    expect(res.status).toBe(200);
    expect(Object.keys(res.raw).sort()).toEqual(['costDollars', 'requestId', 'results', 'searchTime', 'statuses']);
    expect(res.headers.get('x-request-id')).toBe(res.body.requestId);
    expect(['true', 'false']).toContain(res.headers.get('x-svc-queued'));
    expect(res.headers.get('x-svc-queue-ms')).toMatch(/^\d+$/);
    expect(typeof res.body.costDollars.total).toBe('number');
    expect(typeof res.body.searchTime).toBe('number');
  });

  it('gives the article its metadata and compact Markdown text without the page chrome', async () => {
    const { result, status } = await read(u('/articles/rust-async'));
    expect(status).toMatchObject({ id: u('/articles/rust-async'), status: 'success' });
    expect(result!.url).toBe(u('/articles/rust-async'));
    expect(result!.id).toBe(result!.url);
    expect(result!.title).toContain(ARTICLE.title);
    expect(result!.author).toBe(ARTICLE.author);
    expect(new Date(result!.publishedDate!).toISOString()).toBe(new Date(ARTICLE.published).toISOString());
    expect(result!.image).toBe(u(ARTICLE.image));
    expect(result!.favicon).toBe(u(ARTICLE.favicon));
    expect(result!.text).toContain(ARTICLE.sentence);
    expect(result!.text).toContain(ARTICLE.lastSentence);
    for (const chrome of [MARKERS.nav, MARKERS.footer, MARKERS.cookie]) expect(result!.text).not.toContain(chrome);
  });

  it('keeps code fenced with its language, and the table, on the docs page', async () => {
    const { result } = await read(u('/docs/getting-started'));
    expect(result!.text).toMatch(/```(ts|typescript)\n/);
    expect(result!.text).toMatch(/```(bash|sh|shell)\n/);
    expect(result!.text).toContain(DOCS.tsSnippet);
    expect(result!.text).toContain(DOCS.installCommand);
    expect(result!.text).toMatch(new RegExp(`\\|\\s*${DOCS.tableCell}\\s*\\|`));
    expect(result!.text).not.toContain(MARKERS.cookie);
  });

  it('follows a redirect chain: the result has the final URL, the status the requested one', async () => {
    const { result, status } = await read(u('/r/1'));
    expect(status).toMatchObject({ id: u('/r/1'), status: 'success' });
    expect(result!.url).toBe(u('/articles/rust-async'));
    expect(result!.id).toBe(u('/articles/rust-async'));
  });

  it('reports crawled the first time and cached the second', async () => {
    const url = u('/forum/t/42?view=source');
    const first = await read(url);
    expect(first.status).toMatchObject({ id: url, status: 'success', source: 'crawled' });
    expect(first.result!.text).toContain(FORUM.answers[0]);
    const second = await read(url);
    expect(second.status).toMatchObject({ id: url, status: 'success', source: 'cached' });
    expect(second.result!.text).toBe(first.result!.text);
    expect(site.hits('/forum/t/42?view=source')).toBe(1);
  });
});

describe('per-URL failures', () => {
  const port = () => site.port;
  const cases = (): [string, string, number | null | undefined][] => [
    [u('/missing'), 'CRAWL_NOT_FOUND', 404],
    [u('/gone'), 'CRAWL_NOT_FOUND', 410],
    [u('/boom'), 'SOURCE_NOT_AVAILABLE', 500],
    [u('/forbidden'), 'CRAWL_HTTP_ERROR', 403],
    [u('/private/x'), 'CRAWL_ROBOTS_DISALLOWED', null],
    [u('/no-trawl/x'), 'CRAWL_ROBOTS_DISALLOWED', undefined],
    [u('/r/private'), 'CRAWL_PRIVATE_ADDRESS', undefined],
    [u('/r/metadata'), 'CRAWL_PRIVATE_ADDRESS', undefined],
    [u('/r/decimal'), 'CRAWL_PRIVATE_ADDRESS', undefined],
    [`http://[::1]:${port()}/`, 'CRAWL_PRIVATE_ADDRESS', undefined],
    ['http://169.254.169.254/', 'CRAWL_PRIVATE_ADDRESS', undefined],
    [`http://2130706434:${port()}/`, 'CRAWL_PRIVATE_ADDRESS', undefined],
    [u('/r/loop'), 'CRAWL_TOO_MANY_REDIRECTS', undefined],
    [u('/huge'), 'CRAWL_TOO_LARGE', undefined],
    [u('/image.png'), 'CRAWL_UNSUPPORTED_CONTENT_TYPE', undefined],
    ['ftp://example.com/x', 'UNSUPPORTED_URL', undefined],
    [u('/app'), 'CRAWL_NEEDS_BROWSER', undefined],
  ];

  it('answers 200 with one status per URL in order, each failure tagged, results only for good URLs', async () => {
    const bad = cases();
    const urls = [...bad.slice(0, 8).map((c) => c[0]), u('/docs/faq'), ...bad.slice(8).map((c) => c[0])];
    const res = await contents({ urls, text: true, livecrawlTimeout: 5000 });
    expect(res.status).toBe(200);
    expect(res.body.statuses.map((s) => s.id)).toEqual(urls);
    const got = res.body.statuses.map((s) => [s.id, s.status, s.error?.tag]);
    const want = urls.map((id) => {
      const c = bad.find((x) => x[0] === id);
      return c ? [id, 'error', c[1]] : [id, 'success', undefined];
    });
    expect(got).toEqual(want);
    for (const [id, , code] of bad) {
      if (code === undefined) continue;
      expect(res.body.statuses.find((s) => s.id === id)!.error!.httpStatusCode, id).toBe(code);
    }
    expect(res.body.results.map((r) => r.url)).toEqual([u('/docs/faq')]);
  });

  it('never reaches private addresses or robots-disallowed pages', () => {
    // Runs after the batch above: the 127.0.0.2 twin and the forbidden pages saw nothing.
    expect(site.requests.filter((r) => r.localAddress === '127.0.0.2')).toEqual([]);
    expect(site.hits('/private/x')).toBe(0);
    expect(site.hits('/no-trawl/x')).toBe(0);
  });

  it('does not cache failures: a second call asks the site again', async () => {
    const before = site.hits('/missing');
    expect(before).toBeGreaterThan(0);
    const { status } = await read(u('/missing'));
    expect(status.error?.tag).toBe('CRAWL_NOT_FOUND');
    expect(site.hits('/missing')).toBeGreaterThan(before);
  });

  // both would end (fine) after 3 s: the tags say the 1 s deadline ended them
  it('bounds the whole live fetch by livecrawlTimeout: slow headers and a slow body', async () => {
    const res = await contents({ urls: [u('/slow-headers'), u('/slow')], text: true, livecrawlTimeout: 1000 });
    expect(res.body.statuses.map((s) => s.error?.tag)).toEqual(['CRAWL_LIVECRAWL_TIMEOUT', 'CRAWL_LIVECRAWL_TIMEOUT']);
    expect(res.body.results).toEqual([]);
  });
});

describe('content kinds', () => {
  it('reads PDF, feeds, Markdown, JSON, plain text, windows-1252, Shift_JIS and gzip pages', async () => {
    const paths = ['/paper.pdf', '/feed.xml', '/atom.xml', '/notes.md', '/data.json', '/plain.txt'];
    paths.push('/latin1', '/sjis', '/gz');
    const res = await contents({ urls: paths.map(u), text: true });
    expect(res.body.statuses.map((s) => [s.id, s.status])).toEqual(paths.map((p) => [u(p), 'success']));
    const byPath = (p: string) => res.body.results.find((r) => r.url === u(p))!;
    const pdf = byPath('/paper.pdf');
    expect([pdf.title, pdf.author]).toEqual([PDF.title, PDF.author]);
    expect(pdf.publishedDate).toMatch(/^2023-04-05/);
    for (const line of PDF.lines) expect(pdf.text).toContain(line);
    for (const title of FEED.rss) expect(byPath('/feed.xml').text).toContain(title);
    for (const title of FEED.atom) expect(byPath('/atom.xml').text).toContain(title);
    expect(byPath('/notes.md').text).toContain('Release checklist');
    expect(byPath('/notes.md').text).toContain('npm version minor');
    expect(byPath('/data.json').text).toContain(JSON_DOC.description);
    expect(byPath('/plain.txt').text).toContain('Run ferrous help to list every command');
    expect(byPath('/latin1').text).toContain(LATIN1.phrase);
    for (const word of LATIN1.words) expect(byPath('/latin1').text).toContain(word);
    expect(byPath('/latin1').title).toBe(LATIN1.title);
    expect(byPath('/sjis').title).toContain(SJIS.title);
    for (const p of SJIS.paragraphs) expect(byPath('/sjis').text).toContain(p);
    expect(byPath('/gz').text).toContain('This page travels gzip-compressed');
    const gz = site.requests.find((r) => r.path === '/gz')!;
    expect(String(gz.headers['accept-encoding'])).toMatch(/\bgzip\b/);
  });
});

describe('text options', () => {
  const article = () => u('/articles/rust-async');

  it('truncates to text.maxCharacters', async () => {
    const { result } = await read(article(), { text: { maxCharacters: 200 } });
    expect(result!.text!.length).toBeGreaterThan(0);
    expect(result!.text!.length).toBeLessThanOrEqual(200);
  });

  it('includes navigation and footer at verbosity full, not at compact', async () => {
    const full = (await read(article(), { text: { verbosity: 'full' } })).result!.text!;
    const compact = (await read(article(), { text: { verbosity: 'compact' } })).result!.text!;
    expect(full).toContain(MARKERS.nav);
    expect(full).toContain(MARKERS.footer);
    expect(full).toContain(ARTICLE.sentence);
    expect(compact).not.toContain(MARKERS.nav);
    expect(compact).not.toContain(MARKERS.footer);
  });

  it('filters sections: navigation only, or everything but the body', async () => {
    const nav = (await read(article(), { text: { includeSections: ['navigation'] } })).result!.text!;
    expect(nav).toContain(MARKERS.nav);
    expect(nav).not.toContain(ARTICLE.sentence);
    const noBody = await read(article(), { text: { verbosity: 'full', excludeSections: ['body'] } });
    expect(noBody.result?.text ?? '').not.toContain(ARTICLE.sentence);
  });

  it('keeps HTML tags when asked', async () => {
    const { result } = await read(article(), { text: { includeHtmlTags: true } });
    expect(result!.text).toMatch(/<(p|h1|h2|pre|code|article)[\s>]/);
    expect(result!.text).toContain(ARTICLE.sentence);
  });

  it('applies rendering options to a cached page without asking the site again', async () => {
    const url = u('/docs/config');
    await read(url);
    const hits = site.hits('/docs/config');
    const compact = await read(url, { maxAgeHours: -1, text: { verbosity: 'compact' } });
    const full = await read(url, { maxAgeHours: -1, text: { verbosity: 'full' } });
    const tags = await read(url, { maxAgeHours: -1, text: { includeHtmlTags: true } });
    expect([compact.status.source, full.status.source, tags.status.source]).toEqual(['cached', 'cached', 'cached']);
    expect(full.result!.text).not.toBe(compact.result!.text);
    expect(full.result!.text).toContain(MARKERS.footer);
    expect(tags.result!.text).toMatch(/<(p|h1)[\s>]/);
    expect(site.hits('/docs/config')).toBe(hits);
  });
});

describe('highlights and summary', () => {
  const docs = () => u('/docs/getting-started');

  it('returns query highlights within maxCharacters, scored in [0,1] and sorted, best one on topic', async () => {
    const { result } = await read(docs(), { highlights: { query: 'install with npm', maxCharacters: 500 } });
    const { highlights = [], highlightScores = [] } = result!;
    expect(highlights.length).toBeGreaterThan(0);
    expect(highlights.join('').length).toBeLessThanOrEqual(500);
    expect(highlightScores).toHaveLength(highlights.length);
    for (const s of highlightScores) expect(s >= 0 && s <= 1, String(s)).toBe(true);
    expect([...highlightScores].sort((a, b) => b - a)).toEqual(highlightScores);
    expect(highlights[0]).toMatch(/install/i);
  });

  it('accepts highlights: true and the deprecated numSentences', async () => {
    const plain = (await read(docs(), { highlights: true })).result!;
    expect(plain.highlights!.length).toBeGreaterThan(0);
    expect(plain.highlightScores).toHaveLength(plain.highlights!.length);
    const one = (await read(docs(), { highlights: { numSentences: 1 } })).result!;
    expect(one.highlights!.length).toBeGreaterThan(0);
    expect(one.highlights!.join('').length).toBeLessThanOrEqual(1400);
  });

  it('gates dynamic highlights behind the Svc-Beta header', async () => {
    const body = { urls: [docs()], highlights: { dynamic: true, query: 'configure the client' } };
    const refused = await contents(body);
    expect(refused.status).toBe(400);
    expect(refused.raw.tag).toBe('INVALID_REQUEST_BODY');
    const allowed = await contents(body, { 'svc-beta': 'dynamic-highlights-2026-08-28' });
    expect(allowed.status).toBe(200);
    expect(allowed.body.results[0]!.highlights!.length).toBeGreaterThan(0);
  });

  it('summarises from the page, focused on the query when one is given', async () => {
    const page = (await read(docs(), { text: true })).result!.text!;
    const vocabulary = new Set(words(page));
    const plain = (await read(docs(), { summary: true })).result!.summary!;
    expect(plain.length).toBeGreaterThan(20);
    const known = words(plain).filter((w) => vocabulary.has(w)).length;
    expect(known / words(plain).length).toBeGreaterThan(0.8);
    const focused = (await read(docs(), { summary: { query: 'how do I install it' } })).result!.summary!;
    expect(focused).toMatch(/install/i);
  });
});

describe('extras, context and subpages', () => {
  it('extracts links, image links, rich links and code blocks within the counts', async () => {
    const res = await contents({
      urls: [u('/docs/getting-started'), u('/articles/rust-async')],
      extras: { links: 3, imageLinks: 2, richLinks: 2, codeBlocks: 5 },
    });
    const [docs, article] = res.body.results;
    for (const r of [docs!, article!]) {
      expect(r.extras!.links!.length).toBeGreaterThan(0);
      expect(r.extras!.links!.length).toBeLessThanOrEqual(3);
      for (const link of r.extras!.links!) expect(link).toMatch(/^https?:\/\//);
      expect(r.extras!.richLinks!.length).toBeLessThanOrEqual(2);
      for (const rich of r.extras!.richLinks!) {
        expect(rich.url).toMatch(/^https?:\/\//);
        expect(rich.text.trim().length).toBeGreaterThan(0);
      }
      expect((r.extras!.imageLinks ?? []).length).toBeLessThanOrEqual(2);
    }
    expect(article!.extras!.imageLinks).toContain(u(ARTICLE.image));
    const blocks = docs!.extras!.codeBlocks!;
    expect(blocks.find((b) => b.code.includes(DOCS.tsSnippet))?.language).toMatch(/^(ts|typescript)$/);
    expect(blocks.find((b) => b.code.includes(DOCS.installCommand))?.language).toMatch(/^(bash|sh|shell)$/);
  });

  it('returns the deprecated context string only when asked', async () => {
    const res = await contents({ urls: [u('/docs/getting-started'), u('/forum/t/42')], context: true });
    expect(Object.keys(res.raw)).toContain('context');
    expect(res.body.context).toContain(DOCS.installSentence);
    expect(res.body.context).toContain(FORUM.answers[0]);
  });

  it('follows same-site subpages only, ranked by subpageTarget', async () => {
    const three = (await read(u('/docs/'), { subpages: 3 })).result!.subpages!;
    expect(three).toHaveLength(3);
    for (const s of three) {
      expect(s.title.length).toBeGreaterThan(0);
      expect(s.url.startsWith(`${site.url}/`)).toBe(true);
    }
    const many = (await read(u('/docs/'), { subpages: 20 })).result!.subpages!;
    expect(many.length).toBeGreaterThanOrEqual(3);
    for (const s of many) expect(s.url.startsWith(`${site.url}/`), s.url).toBe(true);
    expect(many.filter((s) => OFF_SITE_LINKS.includes(s.url))).toEqual([]);
    const api = (await read(u('/docs/'), { subpages: 3, subpageTarget: 'api' })).result!.subpages!;
    expect(api.map((s) => new URL(s.url).pathname.startsWith('/docs/api/'))).toEqual([true, true, true]);
  });

  it('drops empty results with filterEmptyResults, keeping both statuses', async () => {
    const res = await contents({ urls: [u('/empty.txt'), u('/docs/faq')], text: true, filterEmptyResults: true });
    expect(res.status).toBe(200);
    expect(res.body.statuses.map((s) => s.id)).toEqual([u('/empty.txt'), u('/docs/faq')]);
    expect(res.body.results.map((r) => r.url)).toEqual([u('/docs/faq')]);
  });
});

describe('validation', () => {
  const many = Array.from({ length: 101 }, (_, i) => `https://example.com/${i}`);
  it.each([
    ['both ids and urls', { ids: ['a'], urls: ['https://example.com'] }, /ids|urls/],
    ['101 urls', { urls: many }, /urls/],
    ['livecrawl with maxAgeHours', { urls: ['https://example.com'], livecrawl: 'always', maxAgeHours: 1 }, /livecrawl/],
    ['livecrawlTimeout over 90000', { urls: ['https://example.com'], livecrawlTimeout: 90001 }, /livecrawlTimeout/],
    ['maxAgeHours over 720', { urls: ['https://example.com'], maxAgeHours: 721 }, /maxAgeHours/],
    ['an unknown field', { urls: ['https://example.com'], query: 'x' }, /query/],
  ])('refuses %s with 400 INVALID_REQUEST_BODY', async (_name, body, names) => {
    const res = await contents(body);
    expect(res.status).toBe(400);
    expect(res.raw.tag).toBe('INVALID_REQUEST_BODY');
    expect(String(res.raw.error)).toMatch(names);
  });
});

describe('ids', () => {
  it('serves a fetched URL from the store by id, and reports an unknown id', async () => {
    const url = u('/docs/install');
    const fetched = (await read(url)).result!;
    const res = await contents({ ids: [fetched.id, 'doc-that-was-never-stored'], text: true });
    expect(res.status).toBe(200);
    expect(res.body.statuses[0]).toMatchObject({ id: url, status: 'success', source: 'cached' });
    expect(res.body.results[0]!.text).toBe(fetched.text);
    expect(res.body.statuses[1]).toMatchObject({ id: 'doc-that-was-never-stored', status: 'error' });
    expect(res.body.statuses[1]!.error!.tag).toBe('CRAWL_NOT_FOUND');
  });
});

describe('robots.txt and politeness', () => {
  it('names Trawl in the User-Agent and reads robots.txt once per origin', async () => {
    const fresh = await startFixtureSite();
    try {
      const paths = ['/articles/rust-async', '/docs/getting-started', '/forum/t/42', '/docs/faq'];
      const first = await contents({ urls: paths.map((p) => fresh.url + p), text: true });
      expect(first.body.statuses.map((s) => s.status)).toEqual(['success', 'success', 'success', 'success']);
      const second = await contents({ urls: [`${fresh.url}/docs/install`, `${fresh.url}/private/y`], text: true });
      expect(second.body.statuses.map((s) => s.error?.tag)).toEqual([undefined, 'CRAWL_ROBOTS_DISALLOWED']);
      expect(fresh.hits('/robots.txt')).toBe(1);
      expect(fresh.requests.length).toBeGreaterThan(0);
      for (const r of fresh.requests) expect(String(r.headers['user-agent']), r.path).toMatch(/Trawl/);
    } finally {
      await fresh.close();
    }
  });

  it('treats a 4xx robots.txt as allow-all and a 5xx one as disallow-all', async () => {
    const [missing, failing] = await Promise.all([
      startFixtureSite({ robots: 404 }),
      startFixtureSite({ robots: 503 }),
    ]);
    try {
      const res = await contents({ urls: [`${missing.url}/private/z`, `${failing.url}/docs/faq`], text: true });
      expect(res.body.statuses[0]!.status).toBe('success');
      expect(res.body.statuses[1]!.error?.tag).toBe('CRAWL_ROBOTS_DISALLOWED');
      expect(failing.hits('/docs/faq')).toBe(0);
    } finally {
      await Promise.all([missing.close(), failing.close()]);
    }
  });
});
