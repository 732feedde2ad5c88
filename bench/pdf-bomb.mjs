// PDF bombs (issue 32, row 4): what reading PDFs in worker threads, under an inflate cap, a deadline and a
// heap limit, buys and costs. For each build, a fresh `trawl serve` (warn logs, temp data dir) and a
// loopback site in this process serving PDFs built here:
//   - ordinary PDFs, read live: a one-page paper and a 200-page book; the first PDF of the process (cold:
//     pdf.js loads, and now a worker thread starts) and the median of REPS warm reads;
//   - the bomb: 1 MB whose one FlateDecode stream inflates to 1 GiB, in one `/contents` with the paper:
//     time to answer, each page's status, the server's RSS before / peak (VmRSS every 20 ms, and VmHWM) /
//     after (1 s and 5 s later), and `GET /health` every 20 ms meanwhile (its max latency);
//   - a slow PDF (10 million `q Q` operators: 40 MB inflated, seconds to read) and, 200 ms later, the paper
//     alone: does one PDF wait for another (3 times, medians).
//
//   npm run build && node bench/pdf-bomb.mjs [--baseline DIR] [--checkout DIR] [--reps 7] [--threads N]
//
// --baseline DIR measures another built checkout too (main before this work), side by side with ratios;
// --checkout DIR is the build to measure (default: this one); --threads sets TRAWL_DOCUMENT_PARSE_THREADS.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import zlib from 'node:zlib';
import { Agent, request } from 'undici';
import {
  HOST,
  benchOptions,
  childEnv,
  fmt,
  freePort,
  headlineOf,
  machineLine,
  makeTmpDir,
  mdTable,
  memoryMB,
  ratio,
  spawnTracked,
  stopChild,
  summarize,
  waitFor200,
} from './lib.mjs';

const { args, opt, checkout, baseline } = benchOptions();
const REPS = Number(opt('--reps', '7'));
const SLOW_REPS = 3;
const threads = opt('--threads', null);
const COMMAND = `npm run build && node bench/pdf-bomb.mjs${args.length ? ` ${args.join(' ')}` : ''}`;

// ---------------------------------------------------------------------------------------------------
// PDFs built in code (as test/helpers/pdf.ts builds them for the tests)

/** A zlib stream of `chunk` × `times` (deflated once, full flush, repeated) with its Adler-32 in closed form. */
function repeatedZlib(chunk, times) {
  const segment = zlib.deflateRawSync(chunk, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const [mod, n, k] = [65521n, BigInt(chunk.length), BigInt(times)];
  let [sum, weighted] = [0n, 0n];
  chunk.forEach((byte, i) => {
    sum += BigInt(byte);
    weighted += BigInt(chunk.length - i) * BigInt(byte);
  });
  const a = (1n + k * sum) % mod;
  const b = (k * n + n * sum * ((k * (k - 1n)) / 2n) + k * weighted) % mod;
  const check = Buffer.alloc(4);
  check.writeUInt32BE(Number((b << 16n) | a) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array(times).fill(segment), Buffer.from([0x03, 0x00]), check]);
}

