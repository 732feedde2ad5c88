// REST overhead: throughput and latency of `trawl serve` on requests that do no upstream work (GET /health,
// and POST /search rejected with 400 by validation after the key check), next to bare node:http and bare
// Hono servers. Load comes from autocannon in this process; the servers are child processes.
// Usage: npm run build && node bench/rest-overhead.mjs
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  BARE_HONO_SERVER,
  BARE_HTTP_SERVER,
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
  ratio,
  removeTmpDir,
  requireBuild,
  spawnTracked,
  stopChild,
  waitFor200,
} from './lib.mjs';

const CONNECTIONS = 10;
const DURATION_S = 10;
const WARMUP_S = 2;
const PIPELINING = 1;
const SEARCH_BODY = JSON.stringify({ query: 'x', numResults: 500 });

/** Starts a server (trawl or a baseline) on a free port; stderr goes to `logFile`. */
async function startServer(kind, { dataDir, logLevel, logFile }) {
  const port = await freePort();
  let args;
  if (kind === 'trawl') {
    args = [CLI, 'serve', '--port', String(port), '--data-dir', dataDir, '--log-level', logLevel];
  } else if (kind === 'http') {
    args = ['-e', BARE_HTTP_SERVER, String(port)];
  } else if (kind === 'hono') {
    args = ['--input-type=module', '-e', BARE_HONO_SERVER, String(port)];
  } else throw new Error(kind);
  const fd = fs.openSync(logFile, 'w');
  const child = spawnTracked(process.execPath, args, { stdio: ['ignore', 'ignore', fd], cwd: ROOT });
  fs.closeSync(fd);
  try {
    await waitFor200(port, '/health', { intervalMs: 10, timeoutMs: 15000, child });
  } catch (err) {
    await stopChild(child);
    throw new Error(`${kind}: ${err.message}\n${fs.readFileSync(logFile, 'utf8').slice(0, 4000)}`);
  }
  return { child, port, kind, logFile };
}

/** One request outside the load run, to check the server answers what the benchmark expects. */
function probe(port, { method, urlPath, headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: HOST, port, method, path: urlPath, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.setTimeout(5000, () => req.destroy(new Error('probe timed out')));
    req.once('error', reject);
    req.end(body);
  });
}

/**
 * Response times (ms, float) of every response, kept here because autocannon's own histogram has 1 ms
 * resolution, which rounds sub-millisecond medians to 0. Bounded: at most MAX_SAMPLES are kept.
 */
const MAX_SAMPLES = 4_000_000;
function latencyRecorder() {
  const samples = new Float64Array(MAX_SAMPLES);
  let n = 0;
  return {
    record(ms) {
      if (n < MAX_SAMPLES) samples[n++] = ms;
    },
    percentile(p) {
      if (n === 0) return NaN;
      const sorted = samples.subarray(0, n).sort();
      return sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))];
    },
  };
}

function cannon(port, { method, urlPath, headers = {}, body }, durationS, recorder) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://${HOST}:${port}${urlPath}`,
        method,
        headers,
        body,
        connections: CONNECTIONS,
        pipelining: PIPELINING,
        duration: durationS,
        timeout: 10,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (recorder) instance.on('response', (_client, _status, _bytes, ms) => recorder.record(ms));
  });
}

