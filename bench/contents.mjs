// `POST /contents`: cached-page throughput and latency (autocannon against `trawl serve`, GET /health of
// the same server as the floor), and a live fetch's overhead over a raw fetch of the same page, on 50 real
// article pages (scrapinghub benchmark HTML, read in place) served by a loopback site in this process.
// Usage: npm run build && node bench/contents.mjs
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import {
  startSite,
  CLI,
  HOST,
  ROOT,
  childEnv,
  fmt,
  freePort,
  machineLine,
  makeTmpDir,
  mdTable,
  memoryMB,
  percentile,
  requireBuild,
  spawnTracked,
  stopChild,
  summarize,
  waitFor200,
} from './lib.mjs';

const N_PAGES = 50;
const CONNECTIONS = 10;
const DURATION_S = 10;
const WARMUP_S = 2;
const LIVE_REPS = 3;
const HIGHLIGHT_QUERY = 'what happened, who is involved and what comes next';
const HTML_DIR = path.join(ROOT, '..', 'shared', 'data', 'extraction', 'scrapinghub', 'html');
const COMMAND = 'npm run build && node bench/contents.mjs';
const median = (values) => summarize(values).median;

// ---------------------------------------------------------------------------------------------------
// The page site: the first N benchmark pages (sorted by id), gunzipped into memory, at /p/<id>.

function loadPages() {
  const files = fs
    .readdirSync(HTML_DIR)
    .filter((f) => f.endsWith('.html.gz'))
    .sort()
    .slice(0, N_PAGES);
  if (files.length < N_PAGES) throw new Error(`${HTML_DIR}: ${files.length} pages, need ${N_PAGES}`);
  return new Map(
    files.map((f) => [f.slice(0, -'.html.gz'.length), gunzipSync(fs.readFileSync(path.join(HTML_DIR, f)))]),
  );
}

// ---------------------------------------------------------------------------------------------------
// Trawl and small HTTP helpers