/** A PDF 1.4 of pages, each a content stream (Flate), with Helvetica; exact xref offsets. */
function pdfOfPages(contents) {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', null, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const kids = [];
  for (const data of contents) {
    objects.push({ dict: '/Filter /FlateDecode', data });
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${objects.length} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`); // prettier-ignore
    kids.push(`${objects.length} 0 R`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`;
  const chunks = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = chunks[0].length;
  const offsets = objects.map((o, i) => {
    const body =
      typeof o === 'string'
        ? Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`, 'latin1')
        : Buffer.concat([Buffer.from(`${i + 1} 0 obj\n<< ${o.dict} /Length ${o.data.length} >>\nstream\n`, 'latin1'), o.data, Buffer.from('\nendstream\nendobj\n', 'latin1')]); // prettier-ignore
    chunks.push(body);
    length += body.length;
    return length - body.length;
  });
  const xref = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  const size = objects.length + 1;
  chunks.push(Buffer.from(`xref\n0 ${size}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`, 'latin1')); // prettier-ignore
  return Buffer.concat(chunks);
}

/** A page of `lines` lines of pseudo-random words (deterministic), as a Flate content stream. */
function textPage(seed, lines = 60) {
  const words = 'the quick brown fox jumps over lazy dogs while parsers read streams of text and numbers'.split(' '); // prettier-ignore
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  let ops = 'BT /F1 10 Tf 72 760 Td 12 TL\n';
  for (let l = 0; l < lines; l++) {
    let line = '';
    while (line.length < 90) line += `${words[Math.floor(next() * words.length)]} `;
    ops += `(${line.trim()}) '\n`;
  }
  return zlib.deflateSync(Buffer.from(`${ops}ET`, 'latin1'));
}

const PDFS = {
  paper: pdfOfPages([textPage(1, 40)]),
  book: pdfOfPages(Array.from({ length: 200 }, (_, i) => textPage(i + 2))),
  bomb: pdfOfPages([repeatedZlib(Buffer.alloc(1 << 20), 1024)]),
  slow: pdfOfPages([repeatedZlib(Buffer.from('q Q\n'.repeat(1000), 'latin1'), 10_000)]),
};

function startPdfSite() {
  const server = http.createServer((req, res) => {
    const name = /^\/(\w+)\.pdf/.exec(req.url ?? '')?.[1];
    const body = name && PDFS[name];
    if (body) res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length }).end(body);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, HOST, () => resolve({ server, base: `http://${HOST}:${server.address().port}` }))); // prettier-ignore
}

// ---------------------------------------------------------------------------------------------------
// Trawl

async function startTrawl(root) {
  const cli = path.join(root, 'dist', 'bin', 'cli.js');
  if (!fs.existsSync(cli)) throw new Error(`${cli} not found: run npm run build in ${root}`);
  const dataDir = makeTmpDir('trawl-bench-pdf-');
  const env = childEnv({ TRAWL_PRIVATE_ALLOWLIST: HOST, ...(threads ? { TRAWL_DOCUMENT_PARSE_THREADS: threads } : {}) }); // prettier-ignore
  const key = execFileSync(process.execPath, [cli, 'keys', 'create', '--name', 'bench', '--data-dir', dataDir], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 }).trim(); // prettier-ignore
  const port = await freePort();
  const logFile = path.join(dataDir, 'serve.log');
  const fd = fs.openSync(logFile, 'w');
  const child = spawnTracked(process.execPath, [cli, 'serve', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'], { stdio: ['ignore', 'ignore', fd], cwd: root, env }); // prettier-ignore
  fs.closeSync(fd);
  await waitFor200(port, '/health', { intervalMs: 10, timeoutMs: 30_000, child });
  return { child, port, key, logFile, agent: new Agent({ keepAliveTimeout: 60_000 }) };
}

/** POST /contents of `urls` (live); the time to answer and each URL's status. */
async function contents(trawl, urls) {
  const t0 = performance.now();
  const res = await request(`http://${HOST}:${trawl.port}/contents`, {
    dispatcher: trawl.agent,
    reset: true, // a connection per request: a server that held its event loop may close an idle one as it is reused
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': trawl.key },
    body: JSON.stringify({ urls, text: true, maxAgeHours: 0 }),
    headersTimeout: 300_000,
    bodyTimeout: 300_000,
  });
  const json = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`/contents: HTTP ${res.statusCode} ${JSON.stringify(json)}`);
  const status = (url) => json.statuses.find((s) => s.id === url);
  return { ms: performance.now() - t0, status, tag: (url) => status(url)?.error?.tag ?? status(url)?.status };
}

