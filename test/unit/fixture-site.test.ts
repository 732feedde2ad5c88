/** Self-check of the loopback fixture site: every route the contents tests rely on answers as they assume. */
import http from 'node:http';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ETAG_V1, etagPage, ROBOTS_TXT, startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { ARTICLE, counterPage } from '../fixtures/site/articles.js';
import { DOCS, DOCS_PAGES, OFF_SITE_LINKS } from '../fixtures/site/docs.js';
import { encodeCp1252, FEED, LATIN1, PDF, SJIS } from '../fixtures/site/formats.js';
import { MARKERS, simpleArticle } from '../fixtures/site/layout.js';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

/** A raw GET (no automatic decompression or redirects), body as bytes. */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('fixture site', () => {
  it('serves the article with its metadata and chrome, and logs each request with its headers', async () => {
    const res = await get(`${site.url}/articles/rust-async`, { 'user-agent': 'fixture-check/1' });
    const html = res.body.toString('utf8');
    expect(res.status).toBe(200);
    expect(html).toContain(`<meta property="article:published_time" content="${ARTICLE.published}">`);
    expect(html).toContain(`"name":"${ARTICLE.author}"`);
    expect(html).toContain(ARTICLE.sentence);
    for (const marker of Object.values(MARKERS)) expect(html).toContain(marker);
    expect(site.hits('/articles/rust-async')).toBe(1);
    const last = site.requests.at(-1)!;
    expect(last).toMatchObject({ method: 'GET', path: '/articles/rust-async', localAddress: '127.0.0.1' });
    expect(last.headers['user-agent']).toBe('fixture-check/1');
  });

  it('serves docs with code blocks and a table, an index with same-site and off-site links, and subpages', async () => {
    const page = (await get(`${site.url}/docs/getting-started`)).body.toString();
    expect(page).toContain('<pre><code class="language-ts">');
    expect(page).toContain('<pre><code class="language-bash">');
    expect(page).toContain(`<td>${DOCS.tableCell}</td>`);
    const index = (await get(`${site.url}/docs/`)).body.toString();
    for (const p of DOCS_PAGES) {
      expect(index).toContain(`href="${p.path}"`);
      expect((await get(site.url + p.path)).status).toBe(200);
    }
    for (const u of OFF_SITE_LINKS) expect(index).toContain(`href="${u}"`);
    expect((await get(`${site.url}/forum/t/42`)).body.toString()).toContain('3 Answers');
  });

  it('serves a PDF that pdf.js reads: Info dictionary and text', async () => {
    const res = await get(`${site.url}/paper.pdf`);
    expect(res.headers['content-type']).toBe('application/pdf');
    const doc = await getDocument({ data: new Uint8Array(res.body), isEvalSupported: false, verbosity: 0 }).promise;
    const info = (await doc.getMetadata()).info as Record<string, unknown>;
    expect(info.Title).toBe(PDF.title);
    expect(info.Author).toBe(PDF.author);
    expect(info.CreationDate).toBe('D:20230405120000Z');
    const content = await (await doc.getPage(1)).getTextContent();
    const text = content.items.map((item) => ('str' in item ? item.str : '')).join(' ');
    for (const line of PDF.lines) expect(text).toContain(line);
    await doc.destroy();
  });

  it('serves feeds, Markdown, JSON, plain text and images with their content types', async () => {
    const rss = await get(`${site.url}/feed.xml`);
    expect(rss.headers['content-type']).toMatch(/^application\/rss\+xml/);
    for (const t of FEED.rss) expect(rss.body.toString()).toContain(`<title>${t}</title>`);
    const atom = await get(`${site.url}/atom.xml`);
    for (const t of FEED.atom) expect(atom.body.toString()).toContain(`<title>${t}</title>`);
    expect((await get(`${site.url}/notes.md`)).headers['content-type']).toMatch(/^text\/markdown/);
    expect(JSON.parse((await get(`${site.url}/data.json`)).body.toString())).toHaveProperty('name', 'ferrous-cli');
    expect((await get(`${site.url}/plain.txt`)).headers['content-type']).toMatch(/^text\/plain/);
    const png = await get(`${site.url}/image.png`);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.body.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  });

  it('serves windows-1252 and Shift_JIS bytes that decode to the stated text', async () => {
    expect(() => encodeCp1252('東')).toThrow(/windows-1252/);
    const latin1 = await get(`${site.url}/latin1`);
    expect(latin1.headers['content-type']).toBe('text/html; charset=windows-1252');
    expect(latin1.body.includes(Buffer.from('Café', 'utf8'))).toBe(false);
    // Node 20's TextDecoder('windows-1252') decodes as ISO-8859-1 (0x80-0x9F become C1 controls), so the
    // bytes are checked against the code page's published values instead.
    expect(encodeCp1252('€“”–éßü')).toEqual(Buffer.from([0x80, 0x93, 0x94, 0x96, 0xe9, 0xdf, 0xfc]));
    expect(latin1.body.includes(encodeCp1252(LATIN1.phrase))).toBe(true);
    expect(latin1.body.toString('latin1')).not.toMatch(/<meta charset/i);
    const sjis = await get(`${site.url}/sjis`);
    expect(sjis.headers['content-type']).toBe('text/html');
    const text = new TextDecoder('shift_jis', { fatal: true }).decode(sjis.body);
    expect(text).toContain('<meta charset="shift_jis">');
    expect(text).toContain(`<h1>${SJIS.title}</h1>`);
    for (const p of SJIS.paragraphs) expect(text).toContain(`<p>${p}</p>`);
  });

  it('redirects in a chain, in a loop, and to private addresses', async () => {
    const r1 = await get(`${site.url}/r/1`);
    expect([r1.status, r1.headers.location]).toEqual([302, '/r/2']);
    const r2 = await get(`${site.url}/r/2`);
    expect([r2.status, r2.headers.location]).toEqual([301, `${site.url}/articles/rust-async`]);
    expect((await get(`${site.url}/r/loop`)).headers.location).toBe('/r/loop-b');
    expect((await get(`${site.url}/r/loop-b`)).headers.location).toBe('/r/loop');
    expect((await get(`${site.url}/r/private`)).headers.location).toBe(
      `http://127.0.0.2:${site.port}/articles/rust-async`,
    );
    expect((await get(`${site.url}/r/metadata`)).headers.location).toBe('http://169.254.169.254/latest/meta-data/');
    const decimal = (await get(`${site.url}/r/decimal`)).headers.location!;
    expect(new URL(decimal).hostname).toBe('127.0.0.2');
    if (site.privateUrl) {
      // The twin is reachable, so an SSRF guard that let 127.0.0.2 through would be seen in the log.
      expect((await get(`${site.privateUrl}/articles/rust-async`)).status).toBe(200);
      expect(site.requests.at(-1)!.localAddress).toBe('127.0.0.2');
    }
  });

  it('serves robots.txt, and the pages it forbids still exist', async () => {
    expect((await get(`${site.url}/robots.txt`)).body.toString()).toBe(ROBOTS_TXT);
    expect((await get(`${site.url}/private/x`)).status).toBe(200);
    expect((await get(`${site.url}/no-trawl/x`)).status).toBe(200);
    const other = await startFixtureSite({ robots: 503 });
    expect((await get(`${other.url}/robots.txt`)).status).toBe(503);
    await other.close();
  });

  it('answers 404, 410, 500 and 403, and a chunked page over 2 MiB', async () => {
    const codes = await Promise.all(['/missing', '/gone', '/boom', '/forbidden'].map((p) => get(site.url + p)));
    expect(codes.map((r) => r.status)).toEqual([404, 410, 500, 403]);
    const huge = await get(`${site.url}/huge`);
    expect(huge.headers['content-length']).toBeUndefined();
    expect(huge.body.length).toBeGreaterThanOrEqual(2 * 1024 * 1024);
  });

  it('gzips /gz only when asked, and serves a JavaScript-only page', async () => {
    const zipped = await get(`${site.url}/gz`, { 'accept-encoding': 'gzip, br' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.body.subarray(0, 2).toString('hex')).toBe('1f8b');
    const plain = await get(`${site.url}/gz`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toContain('Compressed page');
    const app = (await get(`${site.url}/app`)).body.toString();
    expect(app).toContain('<div id="root"></div>');
    expect(app).toContain('document.createElement');
    expect(app).toContain('enable JavaScript');
  });

  it('answers 304 to a matching If-None-Match, and lets a test change the page', async () => {
    const first = await get(`${site.url}/etag`);
    expect(first.body.toString()).toBe(ETAG_V1);
    const etag = first.headers.etag!;
    expect((await get(`${site.url}/etag`, { 'if-none-match': etag })).status).toBe(304);
    site.setPage('/etag', etagPage(simpleArticle('Release notes', ['Second edition.'])));
    const changed = await get(`${site.url}/etag`, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.body.toString()).toContain('Second edition.');
    site.setPage('/custom', '<p>custom</p>');
    expect((await get(`${site.url}/custom`)).body.toString()).toBe('<p>custom</p>');
  });

  it('counts visits per path and query on /counter', async () => {
    await get(`${site.url}/counter?case=a`);
    const second = await get(`${site.url}/counter?case=a`);
    expect(second.body.toString()).toBe(counterPage(2));
    expect((await get(`${site.url}/counter?case=b`)).body.toString()).toBe(counterPage(1));
    expect(site.hits('/counter?case=a')).toBe(2);
    expect(site.hits('/counter')).toBe(0);
  });

  it('is slow on /slow-headers (no headers yet) and /slow (headers at once, body dribbled)', async () => {
    const started = Date.now();
    const headersAt = (path: string) =>
      new Promise<number | null>((resolve) => {
        const req = http.get(site.url + path, (res) => {
          resolve(Date.now() - started);
          res.resume();
        });
        req.on('error', () => resolve(null));
        // /slow-headers answers after 3 s: a 2 s window tells "no headers yet" from "at once" however loaded
        setTimeout(() => (req.destroy(), resolve(null)), 2000);
      });
    const [slowHeaders, slow] = await Promise.all([headersAt('/slow-headers'), headersAt('/slow')]);
    expect(slowHeaders).toBeNull();
    expect(slow).not.toBeNull();
  });
});
