// Replicas: the same load on (a) one `trawl serve` on SQLite, (b) one replica on PostgreSQL and (c) two
// replicas on PostgreSQL with the load spread round-robin across them, as a load balancer would. Per setup:
// SciFact documents imported through `trawl import` and the time until every replica finds them, then
// `POST /search` (instant, SciFact queries) and `POST /contents` cache hits (50 loopback pages, warmed once),
// each at several concurrencies over keep-alive undici pools in this process.
// Usage: npm run build && node bench/replicas.mjs [--docs 3000] [--seconds 10] [--warmup 2]
//        [--connections 1,8,32] [--database-url postgres://…] [--setups sqlite,pg1,pg2] [--json]
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { Pool, request } from 'undici';
import {
  CLI,
  HOST,
  ROOT,
  childEnv,
  fmt,
  machineLine,
  makeTmpDir,
  mdTable,
  memoryMB,
  percentile,
  readJsonlGz,
  readTsv,
  requireBuild,
  spawnTracked,
  startSite,
  stopChild,
  summarize,
} from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const DOCS = Number(opt('--docs', '3000'));
const SECONDS = Number(opt('--seconds', '10'));
const WARMUP_S = Number(opt('--warmup', '2'));
const CONNECTIONS = opt('--connections', '1,8,32').split(',').map(Number);
const DATABASE_URL = opt('--database-url', 'postgres://postgres@127.0.0.1:5432/test');
const SETUP_NAMES = opt('--setups', 'sqlite,pg1,pg2').split(',');
const JSON_OUT = args.includes('--json');
const N_PAGES = 50;
const POLL_MS = 50; // time-to-searchable resolution
const SCIFACT = path.join(ROOT, '..', 'shared', 'data', 'scifact');
const HTML_DIR = path.join(ROOT, '..', 'shared', 'data', 'extraction', 'scrapinghub', 'html');
const COMMAND = 'npm run build && node bench/replicas.mjs';
const SETUPS = {
  sqlite: { name: 'SQLite, 1 process', replicas: 1, postgres: false },
  pg1: { name: 'PostgreSQL, 1 replica', replicas: 1, postgres: true },
  pg2: { name: 'PostgreSQL, 2 replicas', replicas: 2, postgres: true },
};
const progress = (msg) => process.stderr.write(`replicas: ${msg}\n`);

requireBuild();
if (!(DOCS > 0) || !(SECONDS > 0) || !(WARMUP_S >= 0) || CONNECTIONS.some((c) => !(c > 0))) {
  console.error('replicas: --docs, --seconds and --connections take positive numbers');
  process.exit(2);
}
for (const s of SETUP_NAMES) {
  if (!SETUPS[s]) {
    console.error(`replicas: unknown setup ${s} (sqlite, pg1, pg2)`);
    process.exit(2);
  }
}

// ---------------------------------------------------------------------------------------------------
// PostgreSQL schemas: one fresh schema per PostgreSQL setup, dropped when the setup ends, and on any exit
// (error, Ctrl-C) by a synchronous child, since 'exit' handlers cannot wait for a promise. lib.mjs's own
// 'exit' handler is registered first, so the replicas are already killed when the drop runs.

const RUN_ID = `${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
const liveSchemas = new Set();

const PG_SCRIPT = `
const pg = require('pg');
const [url, sql, schema] = process.argv.slice(1);
const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
c.connect()
  .then(() => c.query("SET lock_timeout = '10s'"))
  .then(() => c.query(sql.replace('$S', schema ? c.escapeIdentifier(schema) : '')))
  .then((r) => { process.stdout.write(JSON.stringify(r.rows ?? [])); return c.end(); })
  .catch((e) => { console.error(e.message); process.exit(1); });
