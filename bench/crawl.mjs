// Crawl throughput: `trawl crawl` (the built CLI) against a generated 2,000-page loopback site
// (article-sized HTML pages linked in a tree, plus robots.txt and a sitemap listing every page). Measures
// wall time → pages/s and the CLI process's peak RSS, each run on a fresh data directory.
// Usage: npm run build && node bench/crawl.mjs   (BENCH_CRAWL_RUNS=N for more runs, default 2)
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import Database from 'better-sqlite3';
import {
  CLI,
  HOST,
  childEnv,
  fmt,
  machineLine,
  makeTmpDir,
  mdTable,
  memoryMB,
  removeTmpDir,
  requireBuild,
  spawnTracked,
  summarize,
  ROOT,
} from './lib.mjs';

requireBuild();
// deterministic pseudo-random pages: the project's seeded generator (src/lib/seeded-random.ts)
const { seededRandom: prng } = await import(path.join(ROOT, 'dist', 'lib', 'seeded-random.js'));

const PAGES = 2000;
const FANOUT = 8;
const RUNS = Number(process.env.BENCH_CRAWL_RUNS ?? 2);
const FLAGS = ['--concurrency', '16', '--per-host', '16', '--delay', '0', '--limit', String(PAGES), '--depth', '20'];

// ---------------------------------------------------------------------------------------------------
// The site: deterministic pseudo-random article pages, generated once and served from memory.

const WORDS = (
  'the a of to and in is that for it as with was on be by this are from or an at which have not but they ' +
  'crawler server request response page index cache module function value config option default error build ' +
  'release version client network timeout retry header body content document search query result token ' +
  'install package library runtime process thread memory storage database table column schema migration ' +
  'deploy cluster node container image volume secret policy access user account session permission role ' +
  'performance latency throughput benchmark profile metric trace log event queue worker job schedule'
).split(' ');

function sentence(rand) {
  const n = 8 + Math.floor(rand() * 14);
  const words = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]);
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return `${words.join(' ')}.`;
}

const pathOf = (i) => (i === 0 ? '/' : `/articles/${i}`);

/** Page i: a nav bar, an article of 6-10 paragraphs with a code block, links to its children and parent. */
function pageHtml(i) {
  const rand = prng(i + 1);
  const title = `Article ${i}: ${sentence(rand).slice(0, 48)}`;
  const nav = Array.from({ length: 12 }, (_, k) => `<li><a href="${pathOf(k)}">Section ${k}</a></li>`).join('');
  const paragraphs = Array.from({ length: 6 + Math.floor(rand() * 5) }, () => {
    const body = Array.from({ length: 4 + Math.floor(rand() * 4) }, () => sentence(rand)).join(' ');
    return `<p>${body}</p>`;
  });
  paragraphs.splice(3, 0, `<pre><code class="language-js">const page = ${i};\nconsole.log(page);</code></pre>`);
  const children = Array.from({ length: FANOUT }, (_, k) => FANOUT * i + k + 1).filter((c) => c < PAGES);
  const links = [...children, i > 0 ? Math.floor((i - 1) / FANOUT) : 0]
    .map((c) => `<li><a href="${pathOf(c)}">Read article ${c}</a></li>`)
    .join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
    `<meta name="author" content="Bench Writer"></head><body><header><nav><ul>${nav}</ul></nav></header>` +
    `<main><article><h1>${title}</h1><p><time datetime="2024-01-${String((i % 28) + 1).padStart(2, '0')}">` +
    `January ${(i % 28) + 1}, 2024</time></p>${paragraphs.join('')}<h2>Related</h2><ul>${links}</ul></article></main>` +
    `<footer><p>Copyright Bench Site. All rights reserved.</p></footer></body></html>`
  );
}

function startSite() {
  const pages = new Map(Array.from({ length: PAGES }, (_, i) => [pathOf(i), Buffer.from(pageHtml(i))]));
  const hits = new Map();
  let base = '';
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    if (p === '/robots.txt') {
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`User-agent: *\nAllow: /\nSitemap: ${base}/sitemap.xml\n`);
    } else if (p === '/sitemap.xml') {
      const urls = [...pages.keys()].map((u) => `<url><loc>${base}${u}</loc></url>`).join('');
      res.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0"?><urlset>${urls}</urlset>`);
    } else if (pages.has(p)) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages.get(p));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  const bytes = [...pages.values()].reduce((n, b) => n + b.length, 0);
  return new Promise((resolve) =>
    server.listen(0, HOST, () => {
      base = `http://${HOST}:${server.address().port}`;
      resolve({ server, base, hits, avgKB: bytes / PAGES / 1024 });
    }),
  );
}