/** Warm-up (discarded), then the measured run; returns a summary row. */
async function measure(label, server, request, expectStatus) {
  process.stderr.write(`rest-overhead: ${label}…\n`);
  const check = await probe(server.port, request);
  if (check.status !== expectStatus) {
    throw new Error(`${label}: expected ${expectStatus}, got ${check.status}: ${check.text.slice(0, 300)}`);
  }
  await cannon(server.port, request, WARMUP_S);
  const logBytesBefore = fs.statSync(server.logFile).size;
  const recorder = latencyRecorder();
  const r = await cannon(server.port, request, DURATION_S, recorder);
  const logBytes = fs.statSync(server.logFile).size - logBytesBefore;
  const statuses = Object.entries(r.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code}:${count}`)
    .join(' ');
  const expected = r.statusCodeStats?.[expectStatus]?.count ?? 0;
  return {
    label,
    rps: r.requests.average,
    p50: recorder.percentile(50),
    p99: recorder.percentile(99),
    total: r.requests.total,
    expected,
    unexpected: r.requests.total - expected,
    errors: r.errors,
    timeouts: r.timeouts,
    statuses,
    logBytesPerReq: r.requests.total ? logBytes / r.requests.total : 0,
    rss: memoryMB(server.child.pid).rss,
  };
}

async function main() {
  requireBuild();
  const started = performance.now();
  const dataDir = makeTmpDir('trawl-bench-rest-');
  const logDir = makeTmpDir('trawl-bench-logs-');
  const key = execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'bench', '--data-dir', dataDir], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
    encoding: 'utf8',
    timeout: 15000,
  }).trim();
  if (!key) throw new Error('keys create printed no key');

  const health = { method: 'GET', urlPath: '/health' };
  const search = {
    method: 'POST',
    urlPath: '/search',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: SEARCH_BODY,
  };
  const results = [];
  const withServer = async (kind, logLevel, fn) => {
    const server = await startServer(kind, {
      dataDir,
      logLevel,
      logFile: path.join(logDir, `${kind}-${logLevel}.log`),
    });
    try {
      await fn(server);
    } finally {
      await stopChild(server.child, 5000);
    }
  };

  await withServer('http', 'none', async (s) => {
    results.push({ ...(await measure('baseline: bare node:http, GET /health', s, health, 200)), base: 'get' });
    results.push({ ...(await measure('baseline: bare node:http, POST same body', s, search, 200)), base: 'post' });
  });
  await withServer('hono', 'none', async (s) => {
    results.push(await measure('baseline: bare Hono + @hono/node-server, GET /health', s, health, 200));
    results.push({
      ...(await measure('baseline: bare Hono, POST same body → c.req.json() → 400', s, search, 400)),
      post: true,
    });
  });
  await withServer('trawl', 'warn', async (s) => {
    results.push({ ...(await measure('**trawl serve GET /health** (log warn)', s, health, 200)), kind: 'health' });
    results.push({
      ...(await measure('**trawl serve POST /search → 400** (log warn)', s, search, 400)),
      kind: 'search',
    });
  });
  await withServer('trawl', 'info', async (s) => {
    results.push({ ...(await measure('trawl serve GET /health (log info)', s, health, 200)), kind: 'health' });
    results.push({ ...(await measure('trawl serve POST /search → 400 (log info)', s, search, 400)), kind: 'search' });
  });
  removeTmpDir(dataDir);
  removeTmpDir(logDir);

  const baseGet = results.find((r) => r.base === 'get');
  const basePost = results.find((r) => r.base === 'post');
  const rows = results.map((r) => {
    const base = r.kind === 'search' || r.post || r.base === 'post' ? basePost : baseGet;
    return [
      r.label,
      fmt(r.rps, 0),
      fmt(r.p50, 2),
      fmt(r.p99, 2),
      r === base ? '1.00×' : ratio(r.rps, base.rps),
      r.total,
      r.unexpected,
      r.errors,
      r.timeouts,
      r.statuses,
      fmt(r.logBytesPerReq, 0),
      fmt(r.rss, 1),
    ];
  });

  const warnHealth = results.find((r) => r.kind === 'health');
  const warnSearch = results.find((r) => r.kind === 'search');
  const lines = [
    '## REST overhead (bench/rest-overhead.mjs)',
    '',
    machineLine(),
    '',
    `autocannon: ${CONNECTIONS} connections, pipelining ${PIPELINING}, ${DURATION_S} s measured after a ${WARMUP_S} s ` +
      'warm-up, in the benchmark process; each server is its own process with stderr to a file. ' +
      'Latency in ms, p50/p99 over every response of the measured run (all status codes). "vs baseline" is req/s against bare node:http (GET rows against GET, POST rows against POST ' +
      `with the same body). POST /search body: \`${SEARCH_BODY}\` with a valid key, so each request is ` +
      'authenticated, then rejected by validation (400 is the expected status).',
    '',
    mdTable(
      [
        'server / request',
        'req/s',
        'p50',
        'p99',
        'vs baseline',
        'requests',
        'unexpected status',
        'errors',
        'timeouts',
        'status codes',
        'log B/req',
        'RSS after (MB)',
      ],
      rows,
    ),
    '',
    `(took ${fmt((performance.now() - started) / 1000, 0)} s)`,
    '',
    `health_rps=${fmt(warnHealth.rps, 0)} search_400_rps=${fmt(warnSearch.rps, 0)} ` +
      `baseline_rps=${fmt(baseGet.rps, 0)} health_vs_baseline=${ratio(warnHealth.rps, baseGet.rps)}`,
  ];
  console.log(lines.join('\n'));
}

await main();
process.exit(0);
