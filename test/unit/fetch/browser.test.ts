import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserRenderer } from '../../../src/fetch/browser.js';
import { fetchError, send, startSite, testFetcher, type Site } from './fixture.js';

const CHROMIUM = process.env.TRAWL_BROWSER ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
// In CI the browser must be there (the workflow installs Debian's chromium); locally it may be missing.
const RUN = HAVE_CHROMIUM || Boolean(process.env.CI);

const scriptPage = (internal: string) => `<!doctype html><html><head><title>js</title></head><body><div id="app"></div>
<script>
  document.getElementById('app').innerHTML = '<h1>Rendered by script</h1><p>' + 'content '.repeat(20) + '</p>';
  const probe = (id, url) => fetch(url).then(r => r.text(), () => 'blocked').then(t => {
    const p = document.createElement('p'); p.id = id; p.textContent = t; document.body.append(p);
  });
  probe('direct', '${internal}/secret');
  probe('redirected', '/hop');
</script></body></html>`;

describe.skipIf(!RUN)('browser rendering (needs Chromium at TRAWL_BROWSER or /usr/bin/chromium)', () => {
  let site: Site;
  // Loopback answers on all of 127/8: this "internal" service is reachable unless the guard refuses it.
  let internal: Site;
  const guard = { allowPrivateNetwork: false, privateAllowlist: ['127.0.0.1'] };
  const renderer = createBrowserRenderer({ executablePath: CHROMIUM, guard, userAgent: 'Trawl/test' });
  const fetcher = testFetcher({ browser: renderer });

  beforeAll(async () => {
    expect(HAVE_CHROMIUM, `CI is set but no Chromium at ${CHROMIUM}: install Debian's chromium package`).toBe(true);
    internal = await startSite(
      {
        '/secret': send('secret data', 'text/plain', { 'access-control-allow-origin': '*' }),
        '/app': send('<p>internal app</p>'),
      },
      '127.0.0.2',
    );
    site = await startSite({
      '/app': (req, res) => send(scriptPage(internal.origin))(req, res),
      '/to-private': (_req, res) => void res.writeHead(302, { location: `${internal.origin}/app` }).end(),
      '/hop': (_req, res) => void res.writeHead(307, { location: `${internal.origin}/secret` }).end(),
      '/moved': (_req, res) => void res.writeHead(301, { location: '/app' }).end(),
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await Promise.all([site?.close(), internal?.close()]);
  });

  it('returns the DOM a script wrote, with every page request guarded', async () => {
    const res = await fetcher.fetch({ url: `${site.origin}/app`, timeoutMs: 15_000, render: true });
    expect(res).toMatchObject({ rendered: true, kind: 'html', status: 200, url: `${site.origin}/app` });
    expect(res.text).toContain('<h1>Rendered by script</h1>');
    expect(res.text).toContain('<p id="direct">blocked</p>');
    expect(res.text).toContain('<p id="redirected">blocked</p>');
    expect(site.count('/hop')).toBe(1);
    expect(internal.count('/secret')).toBe(0);
    expect(site.lastHeaders.get('/app')?.['user-agent']).toBe('Trawl/test');
  });

  it('follows a main-document redirect as a navigation, so the page URL is the final one', async () => {
    const page = await renderer.renderPage(`${site.origin}/moved`, { timeoutMs: 10_000 });
    expect(page.url).toBe(`${site.origin}/app`);
    expect(page.html).toContain('Rendered by script');
  });

  it('refuses a main document that redirects to a private address', async () => {
    const err = await fetchError(renderer.renderPage(`${site.origin}/to-private`, { timeoutMs: 10_000 }));
    expect(err.tag).toBe('CRAWL_PRIVATE_ADDRESS');
    expect(err.message).toContain('127.0.0.2');
    expect(internal.count('/app')).toBe(0);
  });
});

if (!RUN) {
  describe('browser rendering', () => {
    it.skip(`skipped: no Chromium at ${CHROMIUM} (apt install chromium, or set TRAWL_BROWSER); CI requires it`, () => {});
  });
}

describe('rendering without a browser', () => {
  it('says the page needs a browser', async () => {
    const fetcher = testFetcher();
    try {
      expect(fetcher.canRender).toBe(false);
      const err = await fetchError(fetcher.fetch({ url: 'http://example.com/', timeoutMs: 1000, render: true }));
      expect(err.tag).toBe('CRAWL_NEEDS_BROWSER');
    } finally {
      await fetcher.close();
    }
  });
});