// ---------------------------------------------------------------------------------------------------
// One run: spawn the CLI (under /usr/bin/time -v when present, for the exact peak RSS), wait for it.

const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

async function crawlOnce(base) {
  const dataDir = makeTmpDir('trawl-bench-crawl-');
  const args = [CLI, 'crawl', `${base}/`, ...FLAGS, '--data-dir', dataDir, '--json', '--progress', 'off'];
  const env = childEnv({ TRAWL_PRIVATE_ALLOWLIST: HOST, TRAWL_LOG_LEVEL: 'warn' });
  const t0 = performance.now();
  const child = TIME
    ? spawnTracked(TIME, ['-v', process.execPath, ...args], { env })
    : spawnTracked(process.execPath, args, { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  // Without /usr/bin/time: poll the peak (VmHWM) while the process lives.
  let polledMB = 0;
  const poll = setInterval(() => {
    const { hwm } = memoryMB(child.pid);
    if (Number.isFinite(hwm)) polledMB = Math.max(polledMB, hwm);
  }, 50);
  const { code } = await child.exited;
  clearInterval(poll);
  const wallMs = performance.now() - t0;
  if (code !== 0) throw new Error(`trawl crawl exited with ${code}: ${stderr.slice(-2000)}`);
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? NaN);
  const summary = JSON.parse(stdout.trim().split('\n').at(-1));
  const db = new Database(path.join(dataDir, 'trawl.sqlite'), { readonly: true });
  const docs = db.prepare('SELECT COUNT(*) AS n FROM documents').get().n;
  db.close();
  removeTmpDir(dataDir);
  return { summary, wallMs, peakMB: TIME ? kb / 1024 : polledMB, docs };
}

// ---------------------------------------------------------------------------------------------------

const site = await startSite();
console.error(`bench: site of ${PAGES} pages (${fmt(site.avgKB)} KB average) at ${site.base}`);
const rows = [];
const rates = [];
const peaks = [];
for (let run = 1; run <= RUNS; run++) {
  site.hits.clear();
  const r = await crawlOnce(site.base);
  const pageHits = [...site.hits].filter(([p]) => p !== '/robots.txt' && p !== '/sitemap.xml');
  const refetched = pageHits.filter(([, n]) => n > 1).length;
  const rate = (r.summary.done / r.wallMs) * 1000;
  rates.push(rate);
  peaks.push(r.peakMB);
  rows.push([
    run,
    r.summary.done,
    r.summary.failed,
    r.docs,
    refetched,
    fmt(r.wallMs / 1000, 2),
    fmt(r.summary.elapsedMs / 1000, 2),
    fmt(rate),
    fmt(r.peakMB),
  ]);
  console.error(`bench: run ${run}: ${r.summary.done} pages in ${fmt(r.wallMs / 1000, 2)} s, peak ${fmt(r.peakMB)} MB`);
}
site.server.close();

console.log(`# trawl crawl: ${PAGES}-page loopback site\n`);
console.log(machineLine());
console.log(
  `\n\`trawl crawl ${FLAGS.join(' ')}\` on a fresh data dir per run; pages ≈ ${fmt(site.avgKB)} KB of HTML ` +
    `(nav, article of 6-10 paragraphs with a code block, links to 8 children and the parent); a sitemap ` +
    `lists every page. Wall = spawn to exit (start-up, migration and close included); pages/s = stored ` +
    `pages / wall. Peak RSS from ${TIME ? '`/usr/bin/time -v` (maximum resident set size)' : '/proc VmHWM polled every 50 ms'}.\n`,
);
console.log(
  mdTable(['run', 'stored', 'failed', 'documents', 'refetched', 'wall s', 'crawl s', 'pages/s', 'peak RSS MB'], rows),
);
const rate = summarize(rates);
const peak = Math.max(...peaks);
console.log(`\ncrawl_pages_per_s=${fmt(rate.median)} crawl_peak_rss_mb=${fmt(peak)}`);