`;

/** One SQL statement in a child process (synchronous); `$S` stands for the quoted schema name. */
function pgSync(sql, schema = '') {
  const out = execFileSync(process.execPath, ['-e', PG_SCRIPT, DATABASE_URL, sql, schema], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  return JSON.parse(out || '[]');
}

function dropSchema(schema) {
  try {
    pgSync('DROP SCHEMA IF EXISTS $S CASCADE', schema);
    liveSchemas.delete(schema);
  } catch (err) {
    console.error(`replicas: could not drop schema ${schema} (drop it by hand): ${err.stderr || err.message}`);
  }
}

process.on('exit', () => {
  for (const schema of liveSchemas) dropSchema(schema);
});

// ---------------------------------------------------------------------------------------------------
// Inputs: the first DOCS SciFact abstracts as an import file, the queries, and the page site.

function writeCorpus(dir) {
  const corpus = readJsonlGz(path.join(SCIFACT, 'corpus.jsonl.gz')).slice(0, DOCS);
  if (corpus.length < DOCS) throw new Error(`SciFact has ${corpus.length} documents, --docs asks for ${DOCS}`);
  const file = path.join(dir, 'scifact.jsonl'); // collection "scifact": URLs import://scifact/<_id>
  fs.writeFileSync(file, corpus.map((d) => JSON.stringify({ _id: d._id, title: d.title, text: d.text })).join('\n') + '\n'); // prettier-ignore
  const last = corpus[corpus.length - 1];
  return { file, count: corpus.length, probe: { title: last.title, url: `import://scifact/${last._id}` } };
}

function loadPages() {
  const files = fs
    .readdirSync(HTML_DIR)
    .filter((f) => f.endsWith('.html.gz'))
    .sort()
    .slice(0, N_PAGES);
  if (files.length < N_PAGES) throw new Error(`${HTML_DIR}: ${files.length} pages, need ${N_PAGES}`);
  return new Map(files.map((f, i) => [String(i), gunzipSync(fs.readFileSync(path.join(HTML_DIR, f)))]));
}

/** A page no setup has seen, with a word of its own (`zqx<n>probe`) that only it holds. */
const freshPage = (n) =>
  Buffer.from(
    `<!doctype html><html><head><title>Probe page ${n}</title></head><body><article><h1>Probe page ${n}</h1>` +
      `<p>This page carries the word zqx${n}probe, written once through one replica and searched for on another.</p>` +
      '<p>It has a second paragraph so that the extractor keeps it as the main content of the page.</p></article></body></html>',
  );

const hitsNow = (site) => ({ ...site.hits });
const hitsSince = (site, before, after = site.hits) => ({
  pages: after.pages - before.pages,
  robots: after.robots - before.robots,
  other: after.other - before.other,
});
const hitsTotal = (h) => h.pages + h.robots + h.other;

// ---------------------------------------------------------------------------------------------------
// Trawl processes

/** Environment of every trawl child of a setup: its store, no rate limits, loopback fetches allowed. */
function setupEnv(setup) {
  const env = { TRAWL_PRIVATE_ALLOWLIST: HOST, TRAWL_RATE_LIMIT_QPS: '0', TRAWL_RATE_LIMIT_CONCURRENCY: '0' };
  if (!setup.postgres) return childEnv(env);
  return childEnv({ ...env, TRAWL_DATABASE_URL: DATABASE_URL, TRAWL_DATABASE_SCHEMA: setup.schema, TRAWL_SECRET_KEY: setup.secretKey }); // prettier-ignore
}

/** A key for the bench's calls: searches, and GET /status (the `admin` scope) to see each replica's index. */
function createKey(setup, dataDir) {
  const argv = [CLI, 'keys', 'create', '--name', 'bench', '--scopes', 'search,contents,admin', '--data-dir', dataDir];
  const key = execFileSync(process.execPath, argv, {
    cwd: ROOT,
    env: setupEnv(setup),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  }).trim();
  if (!key) throw new Error('trawl keys create printed no key');
  return key;
}

/** `trawl serve` on port 0, stderr to a file; resolves once the file shows its "listening on" line. */
async function startServer(setup, dataDir, logFile) {
  const flags = ['--host', HOST, '--port', '0', '--log-level', 'info', '--data-dir', dataDir];
  const limits = ['--rate-limit-qps', '0', '--rate-limit-concurrency', '0', '--create-first-key', 'false'];
  const fd = fs.openSync(logFile, 'w');
  const child = spawnTracked(process.execPath, [CLI, 'serve', ...flags, ...limits], {
    cwd: ROOT,
    env: setupEnv(setup),
    stdio: ['ignore', 'ignore', fd],
  });
  fs.closeSync(fd);
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(fs.readFileSync(logFile, 'utf8'));
    if (m) return { child, origin: m[1], logFile };
    if (child.exitCode !== null || child.signalCode !== null) break;
    await sleep(20);
  }
  await stopChild(child);
  throw new Error(`trawl serve did not start:\n${fs.readFileSync(logFile, 'utf8').slice(0, 4000)}`);
}

