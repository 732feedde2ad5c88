/**
 * `trawl crawl` as a user runs it (the built CLI in a child process) against a loopback site with a
 * robots.txt, a sitemap index (one sitemap gzipped), linked pages, an off-site link, a slow page and a
 * 404; the store is read back from the data directory's SQLite file.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, tempDir } from '../helpers/app.js';

const DOCS = 20;
const BLOG = 6;
const hits = new Map<string, number>();
let site: http.Server;
let offsite: http.Server;
let base = '';
let offsiteUrl = '';

const paragraph = (topic: string) =>
  `<p>This page explains ${topic} in enough detail for a reader who arrives from a search engine. ` +
  `It covers the configuration, the common mistakes and how to check that everything works as expected.</p>`;

const page = (title: string, links: string[]) =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav><a href="/">Home</a></nav>` +
  `<main><h1>${title}</h1>${paragraph(title)}${paragraph(`${title} again`)}<ul>` +
  links.map((l) => `<li><a href="${l}">Link to ${l}</a></li>`).join('') +
  `</ul></main></body></html>`;

/** The pages of the site and what they link to; /blog/2.. are reachable through the sitemap only. */
function route(p: string): { status: number; type?: string; body: string | Buffer; gzip?: boolean; delayMs?: number } {
  if (p === '/robots.txt') {
    return {
      status: 200,
      type: 'text/plain',
      body: `User-agent: *\nDisallow: /private/\n\nSitemap: ${base}/sitemap-index.xml\n`,
    };
  }
  if (p === '/sitemap-index.xml') {
    const maps = ['/sitemap-blog.xml', '/sitemap-docs.xml.gz'].map((m) => `<sitemap><loc>${base}${m}</loc></sitemap>`);
    return {
      status: 200,
      type: 'application/xml',
      body: `<?xml version="1.0"?><sitemapindex>${maps.join('')}</sitemapindex>`,
    };
  }
  if (p === '/sitemap-blog.xml' || p === '/sitemap-docs.xml.gz') {
    const paths =
      p === '/sitemap-blog.xml' ? Array.from({ length: BLOG }, (_, i) => `/blog/${i + 1}`) : ['/docs/1', '/docs/2'];
    const urls = paths.map((u) => `<url><loc>${base}${u}</loc></url>`).join('');
    const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`;
    return { status: 200, type: 'application/xml', body: xml, gzip: p.endsWith('.gz') };
  }
  if (p === '/') {
    return {
      status: 200,
      body: page('Home', ['/docs/1', '/blog/1', '/private/secret', '/slow', '/missing', `${offsiteUrl}/elsewhere`]),
    };
  }
  const doc = /^\/docs\/(\d+)$/.exec(p);
  if (doc && +doc[1]! >= 1 && +doc[1]! <= DOCS) {
    const n = +doc[1]!;
    const children = [2 * n, 2 * n + 1].filter((c) => c <= DOCS).map((c) => `/docs/${c}`);
    return { status: 200, body: page(`Docs ${n}`, [...children, '/logo.png']) };
  }
  const blog = /^\/blog\/(\d+)$/.exec(p);
  if (blog && +blog[1]! >= 1 && +blog[1]! <= BLOG) return { status: 200, body: page(`Blog ${blog[1]}`, []) };
  if (p === '/slow') return { status: 200, body: page('Slow', []), delayMs: 700 };
  if (p === '/private/secret') return { status: 200, body: page('Secret', []) };
  return { status: 404, type: 'text/plain', body: 'not found' };
}

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    const r = route(p);
    const headers: Record<string, string> = { 'content-type': r.type ?? 'text/html; charset=utf-8' };
    if (r.gzip) headers['content-encoding'] = 'gzip';
    const send = () => res.writeHead(r.status, headers).end(r.gzip ? gzipSync(r.body) : r.body);
    if (r.delayMs) setTimeout(send, r.delayMs);
    else send();
  });
  offsite = http.createServer((req, res) => {
    hits.set(`offsite:${req.url}`, (hits.get(`offsite:${req.url}`) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/html' }).end(page('Elsewhere', []));
  });
  await Promise.all([site, offsite].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // Another site on the same machine: "localhost" is not the seed's host, so its links are off-site.
  offsiteUrl = `http://localhost:${(offsite.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all([site, offsite].map((s) => new Promise((r) => s.close(r))));
});

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
  hits.clear();
});
function dataDir(): string {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI (127.0.0.1 allowlisted unless `env` says otherwise); `onChild` gets the child process. */
function trawl(
  args: string[],
  onChild?: (child: ReturnType<typeof spawn>) => void,
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: {
        ...process.env,
        TRAWL_DATA_DIR: '',
        TRAWL_PRIVATE_ALLOWLIST: '127.0.0.1',
        TRAWL_LOG_LEVEL: 'warn',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    onChild?.(child);
  });
}

