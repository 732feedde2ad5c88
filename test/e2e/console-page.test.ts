/**
 * The console's page and assets as the HTTP door serves them (src/http/console/, docs/console.md): the
 * built app from dist/console (`npm run build`), a strict CSP with no inline script or style anywhere,
 * nothing loaded from another origin, the first page's script within its 150 KB gzip budget, no path out
 * of the assets folder, and the console off where TRAWL_CONSOLE says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleEnabled } from '../../src/http/console/routes.js';
import { ROOT, startTestServer, type TestServer } from '../helpers/app.js';

const BUILT = path.join(ROOT, 'dist', 'console', 'index.html');
if (!fs.existsSync(BUILT) && process.env.CI) throw new Error('CI must build the console (npm run build) first');

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

describe.skipIf(!fs.existsSync(BUILT))('the console page', () => {
  let t: TestServer;
  let off: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
    off = await startTestServer({ console: 'off' });
  });
  afterAll(async () => {
    await t.close();
    await off.close();
  });

  it('is served with a strict CSP, no inline script or style, nothing from elsewhere', async () => {
    for (const p of ['/console', '/console/']) {
      const res = await fetch(`${t.url}${p}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(CSP);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const html = await res.text();
      const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
      expect(scripts.length).toBeGreaterThan(0);
      for (const attrs of scripts) expect(attrs).toMatch(/\bsrc="\/console\/assets\/[^"]+\.js"/);
      expect(html).not.toMatch(/<style\b/i);
      expect(html).not.toMatch(/\sstyle=/i);
      expect(html).not.toMatch(/\son[a-z]+=/i);
      // every URL the page names is its own (or an empty data: icon, so the browser asks for no favicon)
      for (const m of html.matchAll(/\b(?:src|href)="([^"]*)"/g)) expect(m[1]).toMatch(/^(\/console\/|data:,$)/);
    }
  });

  it("keeps the first page's script within 150 KB gzip, cached for good under its hashed name", async () => {
    const html = await (await fetch(`${t.url}/console`)).text();
    let total = 0;
    for (const m of html.matchAll(/<script[^>]* src="([^"]+)"/g)) {
      const res = await fetch(`${t.url}${m[1]}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-security-policy')).toBe(CSP);
      const body = Buffer.from(await res.arrayBuffer());
      // no code fetched from elsewhere: no absolute URL in an import
      expect(body.toString()).not.toMatch(/\bimport\s*\(?\s*["']https?:/);
      total += gzipSync(body).length;
    }
    expect(total).toBeGreaterThan(0);
    // a size of built bytes, the same on any machine and under any load (a budget that must hold for
    // good); the first render's time, which load changes, is measured by bench/console.mjs instead
    expect(total).toBeLessThanOrEqual(150 * 1024);
  });

  it('serves nothing outside its assets folder', async () => {
    for (const p of [
      '/console/assets/..%2F..%2Fpackage.json',
      '/console/assets/%2e%2e%2findex.html',
      '/console/assets/.env',
      '/console/assets/nope.js',
      '/console/assets/app.exe',
    ]) {
      expect((await fetch(`${t.url}${p}`)).status, p).toBe(404);
    }
  });

  it('is off where TRAWL_CONSOLE says so, and on a non-loopback listener unless asked for', async () => {
    expect((await fetch(`${off.url}/console`)).status).toBe(404);
    expect((await fetch(`${off.url}/console/session`)).status).toBe(404);
    const config = (console: 'auto' | 'on' | 'off', host: string) => ({ console, host }) as never;
    expect(consoleEnabled(config('auto', '127.0.0.1'))).toBe(true);
    expect(consoleEnabled(config('auto', '::1'))).toBe(true);
    expect(consoleEnabled(config('auto', '0.0.0.0'))).toBe(false);
    expect(consoleEnabled(config('on', '0.0.0.0'))).toBe(true);
    expect(consoleEnabled(config('off', '127.0.0.1'))).toBe(false);
  });
});
