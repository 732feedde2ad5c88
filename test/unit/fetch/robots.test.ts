import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRobotsPolicy } from '../../../src/fetch/robots.js';
import { FetchError } from '../../../src/fetch/types.js';
import { fetchError, redirect, send, startSite, testFetcher, type Site } from './fixture.js';

// RFC 9309: a crawler obeys only its own group when one names it, so Trawl's group repeats /private.
const ROBOTS = [
  'User-agent: *',
  'Disallow: /private',
  '',
  'User-agent: Trawl',
  'Disallow: /private',
  'Disallow: /no-trawl',
].join('\n');

describe('robots.txt through the fetcher', () => {
  let site: Site;
  let missing: Site;
  let failing: Site;
  let moved: Site;
  const fetcher = testFetcher();

  beforeAll(async () => {
    const pages = { '/public': send('<p>public</p>'), '/private/x': send('<p>secret</p>'), '/no-trawl': send('x') };
    site = await startSite({ '/robots.txt': send(ROBOTS, 'text/plain'), ...pages });
    missing = await startSite({ ...pages });
    failing = await startSite({ '/robots.txt': (_req, res) => void res.writeHead(500).end(), ...pages });
    moved = await startSite({
      '/robots.txt': redirect('/real-robots.txt', 301),
      '/real-robots.txt': send('User-agent: *\nDisallow: /public', 'text/plain'),
      '/cross': (req, res) => redirect(`${site.origin}/private/x`)(req, res),
      ...pages,
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await Promise.all([site, missing, failing, moved].map((s) => s.close()));
  });

  it('refuses a disallowed path, serves an allowed one, and loads robots.txt once per origin', async () => {
    const err = await fetchError(fetcher.fetch({ url: `${site.origin}/private/x`, timeoutMs: 5000 }));
    expect(err.tag).toBe('CRAWL_ROBOTS_DISALLOWED');
    expect(site.count('/private/x')).toBe(0);
    for (let i = 0; i < 3; i++) await fetcher.fetch({ url: `${site.origin}/public`, timeoutMs: 5000 });
    expect(site.count('/public')).toBe(3);
    expect(site.count('/robots.txt')).toBe(1);
    expect(site.lastHeaders.get('/robots.txt')?.['user-agent']).toMatch(/^Trawl\//);
  });

  it("matches Trawl's own group by its product token", async () => {
    const err = await fetchError(fetcher.fetch({ url: `${site.origin}/no-trawl`, timeoutMs: 5000 }));
    expect(err.tag).toBe('CRAWL_ROBOTS_DISALLOWED');
    const other = testFetcher({ userAgent: 'OtherBot/1.0' });
    try {
      expect((await other.fetch({ url: `${site.origin}/no-trawl`, timeoutMs: 5000 })).status).toBe(200);
      expect(await other.allowedByRobots(`${site.origin}/private/y`)).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('allows everything when robots.txt is 404', async () => {
    expect((await fetcher.fetch({ url: `${missing.origin}/private/x`, timeoutMs: 5000 })).text).toBe('<p>secret</p>');
    expect(await fetcher.allowedByRobots(`${missing.origin}/anything`)).toBe(true);
  });

  it('disallows everything when robots.txt is 5xx', async () => {
    const err = await fetchError(fetcher.fetch({ url: `${failing.origin}/public`, timeoutMs: 5000 }));
    expect(err.tag).toBe('CRAWL_ROBOTS_DISALLOWED');
    expect(await fetcher.allowedByRobots(`${failing.origin}/public`)).toBe(false);
    expect(failing.count('/public')).toBe(0);
  });

  it('follows robots.txt redirects, and checks robots again on a redirect hop to another origin', async () => {
    expect(await fetcher.allowedByRobots(`${moved.origin}/public`)).toBe(false);
    expect(moved.count('/real-robots.txt')).toBe(1);
    const err = await fetchError(fetcher.fetch({ url: `${moved.origin}/cross`, timeoutMs: 5000 }));
    expect(err.tag).toBe('CRAWL_ROBOTS_DISALLOWED');
    expect(err.message).toContain(site.origin);
  });

  it('skips robots.txt when the request or the operator says so', async () => {
    const res = await fetcher.fetch({ url: `${site.origin}/private/x`, timeoutMs: 5000, robots: false });
    expect(res.status).toBe(200);
    const off = testFetcher({ robots: false });
    const fresh = await startSite({ '/robots.txt': send('User-agent: *\nDisallow: /', 'text/plain'), '/p': send('p') });
    try {
      expect((await off.fetch({ url: `${fresh.origin}/p`, timeoutMs: 5000 })).status).toBe(200);
      expect(fresh.count('/robots.txt')).toBe(0);
    } finally {
      await off.close();
      await fresh.close();
    }
  });

  it('reports an unreachable site with its own tag rather than as a robots refusal', async () => {
    const gone = await startSite({});
    const url = `${gone.origin}/page`;
    await gone.close();
    const err = await fetchError(fetcher.fetch({ url, timeoutMs: 5000 }));
    expect(err.tag).toBe('SOURCE_NOT_AVAILABLE');
    expect(err.message).toMatch(/robots\.txt/);
    expect(await fetcher.allowedByRobots(url)).toBe(false);
  });
});

describe('robots policy cache', () => {
  const origin = 'https://docs.example';

  it('keeps answers for the TTL, bounds the origins, shares concurrent loads, and exposes Crawl-delay', async () => {
    let clock = 0;
    const loaded: string[] = [];
    const policy = createRobotsPolicy({
      productToken: 'Trawl',
      ttlMs: 1000,
      maxOrigins: 2,
      now: () => clock,
      load: async (url) => {
        loaded.push(url.origin);
        return { status: 200, body: 'User-agent: Trawl\nCrawl-delay: 30\nDisallow: /x' };
      },
    });
    const page = new URL(`${origin}/y`);
    await Promise.all([policy.check(page), policy.check(page), policy.check(page)]);
    expect(policy.loads).toBe(1);
    expect(await policy.check(new URL(`${origin}/x`))).toBe(false);
    expect(policy.crawlDelayMs(page)).toBe(10_000);
    clock = 1001;
    await policy.check(page);
    expect(policy.loads).toBe(2);
    await policy.check(new URL('https://b.example/'));
    await policy.check(new URL('https://c.example/'));
    await policy.check(page);
    expect(loaded).toEqual([origin, origin, 'https://b.example', 'https://c.example', origin]);
  });

  it('treats too many redirects as no robots.txt, and does not cache a deadline hit', async () => {
    let calls = 0;
    const policy = createRobotsPolicy({
      productToken: 'Trawl',
      load: async () => {
        calls++;
        throw new FetchError(calls === 1 ? 'CRAWL_LIVECRAWL_TIMEOUT' : 'CRAWL_TOO_MANY_REDIRECTS', 'x');
      },
    });
    await expect(policy.check(new URL(`${origin}/a`))).rejects.toMatchObject({ tag: 'CRAWL_LIVECRAWL_TIMEOUT' });
    expect(await policy.check(new URL(`${origin}/a`))).toBe(true);
    expect(calls).toBe(2);
  });
});