const FAST = ['--delay', '0', '--per-host', '8', '--concurrency', '8'];
const crawl = (dir: string, ...args: string[]) => trawl(['crawl', `${base}/`, '--data-dir', dir, ...FAST, ...args]);

interface Summary {
  status: string;
  done: number;
  failed: number;
  queued: number;
  attemptedThisRun: number;
  failedByTag: Record<string, number>;
  resumed: boolean;
}
const summaryOf = (r: Run) => JSON.parse(r.stdout) as Summary;

function frontier(dir: string): Map<string, { state: string; tag: string | null; depth: number }> {
  const db = new Database(path.join(dir, 'trawl.sqlite'), { readonly: true });
  const rows = db.prepare('SELECT url, state, error_tag AS tag, depth FROM crawl_frontier').all() as {
    url: string;
    state: string;
    tag: string | null;
    depth: number;
  }[];
  db.close();
  return new Map(rows.map((r) => [r.url.replace(base, ''), r]));
}

function documents(dir: string): Map<string, { title: string; text: string; origin: string }> {
  const db = new Database(path.join(dir, 'trawl.sqlite'), { readonly: true });
  const rows = db.prepare('SELECT url, title, text, origin FROM documents').all() as {
    url: string;
    title: string;
    text: string;
    origin: string;
  }[];
  db.close();
  return new Map(rows.map((r) => [r.url.replace(base, ''), r]));
}

const pageHits = () => [...hits].filter(([p]) => !/robots|sitemap/.test(p));

