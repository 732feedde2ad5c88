/**
 * The web console in a real browser (docs/console.md): Debian's Chromium, driven by playwright-core,
 * against a real `trawl serve` (the built CLI) with a fixture site on loopback, a loopback model and a
 * webhook receiver. Each page is visited as a person would use it, checked with axe-core (no serious or
 * critical violation), and, with TRAWL_CONSOLE_SHOTS set (scripts/console-docs.mjs), photographed for
 * docs/console.md. Hostile pages and model output must render inert; a key of another team, or one
 * without `admin`, sees nothing it may not; a session begun on one PostgreSQL replica works on the other.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, postJson, tempDir } from '../helpers/app.js';
import { serve, type ServeProcess } from '../helpers/crash.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CHROMIUM = process.env.TRAWL_TEST_BROWSER ?? '/usr/bin/chromium';
const BUILT = path.join(path.dirname(CLI), '..', 'console', 'index.html');
const available = fs.existsSync(CHROMIUM) && fs.existsSync(CLI) && fs.existsSync(BUILT);
if (!available && process.env.CI)
  throw new Error(`CI must provide Chromium at ${CHROMIUM} and a build with the console`);
/** Where the screenshots of docs/console.md go (scripts/console-docs.mjs sets it); unset, none are kept. */
const SHOTS = process.env.TRAWL_CONSOLE_SHOTS;

const run = promisify(execFile);
const STEP = 60_000;

/** What a hostile page or model puts where the console shows text: each would set window.__pwned if it ran. */
const HOSTILE_TITLE =
  '<script>window.__pwned="title"</script><img src=x onerror="window.__pwned=\'img\'">Hostile title';
const HOSTILE_MODEL =
  'Pools keep sockets open [1]. <img src=x onerror="window.__pwned=\'model\'"> [click](javascript:window.__pwned=1)';

/** The fixture site: three linked articles about undici, and a hostile page. */
function fixtureSite(): http.Server {
  const article = (title: string, body: string, links: string[]) =>
    `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>` +
    `${Array.from({ length: 12 }, (_, i) => `<p>${body} Paragraph ${i} says more about connection pooling, keep-alive sockets and undici agents.</p>`).join('')}` + // prettier-ignore
    `<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></main></body></html>`;
  return http.createServer((req, res) => {
    const pages: Record<string, string> = {
      '/docs/pooling': article('Connection pooling in undici', 'An undici Pool keeps sockets open to one origin.', ['/docs/keepalive', '/docs/agents']), // prettier-ignore
      '/docs/keepalive': article('Keep-alive in undici', 'Keep-alive timeouts decide how long an idle socket stays.', ['/docs/pooling']), // prettier-ignore
      '/docs/agents': article('Agents in undici', 'An Agent holds one Pool per origin.', ['/docs/pooling', '/docs/missing']), // prettier-ignore
      '/hostile': `<!doctype html><html><head><title>${HOSTILE_TITLE}</title></head><body><main><h1>Hostile pooling page</h1>${Array.from({ length: 8 }, () => '<p>This hostile pooling page writes &lt;b&gt;forged markup&lt;/b&gt; and <a href="javascript:window.__pwned=3">a javascript: link</a> about connection pooling in undici.</p>').join('')}</main></body></html>`, // prettier-ignore
    };
    const page = pages[new URL(req.url ?? '/', 'http://x').pathname];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not found');
  });
}