/** One request with its own connection; resolves {status, json}. */
async function call(origin, key, method, urlPath, body) {
  const res = await request(`${origin}${urlPath}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await res.body.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON: reported through the status */
  }
  return { status: res.statusCode, json, text };
}

// ---------------------------------------------------------------------------------------------------
// Import, and the time until every replica finds the documents

/**
 * Whether a replica has the whole import: its own index holds `count` documents (GET /status) and an
 * instant search for the last document's title finds it.
 */
async function replicaHasAll(server, key, corpus) {
  const status = await call(server.origin, key, 'GET', '/status');
  if ((status.json?.index?.searchable ?? 0) < corpus.count) return false;
  const found = await call(server.origin, key, 'POST', '/search', { type: 'instant', query: corpus.probe.title });
  return (found.json?.results ?? []).some((r) => r.url === corpus.probe.url);
}

async function importAndWait(setup, servers, key, corpus, logFile) {
  const adminDir = setup.postgres ? makeTmpDir('trawl-bench-replicas-import-') : servers.dataDirs[0];
  const argv = [CLI, 'import', corpus.file, '--data-dir', adminDir, '--json', '--progress', 'off', '--log-level', 'warn']; // prettier-ignore
  const fd = fs.openSync(logFile, 'a');
  const t0 = performance.now();
  const child = spawnTracked(process.execPath, argv, { cwd: ROOT, env: setupEnv(setup), stdio: ['ignore', 'pipe', fd] }); // prettier-ignore
  fs.closeSync(fd);
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  let importMs = NaN;
  const done = child.exited.then(({ code }) => {
    importMs = performance.now() - t0;
    if (code !== 0) throw new Error(`trawl import exited ${code}:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
  });
  const deadline = t0 + 180_000;
  const waits = servers.list.map(async (server) => {
    await sleep(POLL_MS);
    while (performance.now() < deadline) {
      if (await replicaHasAll(server, key, corpus).catch(() => false)) return performance.now() - t0;
      await sleep(POLL_MS);
    }
    throw new Error(`${server.origin} did not find the ${corpus.count} documents within 180 s`);
  });
  const [, ...searchableMs] = await Promise.all([done, ...waits]);
  const summary = JSON.parse(out);
  const imported = summary.inputs.reduce((sum, i) => sum + i.imported, 0);
  if (imported !== corpus.count) throw new Error(`trawl import: ${imported} of ${corpus.count} imported: ${out}`);
  return { importMs, ownMs: summary.elapsedMs, searchableMs };
}

// ---------------------------------------------------------------------------------------------------
// Load: `connections` loops, each sending its next request to the next replica in turn (round-robin over
// the whole run) over keep-alive undici pools of `connections` sockets per replica.

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system) a process has used so far, in ms (Linux /proc). */
function cpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/** Busy and total jiffies of the whole machine (first line of /proc/stat). */
function machineTicks() {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3] - (f[4] ?? 0), total };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