describe('trawl crawl', () => {
  it('crawls by links and sitemaps, honours robots.txt, stays on the site and stores documents', async () => {
    const dir = dataDir();
    const run = await crawl(dir, '--depth', '10', '--json');
    expect(run.code, run.stderr).toBe(0);
    const s = summaryOf(run);
    expect(s.status).toBe('finished');
    // /, 20 docs, 6 blog posts (2-6 from the sitemap only) and /slow are stored.
    expect(s.done).toBe(1 + DOCS + BLOG + 1);
    expect(s.failedByTag).toEqual({ CRAWL_ROBOTS_DISALLOWED: 1, CRAWL_NOT_FOUND: 1 });
    const f = frontier(dir);
    expect(f.get('/private/secret')).toMatchObject({ state: 'failed', tag: 'CRAWL_ROBOTS_DISALLOWED' });
    expect(f.get('/missing')).toMatchObject({ state: 'failed', tag: 'CRAWL_NOT_FOUND' });
    expect(f.get('/blog/4')).toMatchObject({ state: 'done', depth: 1 });
    expect(f.get('/docs/16')).toMatchObject({ state: 'done', depth: 4 });
    expect(hits.get('/private/secret')).toBeUndefined();
    expect([...hits.keys()].some((k) => k.startsWith('offsite:'))).toBe(false);
    expect(hits.get('/logo.png')).toBeUndefined();
    expect(hits.get('/sitemap-docs.xml.gz')).toBe(1);
    expect(pageHits().every(([, n]) => n === 1)).toBe(true);
    const docs = documents(dir);
    expect(docs.get('/blog/5')).toMatchObject({ title: 'Blog 5', origin: 'fetch' });
    expect(docs.get('/docs/7')!.text).toContain('This page explains Docs 7');
    expect(docs.has('/private/secret')).toBe(false);
    // stderr is a pipe here: plain progress lines, not a redrawn bar.
    expect(run.stderr).toMatch(/^crawl: \d+ done, \d+ queued, \d+ failed, [\d.]+ pages\/s, \d+:\d\d elapsed$/m);
    expect(run.stderr).not.toContain('\r');
    // each failed page with its reason; some pages were stored, so the crawl succeeded
    expect(run.stderr).toMatch(/^crawl: failed http:\/\/127\.0\.0\.1:\d+\/missing: CRAWL_NOT_FOUND \(HTTP 404\): 127\.0\.0\.1:\d+ answered 404$/m); // prettier-ignore
    expect(run.stderr).toMatch(/^crawl: failed http:\/\/127\.0\.0\.1:\d+\/private\/secret: CRAWL_ROBOTS_DISALLOWED: disallowed by robots\.txt: /m); // prettier-ignore
    expect(run.stderr).not.toContain('no page was fetched');
  });

  it('exits 1 when no page could be fetched, saying why for each URL', async () => {
    // a port with nothing listening
    const gone = http.createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const refused = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/`;
    await new Promise((r) => gone.close(r));
    const local = `http://localhost:${(site.address() as AddressInfo).port}/`;
    // as a new user runs it: no private network allowed
    const run = await trawl(['crawl', local, refused, '--data-dir', dataDir(), ...FAST, '--progress', 'off'], undefined, { TRAWL_PRIVATE_ALLOWLIST: '' }); // prettier-ignore
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^finished: 0 done, 2 failed, 0 queued; /);
    const lines = run.stderr.trim().split('\n');
    expect(lines.find((l) => l.startsWith(`crawl: failed ${local}: `))).toMatch(/: CRAWL_PRIVATE_ADDRESS: localhost resolves to (127\.0\.0\.1|::1), a loopback address: refused by the private-network policy, .*TRAWL_ALLOW_PRIVATE_NETWORK=true \(flag --allow-private-network\)/); // prettier-ignore
    expect(lines.find((l) => l.startsWith(`crawl: failed ${refused}: `))).toMatch(/: CRAWL_PRIVATE_ADDRESS: 127\.0\.0\.1 is a loopback address/); // prettier-ignore
    expect(lines.at(-1)).toBe('crawl: no page was fetched; the reason for each URL is above');
    // the network allowed: the refused port says so, and the crawl still fetched nothing
    const allowed = await trawl(['crawl', refused, '--data-dir', dataDir(), ...FAST, '--progress', 'off', '--json']);
    expect(allowed.code, allowed.stderr).toBe(1);
    expect(allowed.stderr).toMatch(/^crawl: failed http:\/\/127\.0\.0\.1:\d+\/: SOURCE_NOT_AVAILABLE: .*connection refused: the site is not reachable/m); // prettier-ignore
    expect(summaryOf(allowed)).toMatchObject({ done: 0, failed: 1, failures: [{ url: refused, tag: 'SOURCE_NOT_AVAILABLE', error: expect.stringMatching(/ECONNREFUSED/) }] }); // prettier-ignore
  });

  it('honours --depth, --no-sitemaps, --timeout and --limit', async () => {
    const shallow = await crawl(dataDir(), '--depth', '1', '--no-sitemaps', '--timeout', '300', '--json');
    expect(shallow.code, shallow.stderr).toBe(0);
    // The seed and its links: /docs/1 and /blog/1 stored; robots-disallowed, 404 and the slow page
    // (past --timeout) failed; the off-site link never queued.
    expect(summaryOf(shallow)).toMatchObject({ status: 'finished', done: 3, failed: 3, queued: 0 });
    expect(summaryOf(shallow).failedByTag).toMatchObject({ CRAWL_LIVECRAWL_TIMEOUT: 1 });
    expect(hits.get('/docs/2')).toBeUndefined();
    expect(hits.get('/blog/2')).toBeUndefined();
    hits.clear();
    const limited = await crawl(dataDir(), '--depth', '10', '--limit', '5', '--json');
    expect(limited.code, limited.stderr).toBe(0);
    const s = summaryOf(limited);
    expect(s.status).toBe('limit');
    expect(s.done + s.failed).toBe(5);
    expect(s.queued).toBeGreaterThan(0);
    expect(limited.stderr).toMatch(/larger --limit/);
  });

  it('filters discovered URLs with --include and --exclude globs', async () => {
    const dir = dataDir();
    const run = await crawl(dir, '--depth', '10', '--include', '/docs/*', '--exclude', '*/docs/1?', '--json');
    expect(run.code, run.stderr).toBe(0);
    const urls = [...frontier(dir).keys()].sort();
    // The seed is always fetched; /docs/20 is linked from /docs/10 only, which is excluded.
    expect(urls).toEqual(['/', ...Array.from({ length: 9 }, (_, i) => `/docs/${i + 1}`)].sort());
    expect(hits.get('/docs/12')).toBeUndefined();
    expect(hits.get('/blog/1')).toBeUndefined();
  });

  it('resumes a crawl stopped at its limit without refetching done pages, and --restart starts over', async () => {
    const dir = dataDir();
    const first = summaryOf(await crawl(dir, '--depth', '10', '--limit', '10', '--json'));
    expect(first).toMatchObject({ status: 'limit', resumed: false });
    const second = await crawl(dir, '--depth', '10', '--limit', '100', '--json');
    expect(summaryOf(second)).toMatchObject({ status: 'finished', resumed: true, done: 28, failed: 2 });
    expect(summaryOf(second).attemptedThisRun).toBe(20);
    expect(pageHits().every(([, n]) => n === 1)).toBe(true);
    // Finished: the same command is a fresh crawl; --resume has nothing to resume.
    const resume = await crawl(dir, '--depth', '10', '--resume');
    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(/No unfinished crawl/);
    const restart = await crawl(dir, '--depth', '10', '--limit', '3', '--restart', '--json');
    expect(summaryOf(restart)).toMatchObject({ status: 'limit', resumed: false, done: 3 });
    expect(hits.get('/')).toBe(2);
  });

  it('stops on SIGINT (exit 130), saves the frontier and resumes with the same command', async () => {
    const dir = dataDir();
    const args = ['crawl', `${base}/`, '--data-dir', dir, '--depth', '10', '--concurrency', '1', '--delay', '120'];
    const first = await trawl([...args, '--json'], (child) => {
      const poll = setInterval(() => {
        if (pageHits().length < 4) return;
        clearInterval(poll);
        child.kill('SIGINT');
      }, 10);
      child.on('close', () => clearInterval(poll));
    });
    expect(first.code, first.stderr).toBe(130);
    expect(first.stderr).toMatch(/stopping/);
    const s = summaryOf(first);
    expect(s.status).toBe('interrupted');
    expect(s.queued).toBeGreaterThan(0);
    const again = await trawl([...args, '--delay', '0', '--per-host', '4', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(summaryOf(again)).toMatchObject({ status: 'finished', resumed: true, done: 28, failed: 2 });
    expect(pageHits().every(([, n]) => n === 1)).toBe(true);
  });

  it('draws a bar with --progress bar and rejects bad input with exit code 2', async () => {
    const bar = await crawl(dataDir(), '--depth', '0', '--progress', 'bar');
    expect(bar.code, bar.stderr).toBe(0);
    expect(bar.stderr).toContain('\r\x1b[2K');
    expect(bar.stdout).toMatch(/^finished: 1 done, 0 failed, 0 queued; 1 page this run in [\d.]+ s/);
    for (const args of [
      ['crawl', 'ftp://example.com/', '--data-dir', dataDir()],
      ['crawl', `${base}/`, '--depth', 'deep', '--data-dir', dataDir()],
      ['crawl', `${base}/`, '--resume', '--restart', '--data-dir', dataDir()],
    ]) {
      const r = await trawl(args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^trawl crawl: /);
    }
  });
});
