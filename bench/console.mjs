// The web console's first page (issue 36): the script and style it loads, raw and gzip, against the
// 150 KB gzip budget; and its first render in Debian's Chromium, cold (a fresh browser context per load),
// with the CPU throttled 1×, 2× and 4× through the DevTools protocol, from the start of navigation to
// (a) the first contentful paint and (b) the sign-in form in the document, the page the app draws first.
// Side by side, alternating: the same form as plain HTML with no script, served by a bare Node server
// (the floor any page pays here). Goal: the form drawn within 1 s at 2× throttle.
// Usage: npm run build && node bench/console.mjs [--runs 15]
import fs from 'node:fs';
import http from 'node:http';
import { clearTimeout, setTimeout } from 'node:timers';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import {
  CLI,
  benchOptions,
  childEnv,
  fmt,
  machineLine,
  makeTmpDir,
  mdTable,
  ratio,
  removeTmpDir,
  requireBuild,
  spawnTracked,
  stopChild,
  summarize,
} from './lib.mjs';

const { opt } = benchOptions();
const RUNS = Number(opt('--runs', 15));
const RATES = [1, 2, 4];
const GOAL_MS = 1000;
const BUDGET_BYTES = 150 * 1024;
const CHROMIUM = process.env.TRAWL_TEST_BROWSER ?? '/usr/bin/chromium';

requireBuild();
if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);

/** `trawl serve` on a fresh data directory; its URL once it listens. */
async function startServe(dataDir) {
  const child = spawnTracked(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--port', '0'], {
    env: childEnv(),
  });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${log}`)), 30_000);
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const found = /listening on (http:\/\/[\d.:]+)/.exec(log);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
  });
  return { url, child };
}

/** The sign-in form as plain HTML with no script: what a page costs here without the app. */
const BARE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trawl console</title></head>
<body><main data-page="signin"><h1>Sign in</h1><form data-testid="signin-form"><label for="k">API key</label>
<input id="k" type="password" data-testid="signin-key"><button>Sign in</button></form></main></body></html>`;

function startBare() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(BARE_PAGE);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, server })),
  );
}

/** The first page's script and style: each file's bytes raw and gzip. */
async function assetSizes(base) {
  const html = await (await fetch(`${base}/console`)).text();
  const files = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
  const sizes = [];
  for (const file of files) {
    const body = Buffer.from(await (await fetch(base + file)).arrayBuffer());
    sizes.push({
      file: path.basename(file),
      raw: body.length,
      gzip: gzipSync(body).length,
      script: file.endsWith('.js'),
    });
  }
  return sizes;
}

/** Records, from the start of navigation, when the sign-in form is first in the document. */
const WATCH = `(() => {
  const seen = () => document.querySelector('[data-testid="signin-key"]');
  const mark = () => { if (!window.__formAt && seen()) window.__formAt = performance.now(); };
  new MutationObserver(mark).observe(document, { childList: true, subtree: true });
  document.addEventListener('DOMContentLoaded', mark);
})();`;

/** One cold load of `url` at CPU throttle `rate`: first contentful paint and the form's time, in ms. */
async function load(browser, url, rate) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.addInitScript(WATCH);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate });
    await page.goto(url, { waitUntil: 'load' });
    await page.locator('[data-testid="signin-key"]').waitFor();
    return await page.evaluate(
      "({ fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN, form: window.__formAt ?? NaN })",
    );
  } finally {
    await context.close();
  }
}

const dataDir = makeTmpDir('trawl-bench-console-');
const trawl = await startServe(dataDir);
const bare = await startBare();
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
try {
  const sizes = await assetSizes(trawl.url);
  const scriptGzip = sizes.filter((s) => s.script).reduce((n, s) => n + s.gzip, 0);
  const results = {};
  for (const rate of RATES) {
    results[rate] = { console: { fcp: [], form: [] }, bare: { fcp: [], form: [] } };
    await load(browser, `${trawl.url}/console`, rate); // warm the server's file cache and the browser once
    for (let i = 0; i < RUNS; i++) {
      for (const [side, url] of [
        ['bare', bare.url],
        ['console', `${trawl.url}/console`],
      ]) {
        const t = await load(browser, url, rate);
        results[rate][side].fcp.push(t.fcp);
        results[rate][side].form.push(t.form);
      }
    }
  }

  console.log(`# The console's first page\n\n${machineLine()}\n`);
  console.log(
    mdTable(
      ['file', 'bytes', 'gzip bytes'],
      [
        ...sizes.map((s) => [s.file, String(s.raw), String(s.gzip)]),
        ['script, gzip, against the 150 KB budget', '', `${String(scriptGzip)} (${ratio(scriptGzip, BUDGET_BYTES)})`],
      ],
    ),
  );
  console.log(
    `\nFirst render, cold, medians of ${RUNS} alternating loads (ms from the start of navigation; p90 in brackets):\n`,
  );
  const rows = RATES.flatMap((rate) => {
    const c = results[rate].console;
    const b = results[rate].bare;
    const med = (xs) => summarize(xs).median;
    const cell = (xs) => `${fmt(med(xs))} (${fmt(summarize(xs).p90)})`;
    return [
      [
        `${rate}×`,
        cell(c.fcp),
        cell(b.fcp),
        ratio(med(c.fcp), med(b.fcp)),
        cell(c.form),
        cell(b.form),
        ratio(med(c.form), med(b.form)),
        ratio(med(c.form), GOAL_MS),
      ],
    ];
  });
  console.log(
    mdTable(
      [
        'CPU throttle',
        'console FCP',
        'plain HTML FCP',
        'ratio',
        'console form',
        'plain HTML form',
        'ratio',
        'form / 1 s goal',
      ],
      rows,
    ),
  );
  const at2 = summarize(results[2].console.form).median;
  console.log(
    `\nconsole_script_gzip_bytes=${scriptGzip} console_form_ms_2x=${fmt(at2)} goal_ms=${GOAL_MS} ${at2 <= GOAL_MS && scriptGzip <= BUDGET_BYTES ? 'ok' : 'OVER'}`,
  );
} finally {
  await browser.close();
  await stopChild(trawl.child);
  bare.server.close();
  removeTmpDir(dataDir);
}
