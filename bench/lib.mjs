// Shared helpers for the benchmark scripts: child-process bookkeeping (every child is killed when the
// script exits, fails or is interrupted), temp dirs (removed on exit), statistics, Markdown tables and
// small HTTP helpers, and readers of the shared datasets. Everything talks to 127.0.0.1 only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = path.join(ROOT, 'dist', 'bin', 'cli.js');
export const HOST = '127.0.0.1';

/** Fails early with a clear message when `npm run build` has not been run. */
export function requireBuild() {
  if (!fs.existsSync(CLI)) {
    console.error(`bench: ${CLI} not found; run \`npm run build\` first`);
    process.exit(1);
  }
}

/**
 * The parent's environment without TRAWL_* variables, so only the flags we pass configure a child; with
 * no per-key rate limit unless `extra` sets one (the benchmarks measure throughput, not the limit).
 */
export function childEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TRAWL_')) env[k] = v;
  return { ...env, TRAWL_RATE_LIMIT_QPS: '0', ...extra };
}

// ---------------------------------------------------------------------------------------------------
// Cleanup: children and temp dirs

const children = new Set(); // ChildProcess objects still running
const extraPids = new Set(); // pids of children spawned by someone else (e.g. the MCP SDK transport)
const tmpDirs = new Set();

export function trackPid(pid) {
  if (pid) extraPids.add(pid);
}
export function untrackPid(pid) {
  extraPids.delete(pid);
}

function killAll() {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  for (const pid of extraPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  for (const dir of tmpDirs) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
}

process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    console.error(`bench: ${signal}, stopping children`);
    killAll();
    process.exit(130);
  });
}
process.on('uncaughtException', (err) => {
  console.error('bench: uncaught', err);
  process.exit(1); // 'exit' handler kills the children
});
process.on('unhandledRejection', (err) => {
  console.error('bench: unhandled rejection', err);
  process.exit(1);
});

export function makeTmpDir(prefix = 'trawl-bench-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tmpDirs.add(dir);
  return dir;
}

export function removeTmpDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  tmpDirs.delete(dir);
}

/** Spawns a tracked child (removed from tracking when it exits). `exited` resolves with {code, signal}. */
export function spawnTracked(command, args, options = {}) {
  const child = spawn(command, args, { env: childEnv(), ...options });
  children.add(child);
  child.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
    child.once('error', (err) => {
      children.delete(child);
      resolve({ code: null, signal: null, error: err });
    });
  });
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves with how long the child took to exit (ms). */
export async function stopChild(child, graceMs = 3000) {
  if (child.exitCode !== null || child.signalCode !== null) return 0;
  const t0 = performance.now();
  child.kill('SIGTERM');
  const timer = sleep(graceMs, 'timeout', { ref: false });
  const first = await Promise.race([child.exited, timer]);
  if (first === 'timeout') {
    child.kill('SIGKILL');
    await child.exited;
    return Infinity;
  }
  return performance.now() - t0;
}

// ---------------------------------------------------------------------------------------------------
// Statistics and formatting

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export function summarize(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length / 2;
  const median = s.length % 2 ? s[Math.floor(mid)] : (s[mid - 1] + s[mid]) / 2;
  return { n: s.length, median, p90: percentile(s, 90), min: s[0], max: s[s.length - 1] };
}

export function fmt(n, digits = 1) {
  if (n === Infinity) return '∞';
  if (typeof n !== 'number' || Number.isNaN(n)) return '–';
  return n.toFixed(digits);
}

export function ratio(a, b) {
  if (!b || !Number.isFinite(a) || !Number.isFinite(b)) return '–';
  return `${(a / b).toFixed(2)}×`;
}

/** A Markdown table; numeric-looking columns are right-aligned. */
export function mdTable(headers, rows) {
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => /^[-\d.,×∞–%]+$/.test(String(r[i]))));
  const widths = headers.map((h, i) => Math.max(String(h).length, 3, ...rows.map((r) => String(r[i]).length)));
  const pad = (cell, i) => (numeric[i] ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i]));
  const line = (cells) => `| ${cells.map(pad).join(' | ')} |`;
  const sep = `| ${widths.map((w, i) => (numeric[i] ? '-'.repeat(w - 1) + ':' : '-'.repeat(w))).join(' | ')} |`;
  return [line(headers), sep, ...rows.map(line)].join('\n');
}

/** One line describing the machine, for the top of each report. */
export function machineLine() {
  const cpu = os.cpus()[0]?.model?.trim() ?? 'unknown CPU';
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return (
    `node ${process.version}, ${os.availableParallelism()} CPU (${cpu}), ${os.platform()} ${os.release()}, ` +
    `load average ${load}, ${new Date().toISOString()}`
  );
}

/**
 * The options of a side-by-side bench: `opt(name, fallback)` reads `--name value`; `checkout` is the tree
 * measured (`--checkout`, default this one) and `baseline` the tree it is compared with (`--baseline`, or null).
 */
export function benchOptions(args = process.argv.slice(2)) {
  const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const baseline = opt('--baseline', null);
  return { args, opt, checkout: path.resolve(opt('--checkout', ROOT)), baseline: baseline && path.resolve(baseline) };
}

/**
 * The closing `name=value` line of a side-by-side report: `fieldsOf(side)` for each side, the last side
 * (this build) unsuffixed and the others suffixed with `_<label>` (e.g. `b_p50_ms_before=…`).
 */