async function startTrawl(dataDir, logFile) {
  const port = await freePort();
  const args = [CLI, 'serve', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'];
  const fd = fs.openSync(logFile, 'w');
  const child = spawnTracked(process.execPath, args, {
    stdio: ['ignore', 'ignore', fd],
    cwd: ROOT,
    env: childEnv({ TRAWL_PRIVATE_ALLOWLIST: HOST }),
  });
  fs.closeSync(fd);
  try {
    await waitFor200(port, '/health', { intervalMs: 10, timeoutMs: 15000, child });
  } catch (err) {
    await stopChild(child);
    throw new Error(`trawl serve: ${err.message}\n${fs.readFileSync(logFile, 'utf8').slice(0, 4000)}`);
  }
  return { child, port, logFile };
}

/** One request over a keep-alive agent; the time covers the whole body. Resolves {status, headers, text, ms}. */
async function timed(dispatcher, url, { method = 'GET', headers, body } = {}) {
  const t0 = performance.now();
  const res = await request(url, { dispatcher, method, headers, body, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, ms: performance.now() - t0 };
}

/** POST /contents; throws with what the server said when the request or any URL's status is not a success. */
async function contents(ctx, body, label) {
  const r = await timed(ctx.agent, `http://${HOST}:${ctx.port}/contents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': ctx.key },
    body: JSON.stringify(body),
  });
  const json = r.status === 200 ? JSON.parse(r.text) : null;
  const bad = json?.statuses?.find((s) => s.status !== 'success');
  if (r.status !== 200 || !json.statuses || bad) {
    throw new Error(`${label}: HTTP ${r.status}, ${bad ? JSON.stringify(bad) : r.text.slice(0, 500)}`);
  }
  return { ...r, json };
}

// ---------------------------------------------------------------------------------------------------
// Load runs: autocannon in this process, every response's time kept as a float (its histogram has 1 ms
// resolution, which rounds sub-millisecond figures away).

function cannon(port, { urlPath, ...req }, durationS, samples) {
  const opts = { url: `http://${HOST}:${port}${urlPath}`, ...req, connections: CONNECTIONS, duration: durationS };
  return new Promise((resolve, reject) => {
    const instance = autocannon({ ...opts, timeout: 10 }, (err, result) => (err ? reject(err) : resolve(result)));
    if (samples) instance.on('response', (_client, _status, _bytes, ms) => samples.push(ms));
  });
}

/** Warm-up (discarded), then the measured run; returns a table row. */
async function loadRow(label, server, req) {
  process.stderr.write(`contents: ${label}…\n`);
  await cannon(server.port, req, WARMUP_S);
  const samples = [];
  const r = await cannon(server.port, req, DURATION_S, samples);
  const sorted = Float64Array.from(samples).sort();
  const statuses = Object.entries(r.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code}:${count}`)
    .join(' ');
  const [rps, p50, p99] = [r.requests.average, percentile(sorted, 50), percentile(sorted, 99)];
  const rss = memoryMB(server.child.pid).rss;
  const cells = [label, fmt(rps, 0), fmt(p50, 2), fmt(p99, 2), r.requests.total, statuses, r.errors, r.timeouts];
  return { rps, p50, p99, cells: [...cells, fmt(rss, 1)] };
}

// ---------------------------------------------------------------------------------------------------
// Sections

/** Fills the cache with one live fetch per page; returns the cached-probe facts (source, x-svc-queued). */
async function warmCache(ctx, urls) {
  for (const url of urls) await contents(ctx, { urls: [url], text: true }, `warm ${url}`);
  const probe = await contents(ctx, { urls: [urls[0]], text: true }, 'cached probe');
  if (probe.json.statuses[0].source !== 'cached')
    throw new Error(`cached probe: ${JSON.stringify(probe.json.statuses)}`);
  return {
    source: probe.json.statuses[0].source,
    queued: probe.headers['x-svc-queued'] ?? '(absent)',
    queueMs: probe.headers['x-svc-queue-ms'] ?? '(absent)',
    textChars: probe.json.results[0]?.text?.length ?? 0,
  };
}

async function cachedSection(ctx, server, urls) {
  const post = (body) => ({
    method: 'POST',
    urlPath: '/contents',
    headers: { 'content-type': 'application/json', 'x-api-key': ctx.key },
    body: JSON.stringify(body),
  });
  const five = { urls: urls.slice(0, 5), text: { maxCharacters: 2000 }, highlights: { query: HIGHLIGHT_QUERY } };
  // The load runs cannot see per-URL statuses: check once that both bodies are answered from the cache.
  const fiveProbe = await contents(ctx, five, 'cached probe (5 pages)');
  const notCached = fiveProbe.json.statuses.filter((st) => st.source !== 'cached');
  if (notCached.length > 0) throw new Error(`cached probe (5 pages): not cached: ${JSON.stringify(notCached)}`);
  const health = await loadRow('GET /health (floor)', server, { method: 'GET', urlPath: '/health' });
  const one = await loadRow('POST /contents, 1 cached page, text:true', server, post({ urls: [urls[0]], text: true }));
  const many = await loadRow('POST /contents, 5 cached pages, text ≤2000 + highlights', server, post(five));
  return { health, one, many };
}

/** Per page, LIVE_REPS interleaved rounds of (a) raw fetch and (b) a live /contents; medians per page. */
async function liveSection(ctx, urls) {
  const raw = new Agent({ keepAliveTimeout: 60_000 });
  const perPage = urls.map((url) => ({ url, raw: [], live: [], server: [] }));
  for (let rep = 0; rep < LIVE_REPS; rep++) {
    process.stderr.write(`contents: live round ${rep + 1}/${LIVE_REPS}…\n`);
    for (const p of perPage) {
      const a = await timed(raw, p.url);
      if (a.status !== 200) throw new Error(`raw fetch ${p.url}: HTTP ${a.status}`);
      const b = await contents(ctx, { urls: [p.url], text: true, maxAgeHours: 0 }, `live ${p.url}`);
      if (b.json.statuses[0].source !== 'crawled')
        throw new Error(`live ${p.url}: source ${b.json.statuses[0].source}`);
      p.raw.push(a.ms);
      p.live.push(b.ms);
      p.server.push(b.json.searchTime);
    }
  }
  await raw.close();
  return perPage.map((p) => ({ url: p.url, raw: median(p.raw), live: median(p.live), server: median(p.server) }));
}

/** Trawl's own extractor (from dist) on each page in this process: median of 3 after one warm-up run. */
async function extractionTimes(pages, base) {
  const { extractHtml } = await import(path.join(ROOT, 'dist', 'core', 'contents', 'html', 'extract.js'));
  const out = new Map();
  for (const [id, buf] of pages) {
    const html = buf.toString('utf8');
    const url = `${base}/p/${id}`;
    extractHtml(html, url);
    const times = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      extractHtml(html, url);
      times.push(performance.now() - t0);
    }
    out.set(url, median(times));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Report

function liveTable(live, extract) {
  const rows = live.map((p) => ({
    raw: p.raw,
    live: p.live,
    overhead: p.live - p.raw,
    serverExcess: p.server - p.raw,
    door: p.live - p.server,
    extract: extract.get(p.url),
  }));
  const stat = (label, key) => {
    const s = summarize(rows.map((r) => r[key]));
    return { key, s, cells: [label, fmt(s.median, 2), fmt(s.p90, 2), fmt(s.min, 2), fmt(s.max, 2)] };
  };
  const stats = [
    stat('(a) raw fetch, undici keep-alive, whole body', 'raw'),
    stat('(b) POST /contents maxAgeHours:0, end to end', 'live'),
    stat('**overhead (b − a)**', 'overhead'),
    stat('server-side beyond the raw fetch (searchTime − a)', 'serverExcess'),
    stat('HTTP door + JSON transport (b − searchTime)', 'door'),
    stat('extraction alone (extractHtml from dist, in this process)', 'extract'),
  ];
  return { rows, stats };
}

async function main() {
  requireBuild();
  const started = performance.now();
  const pages = loadPages();
  const site = await startSite((p) => (p.startsWith('/p/') ? pages.get(p.slice(3)) : undefined));
  const urls = [...pages.keys()].map((id) => `${site.base}/p/${id}`);
  const dataDir = makeTmpDir('trawl-bench-contents-');
  const logDir = makeTmpDir('trawl-bench-logs-');
  const key = execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'bench', '--data-dir', dataDir], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
    encoding: 'utf8',
    timeout: 15000,
  }).trim();
  if (!key) throw new Error('keys create printed no key');
  const server = await startTrawl(dataDir, path.join(logDir, 'trawl.log'));
  const ctx = { port: server.port, key, agent: new Agent({ keepAliveTimeout: 60_000 }) };

  process.stderr.write(`contents: warming the cache with ${urls.length} pages…\n`);
  const probe = await warmCache(ctx, urls);
  const cached = await cachedSection(ctx, server, urls);
  const live = await liveSection(ctx, urls);
  const extract = await extractionTimes(pages, site.base);
  await ctx.agent.close();
  await stopChild(server.child, 5000);
  site.server.close();
  const log = fs.readFileSync(server.logFile, 'utf8').trim();
  printReport({ pages, site, probe, cached, live: liveTable(live, extract), log, started });
}

function printReport({ pages, site, probe, cached, live, log, started }) {
  const kb = summarize([...pages.values()].map((b) => b.length / 1024));
  const overhead = live.stats.find((st) => st.key === 'overhead').s;
  const lines = [
    '## /contents (bench/contents.mjs)',
    '',
    `\`${COMMAND}\``,
    '',
    machineLine(),
    '',
    `Pages: the first ${pages.size} scrapinghub benchmark pages (by file name), ${fmt(kb.median, 1)} KB median ` +
      `HTML (${fmt(kb.min, 1)}–${fmt(kb.max, 1)}), served at ${site.base}/p/<id> by a keep-alive node:http site ` +
      `in the benchmark process (robots.txt → 404). \`trawl serve --log-level warn\` with ` +
      `TRAWL_PRIVATE_ALLOWLIST=${HOST}; site hits: ${site.hits.pages} page, ${site.hits.robots} robots.txt, ` +
      `${site.hits.other} other.`,
    '',
    ...cachedLines(probe, cached),
    ...liveLines(live, overhead),
    `Server log (warn and above): ${log ? `\n\n\`\`\`\n${log.slice(0, 2000)}\n\`\`\`` : 'empty.'}`,
    '',
    `(took ${fmt((performance.now() - started) / 1000, 0)} s)`,
    '',
    `contents_cached_rps=${fmt(cached.one.rps, 0)} cached_p50_ms=${fmt(cached.one.p50, 2)} ` +
      `cached_p99_ms=${fmt(cached.one.p99, 2)} live_overhead_ms=${fmt(overhead.median, 2)}`,
  ];
  console.log(lines.join('\n'));
}

function cachedLines(probe, cached) {
  return [
    '### Cached pages',
    '',
    `autocannon in the benchmark process: ${CONNECTIONS} connections, ${DURATION_S} s measured after a ${WARMUP_S} s ` +
      'warm-up; p50/p99 in ms over every response of the measured run (float, per response). The cache was ' +
      'filled by one `{urls:[page], text:true}` per page (all 200 / success). Probe of a cached request: ' +
      `source \`${probe.source}\`, \`x-svc-queued: ${probe.queued}\`, \`x-svc-queue-ms: ${probe.queueMs}\`, ` +
      `${probe.textChars} text chars. 5-page body: \`text:{maxCharacters:2000}, highlights:{query:'${HIGHLIGHT_QUERY}'}\`.`,
    '',
    mdTable(
      ['request', 'req/s', 'p50', 'p99', 'requests', 'status codes', 'errors', 'timeouts', 'RSS after (MB)'],
      [cached.health.cells, cached.one.cells, cached.many.cells],
    ),
    '',
  ];
}

function liveLines(live, overhead) {
  const extractMed = live.stats.find((st) => st.key === 'extract').s.median;
  const shares = summarize(live.rows.map((r) => r.extract / r.overhead));
  return [
    '### Live fetch overhead',
    '',
    `Per page, ${LIVE_REPS} interleaved rounds of (a) a raw GET of the page and (b) \`POST /contents ` +
      '{urls:[page], text:true, maxAgeHours:0}` (robots cached, SSRF guard, fetch, extract, cache write, ' +
      'document upsert), one at a time; the per-page median of each, then the spread over the ' +
      `${live.rows.length} pages (ms). searchTime is the response's server-side ms.`,
    '',
    mdTable(
      ['ms per page', 'median', 'p90', 'min', 'max'],
      live.stats.map((st) => st.cells),
    ),
    '',
    `Extraction's share of the overhead: ${fmt((100 * extractMed) / overhead.median, 0)}% (median extraction / ` +
      `median overhead); per page, median ${fmt(100 * shares.median, 0)}%, p90 ${fmt(100 * shares.p90, 0)}%.`,
    '',
  ];
}

await main();
process.exit(0);