/**
 * GET /health every 20 ms, and the server's VmRSS every 20 ms, until `stop()`: max latency (Infinity when one
 * failed), answers, what failed (status or error code), peak RSS.
 */
function watch(trawl) {
  const agent = new Agent({ keepAliveTimeout: 60_000 });
  const latencies = [];
  const failures = new Set();
  let peak = 0;
  let running = true;
  const sampler = setInterval(() => (peak = Math.max(peak, memoryMB(trawl.child.pid).rss)), 20);
  const poll = (async () => {
    while (running) {
      const t0 = performance.now();
      const failure = await request(`http://${HOST}:${trawl.port}/health`, {
        dispatcher: agent,
        reset: true,
        headersTimeout: 300_000,
      })
        .then(async (r) => (await r.body.dump(), r.statusCode === 200 ? null : `HTTP ${r.statusCode}`))
        .catch((err) => err.code ?? err.message);
      if (failure) failures.add(failure);
      latencies.push(failure ? Infinity : performance.now() - t0);
      await sleep(20);
    }
  })();
  return async () => {
    running = false;
    await poll;
    clearInterval(sampler);
    await agent.close();
    const healthFailures = failures.size ? [...failures].join(', ') : 'none';
    return { healthMax: Math.max(...latencies), healthCount: latencies.length, healthFailures, peak };
  };
}

// ---------------------------------------------------------------------------------------------------
// One build

