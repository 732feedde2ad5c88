/**
 * JavaScript-only pages through the real browser: with TRAWL_BROWSER set, /contents renders a page
 * whose static HTML is an empty shell and extracts what the script built. Runs wherever Chromium is
 * installed; CI installs Debian's chromium, so there the test must run (a missing browser fails it).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { APP_SENTENCE } from '../fixtures/site/articles.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';

const CHROMIUM = process.env.TRAWL_TEST_BROWSER ?? '/usr/bin/chromium';
const available = fs.existsSync(CHROMIUM);
if (!available && process.env.CI) {
  throw new Error(`CI must provide Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium)`);
}

describe.skipIf(!available)('JavaScript-only pages with a browser', () => {
  let t: TestServer;
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite();
    t = await startTestServer({ privateAllowlist: ['127.0.0.1'], browser: CHROMIUM });
  }, 30_000);
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('renders the page and extracts the content its script built', async () => {
    const res = await postJson(
      t.url,
      '/contents',
      { urls: [`${site.url}/app`], text: true, livecrawlTimeout: 20000 },
      {
        'x-api-key': t.key,
      },
    );
    expect(res.status).toBe(200);
    const statuses = res.body.statuses as { status: string; source?: string }[];
    expect(statuses[0]).toMatchObject({ status: 'success', source: 'crawled' });
    const [result] = res.body.results as { title: string; text: string }[];
    expect(result?.text).toContain(APP_SENTENCE);
    expect(result?.text).toContain('Client-side rendering explained');
    const doc = await t.app.services.documents.get(`${site.url}/app`);
    expect(doc?.metadata.rendered).toBe(true);
  }, 30_000);

  it('serves the rendered page from the cache afterwards', async () => {
    const before = site.hits('/app');
    const res = await postJson(
      t.url,
      '/contents',
      { urls: [`${site.url}/app`], text: true, maxAgeHours: -1 },
      {
        'x-api-key': t.key,
      },
    );
    expect((res.body.statuses as { source: string }[])[0]?.source).toBe('cached');
    expect((res.body.results as { text: string }[])[0]?.text).toContain(APP_SENTENCE);
    expect(site.hits('/app')).toBe(before);
  });
});
