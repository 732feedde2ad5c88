// A smoke check of the built console (not a test of the suite): serves dist/console/ from a tiny static
// server with the console's CSP, answers the API with canned data through Playwright's page.route (the
// real server's tests are the lead's, against `trawl serve`), opens every page in Debian's Chromium,
// and fails on a console error, a CSP violation, a hostile string that became markup, or a serious or
// critical axe-core finding. Screenshots of each page go to the folder given (default: a temp folder).
//
//   npm run build (or node scripts/build-console.mjs) && node console/check.mjs [screenshot-dir]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { fakeApi } from './check-fixtures.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist', 'console');
const SHOTS = process.argv[2] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-console-'));
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css' };

/** GET /console (index.html) and /console/assets/<file>, as the lead's route serves them. */
function staticServer() {
  return http.createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    const file =
      pathname === '/console' || pathname === '/console/'
        ? 'index.html'
        : pathname.startsWith('/console/assets/') && !pathname.includes('..')
          ? path.join('assets', path.basename(pathname))
          : null;
    const full = file && path.join(DIST, file);
    if (!full || !fs.existsSync(full)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(full)], 'content-security-policy': CSP });
    res.end(fs.readFileSync(full));
  });
}

const problems = [];
const note = (page, what) => problems.push(`${page}: ${what}`);

/** Waits for a page's main region, then screenshots it and runs axe on it. */
async function visit(page, name, hash, ready, shot = `${name}${hash.split('/')[2] ? '-detail' : ''}`) {
  await page.evaluate((h) => (location.hash = h), hash);
  await page.locator(`main[data-page="${name}"]`).waitFor();
  if (ready) await page.locator(ready).first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true });
  await audit(page, name);
}

async function audit(page, name) {
  const result = await new AxeBuilder({ page }).analyze();
  for (const v of result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')) {
    note(
      name,
      `axe ${v.impact} ${v.id}: ${v.help} (${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join('; ')})`,
    );
  }
}

/** Hostile strings of the fake data must show as text and never as markup or a javascript: link. */
async function checkInert(page, name) {
  if (await page.locator('a[href^="javascript:" i]').count()) note(name, 'a javascript: URL became a link');
  if (await page.locator('main script, main img[src^="x"], main iframe').count())
    note(name, 'page content became markup');
  for (const a of await page.locator('a[target="_blank"]').all()) {
    if ((await a.getAttribute('rel')) !== 'noopener noreferrer')
      note(name, 'an external link lacks rel="noopener noreferrer"');
  }
}