async function measure(label, root, site) {
  process.stderr.write(`pdf-bomb: ${label} (${root})…\n`);
  const trawl = await startTrawl(root);
  const url = (name, n = 0) => `${site.base}/${name}.pdf?n=${n}`;
  const out = { label, root, rssStart: memoryMB(trawl.child.pid).rss };
  out.cold = (await contents(trawl, [url('paper')])).ms;
  const warm = async (name) => {
    const times = [];
    for (let i = 0; i < REPS; i++) times.push((await contents(trawl, [url(name, i + 1)])).ms);
    return summarize(times).median;
  };
  out.paper = await warm('paper');
  out.book = await warm('book');
  out.rssBefore = memoryMB(trawl.child.pid).rss;
  process.stderr.write(`pdf-bomb: ${label}: the bomb…\n`);
  const stop = watch(trawl);
  const bomb = await contents(trawl, [url('bomb'), url('paper', 99)]);
  Object.assign(out, await stop(), { bombMs: bomb.ms, bombTag: bomb.tag(url('bomb')), paperTag: bomb.tag(url('paper', 99)) }); // prettier-ignore
  out.hwm = memoryMB(trawl.child.pid).hwm;
  await sleep(1000);
  out.rssAfter1 = memoryMB(trawl.child.pid).rss;
  await sleep(4000);
  out.rssAfter5 = memoryMB(trawl.child.pid).rss;
  process.stderr.write(`pdf-bomb: ${label}: a slow PDF, ${SLOW_REPS} times…\n`);
  const [beside, slowMs, slowTags] = [[], [], new Set()];
  for (let i = 0; i < SLOW_REPS; i++) {
    const slow = contents(trawl, [url('slow', i)]);
    await sleep(200);
    beside.push((await contents(trawl, [url('paper', 100 + i)])).ms);
    const done = await slow;
    slowMs.push(done.ms);
    slowTags.add(done.tag(url('slow', i)));
  }
  Object.assign(out, { besideMs: summarize(beside).median, slowMs: summarize(slowMs).median, slowTag: [...slowTags].join(', ') }); // prettier-ignore
  await trawl.agent.close();
  await stopChild(trawl.child, 5000);
  out.log = fs.readFileSync(trawl.logFile, 'utf8').trim();
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Report

const s = (ms) => fmt(ms / 1000, 1);
const mb = (v) => fmt(v, 0);

function report(sides, started) {
  const cols = sides.map((x) => x.label);
  const withRatio = sides.length === 2;
  const row = (name, key, show, note = true) => [
    name,
    ...sides.map((x) => show(x[key])),
    ...(withRatio ? [note ? ratio(sides[1][key], sides[0][key]) : ''] : []),
  ];
  const head = (first) => [first, ...cols, ...(withRatio ? ['now / before'] : [])];
  const sizes = Object.entries(PDFS)
    .map(([k, v]) => `${k} ${fmt(v.length / 1024, 0)} KiB`)
    .join(', ');
  const lines = [
    '## PDF bombs (bench/pdf-bomb.mjs)',
    '',
    `\`${COMMAND}\``,
    '',
    machineLine(),
    '',
    `Builds: ${sides.map((x) => `${x.label} = ${x.root}`).join('; ')}. PDFs: ${sizes}; the bomb's stream inflates to 1 GiB of zeros. Each build: a fresh \`trawl serve --log-level warn\`${threads ? ` with TRAWL_DOCUMENT_PARSE_THREADS=${threads}` : ''}.`, // prettier-ignore
    '',
    mdTable(head('ordinary PDFs, live `/contents` (ms)'), [
      row('first PDF of the process (paper, 1 page)', 'cold', (v) => fmt(v, 0)),
      row(`paper, 1 page (median of ${REPS})`, 'paper', (v) => fmt(v, 1)),
      row(`book, 200 pages (median of ${REPS})`, 'book', (v) => fmt(v, 0)),
    ]),
    '',
    mdTable(head('`/contents` of the bomb and the paper'), [
      row('answer (s)', 'bombMs', s),
      row("the bomb's status", 'bombTag', String, false),
      row("the paper's status", 'paperTag', String, false),
      row('`/health` max latency meanwhile (ms)', 'healthMax', (v) => fmt(v, 0)),
      row('`/health` answers meanwhile (every 20 ms)', 'healthCount', String, false),
      row('`/health` failures meanwhile', 'healthFailures', String, false),
      row('RSS at start (MB)', 'rssStart', mb),
      row('RSS before the bomb (MB)', 'rssBefore', mb),
      row('RSS peak, sampled every 20 ms (MB)', 'peak', mb),
      row('VmHWM, peak of the process (MB)', 'hwm', mb),
      row('RSS 1 s after the answer (MB)', 'rssAfter1', mb),
      row('RSS 5 s after the answer (MB)', 'rssAfter5', mb),
    ]),
    '',
    mdTable(head(`a slow PDF (10 M operators) and the paper 200 ms later (median of ${SLOW_REPS})`), [
      row('the slow PDF: answer (s)', 'slowMs', s),
      row('the slow PDF: status', 'slowTag', String, false),
      row('the paper, asked while the slow one is read: answer (ms)', 'besideMs', (v) => fmt(v, 0)),
    ]),
    '',
    ...sides.flatMap((x) => (x.log ? [`Server log of ${x.label} (warn and above):`, '', '```', x.log.slice(0, 1500), '```', ''] : [])), // prettier-ignore
    `(took ${fmt((performance.now() - started) / 1000, 0)} s)`,
    '',
    headlineOf(sides, (x) => ({
      bomb_answer_s: s(x.bombMs),
      bomb_rss_peak_mb: mb(x.peak),
      bomb_rss_after_mb: mb(x.rssAfter5),
      health_max_ms: fmt(x.healthMax, 0),
      pdf_warm_ms: fmt(x.paper, 1),
      book_warm_ms: fmt(x.book, 0),
      pdf_cold_ms: fmt(x.cold, 0),
      beside_slow_ms: fmt(x.besideMs, 0),
    })),
  ];
  console.log(lines.join('\n'));
}

const started = performance.now();
const site = await startPdfSite();
const sides = [];
if (baseline) sides.push(await measure('before', baseline, site));
sides.push(await measure(baseline ? 'now' : 'this build', checkout, site));
site.server.close();
report(sides, started);
process.exit(0);