const listen = (server: http.Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

/** The model: an agent run's plan (slowed, so the run is followed live), else an answer with hostile text. */
function modelReply(body: Json) {
  const text = JSON.stringify(body);
  if (/"queries"/.test(text)) return { json: { queries: ['undici pooling'] }, delayMs: 1500 };
  return { content: HOSTILE_MODEL, chunks: HOSTILE_MODEL.split(' ').map((w) => `${w} `), chunkDelayMs: 20 };
}

/** Serious or critical axe-core findings on the page as it is now. */
async function axe(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** Opens a page of the console by its hash and waits for its main region. */
async function open(page: Page, hash: string, dataPage: string): Promise<void> {
  // runs in the page (the suite's types have no DOM)
  await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
  await page.locator(`main[data-page="${dataPage}"]`).waitFor();
}

/** Checks the page with axe-core and, when asked, keeps a screenshot for docs/console.md. */
async function visited(page: Page, name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  expect(await axe(page), `axe-core on ${name}`).toEqual([]);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** Nothing hostile ran or became markup, and every link out is http(s) with noopener noreferrer. */
async function inert(page: Page): Promise<void> {
  const found = (await page.evaluate(`(() => ({
    pwned: window.__pwned ?? null,
    images: document.querySelectorAll('img[src="x"]').length,
    scripts: [...document.scripts].filter((s) => !s.src).length,
    links: [...document.querySelectorAll('a[href]')].map((a) => ({
      href: a.getAttribute('href') ?? '',
      rel: a.getAttribute('rel') ?? '',
    })),
  }))()`)) as { pwned: unknown; images: number; scripts: number; links: { href: string; rel: string }[] };
  expect(found.pwned).toBeNull();
  expect(found.images).toBe(0);
  expect(found.scripts).toBe(0);
  for (const link of found.links) {
    expect(link.href).not.toMatch(/^\s*javascript:/i);
    if (/^https?:/i.test(link.href)) expect(link.rel).toBe('noopener noreferrer');
    else expect(link.href, 'an internal link').toMatch(/^(#|\/console)/);
  }
}

/** Signs in on the sign-in page with `key`, landing on the overview. */
async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/console`);
  await page.locator('main[data-page="signin"]').waitFor();
  await page.getByTestId('signin-key').fill(key);
  await page.getByTestId('signin-submit').click();
  await page.locator('main[data-page="overview"]').waitFor();
}

describe.skipIf(!available)('the console in Chromium', () => {
  let site: http.Server;
  let siteUrl = '';
  let model: ModelServer;
  let receiver: Receiver;
  let dir: { dir: string; cleanup: () => void };
  let server: ServeProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];
  let monitorId = '';
  let runId = '';

  beforeAll(async () => {
    site = fixtureSite();
    siteUrl = await listen(site);
    model = await startModelServer({ reply: (body) => modelReply(body as Json) });
    receiver = await startReceiver();
    dir = tempDir('trawl-console-browser-');
    server = await serve(dir.dir, [
      '--oauth',
      'on',
      '--model-base-url',
      model.baseUrl,
      '--model',
      'm',
      '--allow-insecure-webhooks',
      'true',
    ]);
    // the index holds the fixture site's pages, the hostile one among them
    const filled = await postJson(
      server.url,
      '/contents',
      { urls: ['/docs/pooling', '/docs/keepalive', '/hostile'].map((p) => siteUrl + p), text: true },
      { 'x-api-key': server.key },
    );
    expect(filled.status, JSON.stringify(filled.body)).toBe(200);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('console', (m) => {
      // a 401 or 403 the page asked for on purpose is logged by Chromium as a failed resource
      if (m.type() === 'error' && !/status of 40[134]/.test(m.text())) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
  }, STEP);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await model?.close();
    await receiver?.close();
    await new Promise((r) => site?.close(r));
    dir?.cleanup();
  });

  it(
    'signs in with a key: a wrong one is told so, the right one becomes an HttpOnly cookie the page cannot read',
    async () => {
      await page.goto(`${server.url}/console`);
      await page.locator('main[data-page="signin"]').waitFor();
      expect(await page.getByTestId('signin-oauth').getAttribute('href')).toBe('/console/oauth/start');
      await visited(page, 'signin');
      await page.getByTestId('signin-key').fill('trawl_wrong');
      await page.getByTestId('signin-submit').click();
      await expect.poll(() => page.getByTestId('signin-error').textContent()).toMatch(/not accepted|unknown|revoked/i);
      await page.getByTestId('signin-key').fill(server.key);
      await page.getByTestId('signin-submit').click();
      await page.locator('main[data-page="overview"]').waitFor();
      const cookie = (await context.cookies()).find((c) => c.name === 'trawl_session')!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
      const readable = (await page.evaluate(
        '({ cookie: document.cookie, local: JSON.stringify({ ...localStorage }), session: JSON.stringify({ ...sessionStorage }) })',
      )) as { cookie: string; local: string; session: string };
      expect(readable.cookie).not.toContain('trawl_session');
      expect(`${readable.local}${readable.session}`).not.toContain(server.key);
      expect(`${readable.local}${readable.session}`).toBe('{}{}');
    },
    STEP,
  );

  it(
    'shows the overview: the index, the checks and the next steps',
    async () => {
      await open(page, '#/', 'overview');
      await page.getByTestId('index-documents').waitFor();
      expect(Number((await page.getByTestId('index-documents').textContent())!.replace(/\D/g, ''))).toBeGreaterThanOrEqual(3); // prettier-ignore
      await page.getByTestId('checks').waitFor();
      expect(await page.getByTestId('key-name').textContent()).toContain('operator');
      await visited(page, 'overview');
    },
    STEP,
  );

  it(
    'runs a search and an answer in the playground, with cost, latency, snippets and the stream as it arrives',
    async () => {
      await open(page, '#/playground', 'playground');
      await page.getByTestId('search-query').fill('connection pooling undici');
      await page.getByTestId('search-submit').click();
      await page.getByTestId('result').first().waitFor();
      expect(await page.getByTestId('result').count()).toBeGreaterThanOrEqual(2);
      expect(await page.getByTestId('result-latency').first().textContent()).toMatch(/\d+\s*ms/);
      expect(await page.getByTestId('result-cost').first().textContent()).toMatch(/\$\d/);
      const curl = (await page.getByTestId('copy-curl-text').textContent())!;
      expect(curl).toContain(`curl`);
      expect(curl).toContain('/search');
      expect(curl).toContain('connection pooling undici');
      expect(curl).not.toContain(server.key);
      expect(await page.getByTestId('copy-exa-text').textContent()).toContain('.search(');
      expect(await page.getByTestId('copy-mcp-text').textContent()).toContain('"tools/call"');
      // the hostile page's title is text, as written
      await expect.poll(async () => (await page.getByTestId('results').textContent()) ?? '').toContain('<script>');
      await inert(page);
      await visited(page, 'playground');

      await page.getByTestId('tab-answer').click();
      await page.getByTestId('answer-query').fill('how does undici pool connections?');
      await page.getByTestId('answer-submit').click();
      // frames show while the stream is still open, then the end
      await expect.poll(() => page.getByTestId('answer-frames').textContent()).toMatch(/[1-9]/);
      await page.getByTestId('answer-done').waitFor();
      const answer = (await page.getByTestId('answer-text').textContent())!;
      expect(answer).toContain('<img src=x onerror=');
      expect(answer).toContain('javascript:');
      await inert(page);
    },
    STEP,
  );

  it(
    'creates a key, shows it once, and revokes it: the key then fails',
    async () => {
      await open(page, '#/keys', 'keys');
      await page.getByTestId('new-key-name').fill('browser key');
      await page.getByTestId('create-key-submit').click();
      const key = (await page.getByTestId('created-key').textContent())!.trim();
      expect(key).toMatch(/^trawl_/);
      const works = await postJson(server.url, '/search', { query: 'pooling', numResults: 1 }, { 'x-api-key': key });
      expect(works.status).toBe(200);
      await visited(page, 'keys');
      const row = page.getByTestId('key-row').filter({ hasText: 'browser key' });
      await row.getByTestId('key-revoke').click();
      await row.getByTestId('key-revoke-confirm').click();
      // a revoked key leaves the list (unless revoked keys are asked for)
      await expect.poll(() => row.count()).toBe(0);
      const refused = await postJson(server.url, '/search', { query: 'pooling' }, { 'x-api-key': key });
      expect(refused.status).toBe(401);
      // reloading the page shows it once only: the key is nowhere on it
      await page.reload();
      await page.locator('main[data-page="keys"]').waitFor();
      expect(await page.content()).not.toContain(key);
    },
    STEP,
  );

  it(
    'creates a monitor whose run is delivered to the receiver, and shows the delivery',
    async () => {
      await open(page, '#/monitors', 'monitors');
      await page.getByTestId('monitor-name').fill('undici watch');
      await page.getByTestId('monitor-query').fill('undici pooling');
      await page.getByTestId('monitor-webhook').fill(`${receiver.url}/hook`);
      await page.getByTestId('monitor-save').click();
      const secret = (await page.getByTestId('monitor-secret').textContent())!.trim();
      receiver.secrets.push(secret);
      const row = page.getByTestId('monitor-row').filter({ hasText: 'undici watch' });
      monitorId = (await row.getAttribute('data-monitor-id'))!;
      await visited(page, 'monitors');
      await open(page, `#/monitors/${monitorId}`, 'monitors');
      await page.getByTestId('monitor-trigger').click();
      // the run's event, signed with the monitor's secret (the receiver checks the signature)
      await expect
        .poll(() => receiver.deliveries.filter((d) => d.verified && d.event.type !== 'monitor.created').length, {
          timeout: 30_000,
        })
        .toBeGreaterThan(0);
      await expect
        .poll(() => page.getByTestId('delivery-row').first().getAttribute('data-status'), { timeout: 30_000 })
        .toMatch(/delivered|succeeded|ok|200/i);
      // the receiver's answer, as the attempt recorded it
      await expect.poll(() => page.getByTestId('delivery-attempt').allTextContents()).toContainEqual(expect.stringContaining('HTTP 200')); // prettier-ignore
      await inert(page);
    },
    STEP,
  );

  it(
    'starts an agent run and follows its events live to its output',
    async () => {
      await open(page, '#/runs', 'runs');
      await page.getByTestId('run-query').fill('how does undici pool connections?');
      await page.getByTestId('start-run-submit').click();
      await page.getByTestId('run-event-list').waitFor();
      runId = page.url().split('/').pop()!;
      // the model's plan takes 1.5 s: events arrive on the open stream before the run ends
      await expect.poll(() => page.getByTestId('run-event-list').getAttribute('data-state')).toBe('open');
      await expect.poll(() => page.getByTestId('run-event').count()).toBeGreaterThan(0);
      await expect
        .poll(() => page.getByTestId('run-event-list').getAttribute('data-state'), { timeout: 30_000 })
        .toBe('ended');
      await page.getByTestId('run-output-text').waitFor();
      expect(await page.getByTestId('run-output-text').textContent()).toContain('<img src=x onerror=');
      await inert(page);
      await visited(page, 'runs');
    },
    STEP,
  );

  it(
    'starts a crawl of the fixture site and shows its progress, frontier and failures',
    async () => {
      await open(page, '#/index', 'index');
      await page.getByTestId('crawl-urls').fill(`${siteUrl}/docs/agents`);
      await page.getByTestId('crawl-max-pages').fill('10');
      await page.getByTestId('crawl-submit').click();
      const row = page.getByTestId('job-row').first();
      await expect.poll(() => row.getAttribute('data-state'), { timeout: 30_000 }).toBe('completed');
      await row.getByTestId('job-details').click();
      await page.getByTestId('crawl-counts').waitFor();
      expect(await page.getByTestId('crawl-counts').textContent()).toMatch(/\b[3-9] done\b/);
      // /docs/missing answered 404: a failure with its reason
      expect(await page.getByTestId('crawl-failures-by-tag').textContent()).toMatch(/CRAWL_NOT_FOUND|404/);
      await inert(page);
      await visited(page, 'index');
    },
    STEP,
  );

  it(
    'charts usage with the numbers `trawl usage` reports, in a table and as CSV',
    async () => {
      await open(page, '#/usage', 'usage');
      await page.getByTestId('usage-total-requests').waitFor();
      await page.getByTestId('chart-requests').waitFor();
      const { stdout } = await run(process.execPath, [CLI, 'usage', '--json', '--data-dir', dir.dir], {
        env: { ...process.env, TRAWL_DATA_DIR: '' },
      });
      const totals = (JSON.parse(stdout) as Json[]).filter((l) => l.keyId === null);
      const requests = totals.reduce((n, l) => n + Number(l.requests), 0);
      const spent = totals.reduce((n, l) => n + Number(l.spent), 0);
      expect(requests).toBeGreaterThan(0);
      const shown = (id: string) => page.getByTestId(id).textContent();
      expect(Number((await shown('usage-total-requests'))!.replace(/[^\d]/g, ''))).toBe(requests);
      expect(Number((await shown('usage-total-spent'))!.replace(/[^\d.]/g, ''))).toBeCloseTo(spent, 2);
      const download = page.waitForEvent('download');
      await page.getByTestId('usage-csv').click();
      const csv = fs.readFileSync((await (await download).path())!, 'utf8');
      const rows = csv.trim().split('\n');
      const header = rows[0]!.split(',');
      const at = header.indexOf('requests');
      expect(at).toBeGreaterThanOrEqual(0);
      expect(rows.slice(1).reduce((n, r) => n + Number(r.split(',')[at]), 0)).toBe(requests);
      await visited(page, 'usage');
    },
    STEP,
  );

  it('had no error in the page all along', () => {
    expect(errors).toEqual([]);
  });

  it(
    'draws its first page with the CPU throttled 2× (the time is reported; bench/console.mjs holds the goal)',
    async () => {
      const cold = await browser.newContext();
      try {
        const fresh = await cold.newPage();
        const cdp = await cold.newCDPSession(fresh);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: 2 });
        await fresh.goto(`${server.url}/console`);
        await fresh.getByTestId('signin-key').waitFor();
        const ms = (await fresh.evaluate('performance.now()')) as number;
        // a duration is no assertion here (load would break it): it is printed; the bench measures medians
        console.log(`console: sign-in form drawn ${Math.round(ms)} ms after navigation began, CPU throttled 2×`);
        expect(ms).toBeGreaterThan(0);
      } finally {
        await cold.close();
      }
    },
    STEP,
  );

  it(
    'keeps a key of another team, and one without admin, out of what is not theirs',
    async () => {
      const team = await postJson(server.url, '/admin/teams', { name: 'browser-b' }, { 'x-api-key': server.key });
      expect(team.status).toBe(201);
      const made = await postJson(server.url, '/admin/keys', { name: 'team b key', team: 'browser-b', scopes: ['search', 'monitors', 'agent'] }, { 'x-api-key': server.key }); // prettier-ignore
      const keyB = String(made.body.key);
      const other = await browser.newContext();
      try {
        const pageB = await other.newPage();
        await signIn(pageB, server.url, keyB);
        for (const admin of ['nav-keys', 'nav-usage', 'nav-index'])
          expect(await pageB.getByTestId(admin).count()).toBe(0);
        await open(pageB, '#/keys', 'forbidden');
        await open(pageB, '#/monitors', 'monitors');
        await pageB.waitForLoadState('networkidle');
        expect(await pageB.getByTestId('monitor-row').count()).toBe(0);
        await open(pageB, `#/monitors/${monitorId}`, 'monitors');
        await expect.poll(() => pageB.getByTestId('error').first().textContent()).toMatch(/not found|no monitor/i);
        await open(pageB, '#/runs', 'runs');
        await pageB.waitForLoadState('networkidle');
        expect(await pageB.getByTestId('run-row').count()).toBe(0);
        expect(await pageB.content()).not.toContain(runId);
        expect(await axe(pageB)).toEqual([]);
      } finally {
        await other.close();
      }
      // and what the pages call answers so too
      const headers = { 'x-api-key': keyB };
      expect((await fetch(`${server.url}/console/api/jobs`, { headers })).status).toBe(403);
      expect((await fetch(`${server.url}/admin/keys`, { headers })).status).toBe(403);
      expect((await fetch(`${server.url}/monitors/${monitorId}`, { headers })).status).toBe(404);
      expect((await fetch(`${server.url}/agent/runs/${runId}`, { headers })).status).toBe(404);
      expect((await fetch(`${server.url}/console/api/agent/runs/${runId}/events`, { headers })).status).toBe(404);
    },
    STEP,
  );

  it(
    "signs in through OAuth: Trawl's sign-in page, consent, and back to the console",
    async () => {
      const made = await postJson(server.url, '/admin/keys', { name: 'oauth person', scopes: ['search', 'monitors'] }, { 'x-api-key': server.key }); // prettier-ignore
      const other = await browser.newContext();
      try {
        const pageO = await other.newPage();
        await pageO.goto(`${server.url}/console`);
        await pageO.getByTestId('signin-oauth').click();
        await pageO.locator('input[name="key"]').fill(String(made.body.key));
        await pageO.locator('button[type="submit"]').first().click();
        await pageO.locator('button[value="allow"]').click();
        await pageO.locator('main[data-page="overview"]').waitFor();
        expect(await pageO.getByTestId('key-name').textContent()).toContain('oauth person');
        expect(await pageO.getByTestId('nav-keys').count()).toBe(0);
      } finally {
        await other.close();
      }
    },
    STEP,
  );

  it(
    'is usable by keyboard alone and at 200% zoom (a 640-pixel-wide viewport)',
    async () => {
      const zoomed = await browser.newContext({ viewport: { width: 640, height: 480 } });
      try {
        const pageZ = await zoomed.newPage();
        await pageZ.goto(`${server.url}/console`);
        await pageZ.locator('main[data-page="signin"]').waitFor();
        // Tab until the key field has the focus, type, Enter: signed in without the mouse
        for (let i = 0; i < 10; i++) {
          if ((await pageZ.evaluate('document.activeElement?.dataset?.testid')) === 'signin-key') break;
          await pageZ.keyboard.press('Tab');
        }
        expect(await pageZ.evaluate('document.activeElement?.dataset?.testid')).toBe('signin-key');
        await pageZ.keyboard.type(server.key);
        await pageZ.keyboard.press('Enter');
        await pageZ.locator('main[data-page="overview"]').waitFor();
        for (const [hash, name] of [
          ['#/', 'overview'],
          ['#/playground', 'playground'],
          ['#/usage', 'usage'],
          ['#/monitors', 'monitors'],
        ]) {
          // prettier-ignore
          await open(pageZ, hash!, name!);
          await pageZ.waitForLoadState('networkidle');
          const overflow = (await pageZ.evaluate(
            'document.documentElement.scrollWidth - document.documentElement.clientWidth',
          )) as number;
          expect(overflow, `${name} scrolls sideways at 200% zoom`).toBeLessThanOrEqual(0);
        }
      } finally {
        await zoomed.close();
      }
    },
    STEP,
  );

  it(
    'signs out: the session ends, and the cookie with it',
    async () => {
      await page.getByTestId('sign-out').click();
      await page.locator('main[data-page="signin"]').waitFor();
      expect((await context.cookies()).find((c) => c.name === 'trawl_session')).toBeUndefined();
    },
    STEP,
  );
});