async function drive({ pools, urlPath, bodies, key, connections, seconds, samples }) {
  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  const tally = { requests: 0, non2xx: 0, errors: 0, statuses: {} };
  let turn = 0;
  const until = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < until) {
      const i = turn++;
      const t0 = performance.now();
      try {
        const res = await pools[i % pools.length].request({ path: urlPath, method: 'POST', headers, body: bodies[i % bodies.length] }); // prettier-ignore
        await res.body.arrayBuffer();
        samples?.push(performance.now() - t0);
        tally.requests++;
        tally.statuses[res.statusCode] = (tally.statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode < 200 || res.statusCode > 299) tally.non2xx++;
      } catch {
        tally.errors++;
        await sleep(1); // a dead replica must not spin the loop
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  return { ...tally, seconds: (performance.now() - started) / 1000 };
}

/** Warm-up (discarded), then the measured run: latency, req/s, and the CPU the replicas and the machine used. */
async function loadRow(servers, key, workload, connections, site) {
  const pools = servers.list.map((s) => new Pool(s.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 }));
  const base = { pools, urlPath: workload.urlPath, bodies: workload.bodies, key, connections };
  try {
    const h0 = hitsNow(site);
    if (WARMUP_S > 0) await drive({ ...base, seconds: WARMUP_S });
    const h1 = hitsNow(site);
    const cpu0 = servers.list.map((s) => cpuMs(s.child.pid));
    const [m0, client0] = [machineTicks(), process.cpuUsage()];
    const samples = [];
    const r = await drive({ ...base, seconds: SECONDS, samples });
    const serverCpu = servers.list.reduce((sum, s, i) => sum + cpuMs(s.child.pid) - cpu0[i], 0);
    const [m1, client1] = [machineTicks(), process.cpuUsage(client0)];
    const sorted = Float64Array.from(samples).sort();
    return {
      connections,
      siteHits: { warmup: hitsSince(site, h0, h1), measured: hitsSince(site, h1) },
      rps: r.requests / r.seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      requests: r.requests,
      non2xx: r.non2xx,
      errors: r.errors,
      statuses: r.statuses,
      serverCpuMsPerReq: r.requests ? serverCpu / r.requests : NaN,
      clientCpuPct: (100 * (client1.user + client1.system)) / 1000 / (r.seconds * 1000),
      machineBusyPct: (100 * (m1.busy - m0.busy)) / (m1.total - m0.total),
      rssMB: servers.list.reduce((sum, s) => sum + memoryMB(s.child.pid).rss, 0),
    };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}

// ---------------------------------------------------------------------------------------------------
// /contents: the cache filled through the first replica, then checked from every replica

async function warmContents(servers, key, urls) {
  for (const url of urls) {
    const r = await call(servers.list[0].origin, key, 'POST', '/contents', { urls: [url], text: true });
    const st = r.json?.statuses?.[0];
    if (r.status !== 200 || st?.status !== 'success') throw new Error(`warm ${url}: HTTP ${r.status} ${r.text.slice(0, 400)}`); // prettier-ignore
  }
  for (const server of servers.list) {
    for (const url of urls) {
      const r = await call(server.origin, key, 'POST', '/contents', { urls: [url], text: true });
      const st = r.json?.statuses?.[0];
      if (r.status !== 200 || st?.source !== 'cached') {
        throw new Error(`${server.origin}: ${url} is not a cache hit: HTTP ${r.status} ${r.text.slice(0, 400)}`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// One page written through the first replica, searched for on the last

const PROBES = 20;

/**
 * A fresh page stored through the first replica's /contents (which returns once that replica's own
 * index has it), then an instant search for its own word on the last replica every 5 ms until found:
 * how long a write takes to be searchable everywhere.
 */
async function propagation(servers, key, site, setupId) {
  const writer = servers.list[0];
  const reader = servers.list.at(-1);
  const write = [];
  const visible = [];
  for (let i = 0; i < PROBES; i++) {
    const n = `${setupId}${i}`;
    const t0 = performance.now();
    const r = await call(writer.origin, key, 'POST', '/contents', { urls: [`${site.base}/fresh/${n}`], text: true });
    if (r.status !== 200 || r.json?.statuses?.[0]?.status !== 'success') throw new Error(`probe ${n}: HTTP ${r.status} ${r.text.slice(0, 300)}`); // prettier-ignore
    const t1 = performance.now();
    for (;;) {
      const found = await call(reader.origin, key, 'POST', '/search', { query: `zqx${n}probe`, type: 'instant', numResults: 1 }); // prettier-ignore
      if (found.json?.results?.length) break;
      if (performance.now() - t1 > 10_000) throw new Error(`probe ${n}: not searchable on ${reader.origin} after 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    write.push(t1 - t0);
    visible.push(performance.now() - t1);
  }
  return { write: summarize(write), visible: summarize(visible) };
}

function propagationTable(results) {
  const rows = results.map((r) => [
    r.name,
    String(PROBES),
    fmt(r.propagation.write.median, 1),
    fmt(r.propagation.write.max, 1),
    fmt(r.propagation.visible.median, 1),
    fmt(r.propagation.visible.max, 1),
  ]);
  return mdTable(['setup', 'pages', 'write p50 ms', 'write max ms', 'then searchable elsewhere p50 ms', 'max ms'], rows); // prettier-ignore
}

// ---------------------------------------------------------------------------------------------------
// One setup, start to finish

async function runSetup(id, inputs) {
  const setup = { id, ...SETUPS[id] };
  const loadavg = os.loadavg();
  const logDir = makeTmpDir(`trawl-bench-replicas-${id}-logs-`);
  if (setup.postgres) {
    setup.schema = `trawl_bench_${RUN_ID}_${id}`;
    setup.secretKey = crypto.randomBytes(32).toString('base64');
    liveSchemas.add(setup.schema);
  }
  const dataDirs = Array.from({ length: setup.replicas }, (_, i) => makeTmpDir(`trawl-bench-replicas-${id}-${i}-`));
  const key = createKey(setup, setup.postgres ? makeTmpDir('trawl-bench-replicas-keys-') : dataDirs[0]);
  const list = [];
  const servers = { list, dataDirs };
  try {
    for (const [i, dir] of dataDirs.entries()) {
      list.push(await startServer(setup, dir, path.join(logDir, `serve-${i}.log`)));
    }
    progress(`${setup.name}: ${list.map((s) => s.origin).join(', ')}; importing ${inputs.corpus.count} documents…`);
    const imported = await importAndWait(setup, servers, key, inputs.corpus, path.join(logDir, 'import.log'));
    progress(`${setup.name}: searchable on every replica after ${fmt(Math.max(...imported.searchableMs) / 1000, 2)} s`); // prettier-ignore
    const search = [];
    for (const c of CONNECTIONS) {
      progress(`${setup.name}: /search, ${c} connection(s)…`);
      search.push(await loadRow(servers, key, inputs.search, c, inputs.site));
    }
    const before = hitsNow(inputs.site);
    await warmContents(servers, key, inputs.urls);
    const warmHits = hitsSince(inputs.site, before);
    const contents = [];
    for (const c of CONNECTIONS) {
      progress(`${setup.name}: /contents cache hits, ${c} connection(s)…`);
      contents.push(await loadRow(servers, key, inputs.contents, c, inputs.site));
    }
    progress(`${setup.name}: ${PROBES} pages written through one replica, searched for on ${setup.replicas > 1 ? 'another' : 'it'}…`); // prettier-ignore
    const spread = await propagation(servers, key, inputs.site, id);
    const problems = serverProblems(list);
    return { id, name: setup.name, replicas: setup.replicas, schema: setup.schema, loadavg, imported, search, contents, warmHits, propagation: spread, problems }; // prettier-ignore
  } finally {
    await Promise.all(list.map((s) => stopChild(s.child, 5000)));
    if (setup.postgres) dropSchema(setup.schema);
  }
}

/** Log lines at warn level or above from every replica (the JSON logs' level ≥ 40), first few. */
function serverProblems(list) {
  const lines = [];
  for (const s of list) {
    for (const line of fs.readFileSync(s.logFile, 'utf8').split('\n')) {
      if (/"level":(4|5|6)\d/.test(line)) lines.push(line.slice(0, 400));
    }
  }
  return lines.slice(0, 10);
}

// ---------------------------------------------------------------------------------------------------
// Report

const seconds = (ms) => fmt(ms / 1000, 2);
const ratioOf = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);
const times = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');

function withRatios(results, key) {
  const base = results.find((r) => r.id === 'sqlite');
  for (const r of results) {
    for (const row of r[key]) {
      const b = base?.[key].find((x) => x.connections === row.connections);
      row.rpsVsSqlite = ratioOf(row.rps, b?.rps);
      row.p50VsSqlite = ratioOf(row.p50, b?.p50);
    }
  }
}

function loadTable(results, key, withHits) {
  const rows = [];
  for (const c of CONNECTIONS) {
    for (const r of results) {
      const x = r[key].find((row) => row.connections === c);
      const cells = [
        c,
        r.name,
        fmt(x.rps, 0),
        fmt(x.p50, 2),
        fmt(x.p99, 2),
        times(x.rpsVsSqlite),
        times(x.p50VsSqlite),
      ];
      cells.push(x.requests, x.non2xx, x.errors, fmt(x.serverCpuMsPerReq, 2), fmt(x.clientCpuPct, 0), fmt(x.machineBusyPct, 0)); // prettier-ignore
      if (withHits) cells.push(hitsTotal(x.siteHits.measured));
      rows.push(cells);
    }
  }
  const headers = ['conns', 'setup', 'req/s', 'p50 ms', 'p99 ms', 'req/s vs SQLite', 'p50 vs SQLite', 'requests', 'non-2xx', 'errors', 'Trawl CPU ms/req', 'bench CPU %', 'machine busy %']; // prettier-ignore
  return mdTable(withHits ? [...headers, 'site hits (measured)'] : headers, rows);
}

function importTable(results) {
  const most = Math.max(...results.map((r) => r.replicas));
  const rows = results.map((r) => {
    const per = Array.from({ length: most }, (_, i) => (i < r.replicas ? seconds(r.imported.searchableMs[i]) : ''));
    const all = Math.max(...r.imported.searchableMs);
    return [r.name, DOCS, seconds(r.imported.importMs), seconds(r.imported.ownMs), ...per, seconds(all), seconds(all - r.imported.importMs)]; // prettier-ignore
  });
  const perHeaders = Array.from({ length: most }, (_, i) => `replica ${i + 1} searchable (s)`);
  return mdTable(['setup', 'docs', 'import wall (s)', "import's own (s)", ...perHeaders, 'all searchable (s)', 'after import exit (s)'], rows); // prettier-ignore
}

function hitsLine(results) {
  return results
    .map((r) => {
      const during = r.contents.map((x) => `${hitsTotal(x.siteHits.warmup)}/${hitsTotal(x.siteHits.measured)}`);
      const w = r.warmHits;
      return `${r.name}: ${w.pages} pages + ${w.robots} robots.txt + ${w.other} other while filling the cache; warm-up/measured at ${CONNECTIONS.join(', ')} connections: ${during.join(', ')}`; // prettier-ignore
    })
    .join('; ');
}

function headline(results) {
  const c = Math.max(...CONNECTIONS);
  const pick = (key) => results.map((r) => `${r.id}=${fmt(r[key].find((x) => x.connections === c).rps, 0)}`).join(',');
  const ready = results.map((r) => `${r.id}=${seconds(Math.max(...r.imported.searchableMs))}`).join(',');
  const hits = results.reduce((sum, r) => sum + r.contents.reduce((s, x) => s + hitsTotal(x.siteHits.measured), 0), 0);
  return `search_rps_c${c}=${pick('search')} contents_rps_c${c}=${pick('contents')} searchable_s=${ready} contents_site_hits_measured=${hits}`; // prettier-ignore
}

function printMarkdown(results, started, machine, counts) {
  const problems = results.flatMap((r) => r.problems.map((l) => `${r.name}: ${l}`));
  const lines = [
    '## Replicas: SQLite vs PostgreSQL, 1 and 2 replicas (bench/replicas.mjs)',
    '',
    `\`${COMMAND}\``,
    '',
    machine,
    '',
    `Each setup is \`trawl serve --log-level info --rate-limit-qps 0 --rate-limit-concurrency 0\` (one process per replica, ` +
      'its own data dir; stderr to a file), PostgreSQL setups on a fresh schema (dropped afterwards) of ' +
      `${redact(DATABASE_URL)}. Load from this process over undici keep-alive pools (N connections per replica, ` +
      `N loops sending each request to the next replica in turn), ${WARMUP_S} s warm-up discarded, ${SECONDS} s ` +
      'measured; p50/p99 over every response of the measured run. Ratios: req/s and p50 against the SQLite row ' +
      'of the same concurrency. Trawl CPU: user + system of every replica per request; bench CPU: this process ' +
      "(the load generator, which shares the machine's cores); machine busy: all cores, PostgreSQL included. " +
      `Load average at each setup's start: ${results.map((r) => `${r.name} ${r.loadavg.map((l) => l.toFixed(2)).join(' ')}`).join('; ')}.`, // prettier-ignore
    '',
    `### Import → searchable (${DOCS} SciFact abstracts, \`trawl import\`)`,
    '',
    'The servers run while `trawl import` writes (into the data dir for SQLite; into PostgreSQL only for the ' +
      'replicas); each replica is polled every ' +
      `${POLL_MS} ms until its own index holds every document (GET /status → index.searchable) and an instant ` +
      "search for the last document's title finds it. Times from the spawn of `trawl import`.",
    '',
    importTable(results),
    '',
    `### POST /search \`{type: "instant", query}\` (${counts.queries} SciFact queries in turn)`,
    '',
    loadTable(results, 'search', false),
    '',
    `### POST /contents cache hits \`{urls: [page], text: true}\` (${N_PAGES} loopback pages in turn)`,
    '',
    `The first ${N_PAGES} scrapinghub pages, fetched once through the first replica, then requested once from ` +
      'every replica, each answer required to be `source: cached`. Site hits: requests that reached the loopback ' +
      "site during the measured phase (0: every answer came from the cache; the warm-up's are listed below).",
    '',
    loadTable(results, 'contents', true),
    '',
    `Site hits: ${hitsLine(results)}.`,
    '',
    `### One page written through one replica → searchable on another (${PROBES} pages)`,
    '',
    "A fresh page stored with /contents through the first replica (the call returns once that replica's own " +
      'index has it), then an instant search for its own word on the last replica every 5 ms until it is found ' +
      '(with one process, the same one). Polling adds up to 5 ms.',
    '',
    propagationTable(results),
    '',
    `Server log (warn and above): ${problems.length ? `\n\n\`\`\`\n${problems.join('\n')}\n\`\`\`` : 'none.'}`,
    '',
    `(took ${fmt((performance.now() - started) / 1000, 0)} s)`,
    '',
    headline(results),
  ];
  console.log(lines.join('\n'));
}

/** The database URL without its password. */
function redact(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  const started = performance.now();
  const machine = machineLine();
  if (SETUP_NAMES.some((s) => SETUPS[s].postgres)) {
    try {
      pgSync('SELECT 1 AS ok');
    } catch (err) {
      throw new Error(`PostgreSQL at ${redact(DATABASE_URL)} does not answer: ${err.stderr || err.message}`);
    }
  }
  const tmp = makeTmpDir('trawl-bench-replicas-');
  const corpus = writeCorpus(tmp);
  const queries = readTsv(path.join(SCIFACT, 'queries.tsv')).map((q) => q.text);
  const pages = loadPages();
  // the scrapinghub pages at /p/<n>, and fresh probe pages at /fresh/<n>
  const site = await startSite((p) =>
    p.startsWith('/p/') ? pages.get(p.slice(3)) : p.startsWith('/fresh/') ? freshPage(p.slice(7)) : undefined,
  );
  const urls = Array.from({ length: N_PAGES }, (_, i) => `${site.base}/p/${i}`);
  const inputs = {
    corpus,
    site,
    urls,
    search: { urlPath: '/search', bodies: queries.map((query) => JSON.stringify({ type: 'instant', query })) },
    contents: { urlPath: '/contents', bodies: urls.map((url) => JSON.stringify({ urls: [url], text: true })) },
  };
  const results = [];
  for (const id of SETUP_NAMES) results.push(await runSetup(id, inputs));
  site.server.close();
  withRatios(results, 'search');
  withRatios(results, 'contents');
  if (JSON_OUT) {
    const out = { machine, docs: DOCS, seconds: SECONDS, warmupSeconds: WARMUP_S, connections: CONNECTIONS, results };
    console.log(JSON.stringify(out, null, 2));
  } else {
    printMarkdown(results, started, machine, { queries: queries.length });
  }
}

await main();
process.exit(0);