const server = staticServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('console', (m) => {
    // the wrong key tried on purpose below answers 401, which Chromium logs as a failed resource
    const expected = m.location().url.endsWith('/console/session') && m.text().includes('401');
    if (m.type() === 'error' && !expected) note('console', m.text());
  });
  page.on('pageerror', (e) => note('page', e.message));
  page.on('dialog', (d) => {
    note('page', `a dialog opened: ${d.message()}`);
    void d.dismiss();
  });
  const api = fakeApi();
  await page.route(/^http:\/\/127\.0\.0\.1:\d+\/(?!console(\/assets\/.*)?$)/, (route) => api.handle(route));

  await page.goto(`${origin}/console`);
  await page.locator('main[data-page="signin"]').waitFor();
  await page.screenshot({ path: path.join(SHOTS, 'signin.png'), fullPage: true });
  await audit(page, 'signin');
  await page.getByTestId('signin-key').fill('trawl_wrong');
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('signin-error').waitFor();
  await page.getByTestId('signin-key').fill('trawl_admin_key');
  await page.getByTestId('signin-submit').click();

  await visit(page, 'overview', '#/', '[data-testid="checks"]');
  await visit(page, 'playground', '#/playground/search');
  await page.getByTestId('search-query').fill('hostile pages');
  await page.getByTestId('search-submit').click();
  await page.getByTestId('search-results').waitFor();
  await page.screenshot({ path: path.join(SHOTS, 'playground-search.png'), fullPage: true });
  await audit(page, 'playground-search');
  await checkInert(page, 'playground-search');
  await visit(page, 'playground', '#/playground/answer');
  await page.getByTestId('answer-query').fill('What is Trawl?');
  await page.getByTestId('answer-submit').click();
  await page.getByTestId('answer-done').waitFor();
  await page.screenshot({ path: path.join(SHOTS, 'playground-answer.png'), fullPage: true });
  await checkInert(page, 'playground-answer');
  await visit(page, 'index', '#/index', '[data-testid="job-row"]');
  await page.getByTestId('job-details').first().click();
  await page.getByTestId('crawl-frontier').waitFor();
  await page.screenshot({ path: path.join(SHOTS, 'index.png'), fullPage: true });
  await checkInert(page, 'index');
  await visit(page, 'keys', '#/keys', '[data-testid="key-row"]');
  await page.getByTestId('new-key-name').fill('ci');
  await page.getByTestId('create-key-submit').click();
  await page.getByTestId('created-key').waitFor();
  await page.screenshot({ path: path.join(SHOTS, 'keys.png'), fullPage: true });
  const member = page.locator('[data-testid="key-row"][data-key-id="key_member"]');
  await member.getByTestId('key-revoke').click();
  await member.getByTestId('key-revoke-confirm').click();
  await member.waitFor({ state: 'detached' });
  await visit(page, 'usage', '#/usage', '[data-testid="usage-table"]');
  const total = await page.getByTestId('usage-total-requests').textContent();
  if (total !== api.usageTotal) note('usage', `total requests ${total}, expected ${api.usageTotal}`);
  await visit(page, 'monitors', '#/monitors', '[data-testid="monitor-row"]');
  await visit(page, 'monitors', '#/monitors/mon_1', '[data-testid="delivery-row"]');
  await page.getByTestId('monitor-run').first().locator('summary').click();
  await page.getByTestId('delivery-retry').click();
  await page.locator('[data-testid="delivery-row"][data-status="pending"]').waitFor();
  await checkInert(page, 'monitor');
  await visit(page, 'runs', '#/runs', '[data-testid="run-row"]');
  await visit(page, 'runs', '#/runs/run_1', '[data-testid="run-output"]');
  await checkInert(page, 'run');

  // at 200% zoom (half the CSS width) the layout reflows: nothing wider than the viewport
  await page.setViewportSize({ width: 640, height: 900 });
  await visit(page, 'usage', '#/usage', '[data-testid="usage-table"]', 'usage-zoom-200');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 0) note('usage-zoom-200', `the page is ${overflow}px wider than the viewport`);

  // a key without admin: no admin page in the nav, and an admin route says so
  await page.getByTestId('sign-out').click();
  await page.locator('main[data-page="signin"]').waitFor();
  await page.getByTestId('signin-key').fill('trawl_member_key');
  await page.getByTestId('signin-submit').click();
  await page.locator('main[data-page="overview"]').waitFor();
  for (const admin of ['index', 'keys', 'usage']) {
    if (await page.getByTestId(`nav-${admin}`).count()) note('member', `nav shows ${admin}`);
  }
  await page.evaluate(() => (location.hash = '#/keys'));
  await page.locator('main[data-page="forbidden"]').waitFor();
  await page.screenshot({ path: path.join(SHOTS, 'member-forbidden.png'), fullPage: true });
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie); // prettier-ignore
  if (/trawl_|csrf/.test(stored)) note('session', 'the key or the CSRF token is in storage or a readable cookie');
} catch (error) {
  note('check', error instanceof Error ? error.message.split('\n')[0] : String(error));
} finally {
  await browser.close();
  server.close();
}

console.log(`screenshots: ${SHOTS}`);
if (problems.length) {
  console.error(problems.map((p) => `✗ ${p}`).join('\n'));
  process.exit(1);
}
console.log('console check: every page rendered, no console error, no serious or critical axe finding');