export function headlineOf(sides, fieldsOf) {
  return sides
    .map((side) => {
      const suffix = side === sides.at(-1) ? '' : `_${side.label}`;
      return Object.entries(fieldsOf(side))
        .map(([name, value]) => `${name}${suffix}=${value}`)
        .join(' ');
    })
    .join(' ');
}

// ---------------------------------------------------------------------------------------------------
// Networking

/** A port that was free a moment ago on 127.0.0.1 (the kernel picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** One GET without keep-alive; resolves with the status code, or 0 on a connection error. */
export function httpGetStatus(port, urlPath, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const req = http.get({ host: HOST, port, path: urlPath, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode));
      res.once('error', () => resolve(0));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
  });
}

/**
 * Polls GET `urlPath` every `intervalMs` until it answers 200 or `timeoutMs` passes.
 * Resolves with the time of the first 200 (performance.now()), or throws.
 */
export async function waitFor200(port, urlPath, { intervalMs = 5, timeoutMs = 10000, child } = {}) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`child exited (code ${child.exitCode}, signal ${child.signalCode}) before answering`);
    }
    const status = await httpGetStatus(port, urlPath, 1000);
    if (status === 200) return performance.now();
    await sleep(intervalMs);
  }
  throw new Error(`no 200 from http://${HOST}:${port}${urlPath} within ${timeoutMs} ms`);
}

/** `n` GETs over `concurrency` keep-alive connections; resolves with a count of statuses. */
export async function hammer(port, urlPath, n, concurrency = 10) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const counts = {};
  let next = 0;
  const one = () =>
    new Promise((resolve) => {
      const req = http.get({ host: HOST, port, path: urlPath, agent }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode));
      });
      req.once('error', () => resolve(0));
    });
  const worker = async () => {
    while (next < n) {
      next++;
      const status = await one();
      counts[status] = (counts[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return counts;
}

/** VmRSS / VmHWM of a process in MB (Linux /proc), or NaN elsewhere. */
export function memoryMB(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

// ---------------------------------------------------------------------------------------------------
// Baseline servers (plain Node), as inline scripts run in their own process like Trawl is

/** A bare node:http server answering every request with a small JSON body. Port from argv[1]. */
export const BARE_HTTP_SERVER = `
const http = require('node:http');
const body = JSON.stringify({ status: 'ok', version: '0.0.0' });
const server = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.argv[1]), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
`;

/**
 * The server stack Trawl itself uses (Hono on @hono/node-server), with no middleware: GET /health, and POST
 * /search that parses the JSON body and answers 400. Run from the repo root so the imports resolve.
 */
export const BARE_HONO_SERVER = `
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
const app = new Hono();
app.get('/health', (c) => c.json({ status: 'ok', version: '0.0.0' }));
app.post('/search', async (c) => {
  const body = await c.req.json();
  return c.json({ error: 'numResults: must be at most 100 (got ' + body.numResults + ')' }, 400);
});
const server = serve({ fetch: app.fetch, port: Number(process.argv[1]), hostname: '127.0.0.1' });
process.once('SIGTERM', () => server.close(() => process.exit(0)));
`;

/** The records of a gzipped JSON-lines file (the shared datasets' corpora). */
/**
 * A keep-alive loopback site for the contents benches: `pageOf(path)` gives a page's HTML (a Buffer), or
 * undefined for a 404 (robots.txt included, i.e. allow-all). Counts every request: pages, robots.txt
 * and anything else.
 */
export function startSite(pageOf) {
  const hits = { pages: 0, robots: 0, other: 0 };
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    const body = pageOf(p);
    if (body) {
      hits.pages++;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
    } else {
      hits[p === '/robots.txt' ? 'robots' : 'other']++;
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, HOST, () => resolve({ server, hits, base: `http://${HOST}:${server.address().port}` })),
  );
}

export function readJsonlGz(file) {
  return gunzipSync(fs.readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The `id<TAB>text` lines of a queries file, as `{qid, text}`. */
export function readTsv(file) {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const i = l.indexOf('\t');
      return { qid: l.slice(0, i), text: l.slice(i + 1) };
    });
}

/** A document record as the server stores a fetched page. */
export function fetchedDocument({ url, title, text, contentHash, fetchedAt }) {
  return { url, title, text, author: null, publishedDate: null, kind: 'html', metadata: {}, origin: 'fetch', collection: null, contentHash, fetchedAt }; // prettier-ignore
}

// ---------------------------------------------------------------------------------------------------
// Trawl in-process (the benches that call the services of a built checkout directly)

/** The CoSQA dev data and the shared retrieval scorer. */
export const COSQA_DIR = path.resolve(ROOT, '..', 'shared', 'data', 'cosqa');
export const SCORER = path.resolve(ROOT, '..', 'shared', 'bench', 'score-retrieval.mjs');

/**
 * `appAt(dir, codeModel?)`: an app of this checkout's dist/ over the data dir, silent (`codeModel`: a
 * model file or 'off'; default the shipped model); `ctxOf(app)`: a service context for its services.
 */
export async function inProcessTrawl() {
  const dist = (p) => path.join(ROOT, 'dist', p);
  const { loadConfig } = await import(dist('config/config.js'));
  const { createApp } = await import(dist('compose/app.js'));
  const { createLogger } = await import(dist('lib/logger.js'));
  return {
    appAt: (dir, codeModel) =>
      createApp(loadConfig({}, { dataDir: dir, logLevel: 'silent', codeModel }), { logger: createLogger('silent') }),
    ctxOf: (app) => ({
      requestId: 'bench',
      logger: app.logger,
      signal: new AbortController().signal,
      caller: null,
      clock: app.clock,
      betas: new Set(),
    }),
  };
}