describe.skipIf(!available || !pgReachable)('the console on two PostgreSQL replicas', () => {
  const schema = `console_replicas_${process.pid}_${Date.now().toString(36)}`;
  const store = ['--database-url', TEST_DATABASE_URL, '--database-schema', schema, '--secret-key', randomBytes(32).toString('base64')]; // prettier-ignore
  const dirs: { dir: string; cleanup: () => void }[] = [];
  const replicas: ServeProcess[] = [];
  let browser: Browser;

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const d = tempDir('trawl-console-replica-');
      dirs.push(d);
      replicas.push(await serve(d.dir, store));
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, STEP);
  afterAll(async () => {
    await browser?.close();
    for (const r of replicas) await r.stop();
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
    for (const d of dirs) d.cleanup();
  });

  it(
    'honours on one replica a session begun on the other',
    async () => {
      const [a, b] = replicas as [ServeProcess, ServeProcess];
      const key = a.key || b.key;
      expect(key).toMatch(/^trawl_/);
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await signIn(page, a.url, key);
        // cookies are per host, not per port: the same browser carries the session to the other replica
        await page.goto(`${b.url}/console#/keys`);
        await page.locator('main[data-page="keys"]').waitFor();
        await page.getByTestId('key-row').first().waitFor();
        await page.getByTestId('sign-out').click();
        await page.locator('main[data-page="signin"]').waitFor();
        // signed out on b: a's page finds the session gone too
        await page.goto(`${a.url}/console#/keys`);
        await page.locator('main[data-page="signin"]').waitFor();
      } finally {
        await context.close();
      }
    },
    STEP,
  );
});
