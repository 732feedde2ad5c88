import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyContent, sniffKind } from '../../../src/fetch/content-type.js';
import { decodeText, metaCharset } from '../../../src/fetch/decode.js';
import { fetchError, send, startSite, testFetcher, type Site } from './fixture.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');
const url = (path = '/page') => new URL(`http://example.com${path}`);
// "日本語" in Shift_JIS.
const NIHONGO_SJIS = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]);

describe('charset decoding', () => {
  let site: Site;
  const fetcher = testFetcher({ robots: false });

  beforeAll(async () => {
    site = await startSite({
      '/cp1252': send(bytes('<p>caf\xe9 \x93quoted\x94</p>'), 'text/html; charset=windows-1252'),
      '/sjis': send(
        Buffer.concat([
          bytes('<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><p>'),
          NIHONGO_SJIS,
          bytes('</p>'),
        ]),
        'text/html',
      ),
      '/bom': send(
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>naïve</p>')]),
        'text/html; charset=iso-8859-1',
      ),
      '/invalid-utf8': send(bytes('<p>na\xefve</p>'), 'text/html'),
      '/latin1.xml': send(bytes('<?xml version="1.0" encoding="ISO-8859-1"?><doc>\xe9t\xe9</doc>'), 'application/xml'),
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await site.close();
  });

  it('uses the Content-Type charset when only the header names it', async () => {
    const res = await fetcher.fetch({ url: `${site.origin}/cp1252`, timeoutMs: 5000 });
    expect(res).toMatchObject({ charset: 'windows-1252', text: '<p>café “quoted”</p>' });
  });

  it('finds Shift_JIS from a <meta http-equiv> alone', async () => {
    const res = await fetcher.fetch({ url: `${site.origin}/sjis`, timeoutMs: 5000 });
    expect(res.charset).toBe('shift_jis');
    expect(res.text).toContain('<p>日本語</p>');
  });

  it('lets a UTF-8 BOM win over the header, and strips it', async () => {
    const res = await fetcher.fetch({ url: `${site.origin}/bom`, timeoutMs: 5000 });
    expect(res).toMatchObject({ charset: 'utf-8', text: '<p>naïve</p>' });
  });

  it('falls back to windows-1252 for undeclared bytes that are not UTF-8', async () => {
    const res = await fetcher.fetch({ url: `${site.origin}/invalid-utf8`, timeoutMs: 5000 });
    expect(res).toMatchObject({ charset: 'windows-1252', text: '<p>naïve</p>' });
  });

  it('reads the XML declaration', async () => {
    const res = await fetcher.fetch({ url: `${site.origin}/latin1.xml`, timeoutMs: 5000 });
    expect(res).toMatchObject({
      kind: 'xml',
      charset: 'windows-1252',
      text: expect.stringContaining('<doc>été</doc>'),
    });
  });

  it('prescans <meta charset> past comments, and defaults to UTF-8', () => {
    expect(metaCharset(bytes('<!-- <meta charset="koi8-r"> --><meta charset=euc-kr>'))).toBe('euc-kr');
    expect(metaCharset(bytes('<meta charset="utf-16">'))).toBe('utf-8');
    expect(decodeText(Buffer.from('plain ✓'), undefined, 'none')).toEqual({ text: 'plain ✓', charset: 'utf-8' });
    expect(decodeText(bytes('x'), 'no-such-charset', 'none').charset).toBe('utf-8');
    // Node 20's own windows-1252 decoder is Latin-1 (nodejs/node#60888); Trawl maps 0x80-0x9F itself.
    expect(decodeText(Buffer.from([0x80, 0x92, 0x9f, 0x81]), 'latin1', 'none').text).toBe('€’Ÿ\u0081');
  });
});

describe('content classification', () => {
  it.each([
    ['text/html; charset=utf-8', '/', 'html'],
    ['application/xhtml+xml', '/', 'html'],
    ['text/plain', '/notes', 'text'],
    ['text/plain', '/README.md', 'markdown'],
    ['text/markdown; charset=utf-8', '/', 'markdown'],
    ['text/x-markdown', '/', 'markdown'],
    ['application/json', '/', 'json'],
    ['application/ld+json', '/', 'json'],
    ['application/feed+json', '/', 'feed'],
    ['application/rss+xml', '/', 'feed'],
    ['application/atom+xml', '/', 'feed'],
    ['application/pdf', '/', 'pdf'],
    ['text/csv', '/', 'text'],
  ])('%s at %s is %s', (type, path, kind) => {
    expect(classifyContent(type, url(path), bytes('')).kind).toBe(kind);
  });

  it('tells feeds from other XML by the root element', () => {
    const rss = bytes('<?xml version="1.0"?>\n<!-- c --><rss version="2.0"><channel/></rss>');
    const atom = bytes('<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"/>');
    const rdf = bytes('<?xml version="1.0"?><rdf:RDF xmlns:rdf="x"/>');
    const sitemap = bytes('<?xml version="1.0"?><urlset/>');
    expect(classifyContent('text/xml', url(), rss).kind).toBe('feed');
    expect(classifyContent('application/xml', url(), atom).kind).toBe('feed');
    expect(classifyContent('application/xml', url(), rdf).kind).toBe('feed');
    expect(classifyContent('application/xml', url(), sitemap).kind).toBe('xml');
  });

  it.each([
    ['%PDF-1.7\n...', 'pdf'],
    ['\n  <!DOCTYPE html><html>', 'html'],
    ['<html lang="en">', 'html'],
    ['<?xml version="1.0"?><rss/>', 'feed'],
    ['<rss version="2.0">', 'feed'],
    ['<feed xmlns="http://www.w3.org/2005/Atom">', 'feed'],
    ['<?xml version="1.0"?><catalog/>', 'xml'],
  ])('sniffs %j as %s', (head, kind) => {
    expect(sniffKind(bytes(head))).toBe(kind);
    expect(classifyContent('application/octet-stream', url('/download'), bytes(head)).kind).toBe(kind);
    expect(classifyContent(undefined, url('/download'), bytes(head)).kind).toBe(kind);
  });

  it('refuses what Trawl cannot read, naming the type', () => {
    expect(() => classifyContent('image/png', url('/a.png'), bytes('\x89PNG'))).toThrow(/image\/png/);
    expect(() => classifyContent('application/zip', url(), bytes('PK'))).toThrow(/application\/zip/);
    expect(() => classifyContent('application/octet-stream', url('/x.bin'), Buffer.from([0, 1, 2]))).toThrow(
      /application\/octet-stream/,
    );
  });

  it('classifies over the wire, keeps PDF bytes, and refuses images', async () => {
    const pdf = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n', 'latin1');
    const site = await startSite({
      '/doc': send(pdf, 'application/octet-stream'),
      '/pic.png': send(Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png'),
      '/README.md': send('# Title', 'text/plain'),
    });
    const fetcher = testFetcher({ robots: false });
    try {
      const doc = await fetcher.fetch({ url: `${site.origin}/doc`, timeoutMs: 5000 });
      expect(doc).toMatchObject({ kind: 'pdf', mediaType: 'application/pdf', text: '' });
      expect(Buffer.from(doc.bodyBase64, 'base64').equals(pdf)).toBe(true);
      const md = await fetcher.fetch({ url: `${site.origin}/README.md`, timeoutMs: 5000 });
      expect(md).toMatchObject({ kind: 'markdown', text: '# Title' });
      const err = await fetchError(fetcher.fetch({ url: `${site.origin}/pic.png`, timeoutMs: 5000 }));
      expect(err.tag).toBe('CRAWL_UNSUPPORTED_CONTENT_TYPE');
      expect(err.message).toContain('image/png');
    } finally {
      await fetcher.close();
      await site.close();
    }
  });
});

describe('gzip files', () => {
  it('opens a gzip file served as application/gzip and reads what is inside', async () => {
    const { gzipSync } = await import('node:zlib');
    const sitemap = '<?xml version="1.0"?><urlset><url><loc>http://127.0.0.1/a</loc></url></urlset>';
    const site = await startSite({
      '/sitemap.xml.gz': send(gzipSync(sitemap), 'application/gzip'),
      '/big.gz': send(gzipSync(Buffer.alloc(300_000, 'a')), 'application/x-gzip'),
      '/bad.gz': send(Buffer.from([0x1f, 0x8b, 1, 2, 3]), 'application/gzip'),
    });
    const fetcher = testFetcher({ maxBodyBytes: 100_000 });
    try {
      const raw = await fetcher.fetch({ url: `${site.origin}/sitemap.xml.gz`, timeoutMs: 5000, robots: false });
      expect(raw.kind).toBe('xml');
      expect(raw.text).toBe(sitemap);
      const big = await fetchError(fetcher.fetch({ url: `${site.origin}/big.gz`, timeoutMs: 5000, robots: false }));
      expect(big.tag).toBe('CRAWL_TOO_LARGE');
      const bad = await fetchError(fetcher.fetch({ url: `${site.origin}/bad.gz`, timeoutMs: 5000, robots: false }));
      expect(bad.tag).toBe('CRAWL_UNKNOWN_ERROR');
    } finally {
      await fetcher.close();
      await site.close();
    }
  });
});
