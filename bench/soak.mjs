// Soak and faults: mixed traffic for --minutes against `trawl serve` (one process on SQLite, or two replicas
// on a private PostgreSQL cluster), with per-minute RSS, open file descriptors, event-loop delay, latency
// and errors per kind; during the run PostgreSQL is restarted (at 1/3) and a replica killed with SIGKILL
// and started again (at 2/3); at the end every acknowledged effect is looked up in the store.
// Not in CI (docs/operations.md, "Soak"). Writes soak.md, soak.svg and soak.json to --out.
//
//   npm run build && node bench/soak.mjs --minutes 30 [--replicas 1|2] [--out DIR] [--rate 1]
//        [--no-faults] [--docs 3000] [--lease-ms 15000] [--task-ttl-ms 600000] [--sample-seconds 60]
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { CLI, HOST, ROOT, childEnv, machineLine, makeTmpDir, percentile, readJsonlGz, readTsv, requireBuild, spawnTracked, stopChild } from './lib.mjs'; // prettier-ignore
import { freePort, startFixtureSite, startModel, startPrivatePostgres, startReceiver, startSearxng } from './soak-fixtures.mjs'; // prettier-ignore
import { writeReport } from './soak-report.mjs';

// ---------------------------------------------------------------------------------------------------
// Options

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const MINUTES = Number(opt('--minutes', '30'));
const REPLICAS = Number(opt('--replicas', '1'));
const RATE = Number(opt('--rate', '1'));
const FAULTS = !args.includes('--no-faults');
const DOCS = Number(opt('--docs', '3000'));
const LEASE_MS = Number(opt('--lease-ms', '15000'));
/** How long an ended MCP task is kept (the server's TRAWL_MCP_TASK_TTL_MS, default 10 minutes); tasks ask for none. */
const TASK_TTL_MS = Number(opt('--task-ttl-ms', '600000'));
const SAMPLE_S = Number(opt('--sample-seconds', '60'));
const STAMP = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const OUT = path.resolve(opt('--out', path.join(ROOT, 'bench', 'results', `soak-${REPLICAS}r-${STAMP}`)));
const SCIFACT = path.join(ROOT, '..', 'shared', 'data', 'scifact');
const RUN = crypto.randomBytes(3).toString('hex'); // in fresh page names, so a rerun never hits an old cache

requireBuild();
const problems = [];
if (!(MINUTES > 0)) problems.push('--minutes: a positive number of minutes');
if (REPLICAS !== 1 && REPLICAS !== 2) problems.push('--replicas: 1 (one process on SQLite) or 2 (two replicas on PostgreSQL)'); // prettier-ignore
if (!(RATE > 0)) problems.push('--rate: a positive multiplier of the request rates');
if (!(DOCS > 0 && DOCS <= 5183)) problems.push('--docs: 1 to 5183 (SciFact abstracts)');
if (!(LEASE_MS >= 3000)) problems.push('--lease-ms: at least 3000');
if (!(TASK_TTL_MS >= 60_000)) problems.push('--task-ttl-ms: at least 60000 (the server refuses less)');
if (!(SAMPLE_S >= 5)) problems.push('--sample-seconds: at least 5');
if (problems.length) {
  console.error(`soak: ${problems.join('; ')}`);
  process.exit(2);
}
const log = (msg) => process.stderr.write(`soak: ${msg}\n`);

/** Requests per second of each kind at --rate 1: small enough for a shared 2-core machine. */
const KINDS = {
  search_instant: 3,
  search_auto: 1,
  contents_hit: 2,
  contents_miss: 0.5,
  context: 1,
  monitor_trigger: 0.1,
  agent_run: 0.1,
  mcp_task: 0.1,
};
const PULL_S = 30; // a scheduled monitor slot made due this often
const HEALTH_MS = 500; // event-loop probe period, per replica
const RETRY_DEADLINE_MS = 60_000; // a client gives a request up after this long of retrying
const IN_FLIGHT_CAP = 64; // per kind: past it a tick is skipped (and counted), the client being saturated
const N_CACHED = 20; // pages kept in the cache (hits)
const N_MONITORS = 3; // triggered in turn; one more for scheduled slots
const CODE_QUERIES = ['how is a lease renewed', 'parse the request body size limit', 'webhook signature header', 'open the sqlite database with migrations', 'search index merge segments', 'rate limit token bucket']; // prettier-ignore
const T0 = Date.now(); // every recorded time is ms since T0
const now = () => Date.now() - T0;

// ---------------------------------------------------------------------------------------------------
// Trawl processes

const env = { base: null };
const key = { value: '' };

function trawlEnv(fixtures, cluster, secretKey) {
  const e = {
    TRAWL_PRIVATE_ALLOWLIST: HOST,
    TRAWL_RATE_LIMIT_QPS: '0',
    TRAWL_RATE_LIMIT_CONCURRENCY: '0',
    TRAWL_ALLOW_INSECURE_WEBHOOKS: 'true',
    TRAWL_SEARXNG_URL: fixtures.searxng.base,
    TRAWL_MODEL_BASE_URL: fixtures.model.baseUrl,
    TRAWL_MODEL: 'soak-model',
    TRAWL_MODEL_INPUT_PRICE: '0',
    TRAWL_MODEL_OUTPUT_PRICE: '0',
    TRAWL_TOOLS: 'all',
    TRAWL_LEASE_MS: String(LEASE_MS),
    TRAWL_MCP_TASK_TTL_MS: String(TASK_TTL_MS),
    TRAWL_POLL_MS: '1000',
    TRAWL_LOG_LEVEL: 'info',
  };
  if (cluster) Object.assign(e, { TRAWL_DATABASE_URL: cluster.url, TRAWL_SECRET_KEY: secretKey });
  return childEnv(e);
}

function cli(argv, dataDir, timeout = 300_000) {
  return execFileSync(process.execPath, [CLI, ...argv, '--data-dir', dataDir], {
    cwd: ROOT,
    env: env.base,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout,
  });
}

/** `trawl serve` on its fixed port (so a restarted replica is where clients look); resolves when it listens. */
async function startServer(replica) {
  const offset = fs.existsSync(replica.logFile) ? fs.statSync(replica.logFile).size : 0;
  const fd = fs.openSync(replica.logFile, 'a');
  const argv = [CLI, 'serve', '--host', HOST, '--port', String(replica.port), '--data-dir', replica.dataDir, '--create-first-key', 'false']; // prettier-ignore
  const child = spawnTracked(process.execPath, argv, { cwd: ROOT, env: env.base, stdio: ['ignore', 'ignore', fd] });
  fs.closeSync(fd);
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    const text = fs.readFileSync(replica.logFile, 'utf8').slice(offset);
    if (/listening on http:\/\//.test(text)) {
      replica.child = child;
      replica.pids.push(child.pid);
      child.exited.then(({ code, signal }) => {
        if (replica.child === child && !replica.expectExit && !shutdown.now) void supervise(replica, offset, code, signal); // prettier-ignore
      });
      return;
    }
    if (child.exitCode !== null || child.signalCode !== null) break;
    await sleep(50);
  }
  await stopChild(child);
  throw new Error(`trawl serve (replica ${replica.index + 1}) did not start:\n${fs.readFileSync(replica.logFile, 'utf8').slice(offset, offset + 4000)}`); // prettier-ignore
}

const shutdown = { now: false }; // set before the bench stops the replicas itself
const crashes = []; // exits nobody asked for: {replica, at, code, signal, cause, back}

/**
 * A replica that exits on its own is recorded with the first line of what it printed outside its JSON
 * log (the crash's message), then started again after 1 s, as a supervisor (systemd, Kubernetes) would.
 */
async function supervise(replica, offset, code, signal) {
  const crash = { replica: replica.index + 1, at: now(), code, signal };
  crashes.push(crash);
  const tail = fs.readFileSync(replica.logFile, 'utf8').slice(offset).split('\n');
  crash.cause =
    tail
      .find((l) => /^\w*Error\b|^error:/i.test(l.trim()))
      ?.trim()
      .slice(0, 200) ?? 'no message';
  log(`replica ${crash.replica} exited on its own (${signal ?? `code ${code}`}): ${crash.cause}; restarting it in 1 s`);
  replica.restarting = (async () => {
    await sleep(1000);
    if (shutdown.now) return;
    await startServer(replica);
    crash.back = now();
  })().finally(() => (replica.restarting = undefined));
  await replica.restarting;
}

// ---------------------------------------------------------------------------------------------------
// The client: each request goes to the next replica in turn (as a load balancer would); 503, 429 and a
// refused or reset connection are retried with exponential backoff (100 ms doubling to 2 s, jittered;
// `Retry-After` when given) for up to a minute, on the next replica. Anything else is final.

const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 128, headersTimeout: 120_000, bodyTimeout: 120_000 }); // prettier-ignore
const RETRY_STATUS = new Set([429, 503]);
const RETRY_ERROR = /ECONNREFUSED|ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED|other side closed|socket hang up|fetch failed|terminated|HTTP (429|503)/i; // prettier-ignore

const stats = {
  attempts: [], // {kind, replica, start, end, ok, why}
  requests: [], // {kind, start, end, ok, why, tries}
  skipped: {},
  contentsSources: {},
};
let turn = 0;
let replicas = [];

function errorName(err) {
  const code = err?.code ?? err?.cause?.code;
  const msg = String(err?.message ?? err).slice(0, 120);
  return code ? `${code}` : msg;
}

/** `op(replica)` until it succeeds or fails for good; `start` is where the request's time counts from. */
async function perform(kind, op, start = now()) {
  for (let tries = 1; ; tries++) {
    const replica = replicas[turn++ % replicas.length];
    const a0 = now();
    let out;
    try {
      out = await op(replica);
    } catch (err) {
      // the MCP SDK's transport throws an HTTP answer it refuses with the status as `code`
      const retry = RETRY_STATUS.has(Number(err?.code)) || RETRY_ERROR.test(`${err?.code ?? ''} ${err?.cause?.code ?? ''} ${err?.message ?? ''}`); // prettier-ignore
      out = { ok: false, retry, why: errorName(err) };
    }
    stats.attempts.push({ kind, replica: replica.index, start: a0, end: now(), ok: out.ok, why: out.ok ? undefined : out.why }); // prettier-ignore
    if (out.ok) {
      stats.requests.push({ kind, start, end: now(), ok: true, tries });
      return out.value ?? true;
    }
    if (!out.retry || now() - start > RETRY_DEADLINE_MS) {
      stats.requests.push({ kind, start, end: now(), ok: false, why: out.why, tries });
      return undefined;
    }
    const backoff = Math.min(2000, 100 * 2 ** (tries - 1)) * (0.5 + Math.random());
    await sleep(out.retryAfterMs ?? backoff);
  }
}

/** One REST call; `accept(status, json)` says whether it succeeded and what it returns. */
async function rest(replica, method, p, body, accept) {
  const res = await request(`${replica.origin}${p}`, {
    method,
    dispatcher,
    headers: { 'content-type': 'application/json', 'x-api-key': key.value },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* judged by the status */
  }
  const value = res.statusCode >= 200 && res.statusCode < 300 ? accept(json) : undefined;
  if (value !== undefined && value !== false) return { ok: true, value };
  const after = Number(res.headers['retry-after']);
  return {
    ok: false,
    retry: RETRY_STATUS.has(res.statusCode),
    retryAfterMs: Number.isFinite(after) && after > 0 ? Math.min(after * 1000, 10_000) : undefined,
    why: `${res.statusCode}${json?.tag ? ` ${json.tag}` : ''}${value === false ? ' unexpected body' : ''}`,
  };
}

// ---------------------------------------------------------------------------------------------------
// The kinds of traffic

const effects = {
  agentRuns: [], // ids acknowledged with 201
  triggers: new Map(), // monitor id → triggers acknowledged
  misses: [], // fresh page ids stored with success
  tasks: [], // {taskId, tool, status}
  pulls: 0, // scheduled slots made due and seen claimed
  pullSkips: 0,
};
let inputs;

const ops = {
  search_instant: (n) =>
    perform('search_instant', (r) => rest(r, 'POST', '/search', { type: 'instant', query: inputs.queries[n % inputs.queries.length], numResults: 10 }, (j) => Array.isArray(j?.results))), // prettier-ignore
  search_auto: (n) =>
    perform('search_auto', (r) => rest(r, 'POST', '/search', { type: 'auto', query: inputs.queries[(n * 7) % inputs.queries.length], numResults: 10 }, (j) => Array.isArray(j?.results))), // prettier-ignore
  contents_hit: (n) =>
    perform('contents_hit', (r) =>
      rest(r, 'POST', '/contents', { urls: [inputs.cached[n % N_CACHED]], text: true }, (j) => {
        const st = j?.statuses?.[0];
        if (st?.status !== 'success') return false;
        stats.contentsSources[`hit:${st.source ?? 'none'}`] = (stats.contentsSources[`hit:${st.source ?? 'none'}`] ?? 0) + 1; // prettier-ignore
        return true;
      }),
    ),
  contents_miss: async (n) => {
    const id = `${RUN}-${n}`;
    const ok = await perform(
      'contents_miss',
      (r) =>
      rest(r, 'POST', '/contents', { urls: [`${inputs.site.base}/fresh/${id}`], text: true }, (j) => j?.statuses?.[0]?.status === 'success'), // prettier-ignore
    );
    if (ok) effects.misses.push(id);
  },
  context: (n) =>
    perform('context', (r) => rest(r, 'POST', '/context', { query: CODE_QUERIES[n % CODE_QUERIES.length], tokensNum: 2000 }, (j) => typeof j?.response === 'string')), // prettier-ignore
  monitor_trigger: async (n) => {
    const id = inputs.monitors[n % inputs.monitors.length];
    const ok = await perform('monitor_trigger', (r) => rest(r, 'POST', `/monitors/${id}/trigger`, {}, (j) => j?.triggered === true)); // prettier-ignore
    if (ok) effects.triggers.set(id, (effects.triggers.get(id) ?? 0) + 1);
  },
  agent_run: async (n) => {
    const query = inputs.queries[(n * 13) % inputs.queries.length];
    const id = await perform('agent_run', (r) => rest(r, 'POST', '/agent/runs', { query, effort: 'low' }, (j) => j?.id)); // prettier-ignore
    if (id) effects.agentRuns.push(id);
  },
  mcp_task: (n) => mcpTask(n),
};

// MCP tasks through the SDK's client over streamable HTTP: started with `task: {}`, then followed with
// tasks/get (any replica answers: the task lives in the store) until it ends, then its result read.

const mcp = {};
async function mcpClient(replica) {
  const transport = new mcp.Transport(new URL(`${replica.origin}/mcp`), { requestInit: { headers: { 'x-api-key': key.value } } }); // prettier-ignore
  const client = new mcp.Client({ name: 'soak', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
async function withMcp(replica, fn) {
  const client = await mcpClient(replica);
  try {
    return await fn(client);
  } finally {
    await client.close().catch(() => {});
  }
}
const TERMINAL_TASK = new Set(['completed', 'failed', 'cancelled']);

async function mcpTask(n) {
  const tool = ['search', 'get_contents', 'agent_run'][n % 3];
  const q = inputs.queries[(n * 11) % inputs.queries.length];
  const toolArgs =
    tool === 'search' ? { query: q, type: 'auto' } : tool === 'get_contents' ? { urls: [inputs.cached[n % N_CACHED]] } : { query: q, effort: 'low' }; // prettier-ignore
  const started = now();
  const taskId = await perform('mcp_task_start', (r) =>
    withMcp(r, async (c) => {
      const { task } = await c.request({ method: 'tools/call', params: { name: tool, arguments: toolArgs, task: {} } }, mcp.CreateTaskResultSchema); // prettier-ignore
      return { ok: true, value: task.taskId };
    }),
  );
  if (!taskId) return;
  const entry = { taskId, tool, status: 'working' };
  effects.tasks.push(entry);
  await followTask(entry, started);
}

async function followTask(entry, started, deadlineMs = 240_000, kind = 'mcp_task_end') {
  const status = await perform(
    kind,
    (r) =>
      withMcp(r, async (c) => {
        for (;;) {
          const t = await c.experimental.tasks.getTask(entry.taskId);
          if (TERMINAL_TASK.has(t.status)) {
            entry.endedAt ??= now(); // its TTL runs from its end: past it the store may drop it
            if (t.status === 'completed') {
              const result = await c.experimental.tasks.getTaskResult(entry.taskId, mcp.CallToolResultSchema);
              return { ok: true, value: result.isError ? 'completed with isError' : 'completed' };
            }
            return { ok: true, value: t.status };
          }
          if (now() - started > deadlineMs) return { ok: false, retry: false, why: `still ${t.status} after ${deadlineMs / 1000} s` }; // prettier-ignore
          await sleep(250);
        }
      }),
    started, // the end-to-end time of a task: from its start to when it was seen ended
  );
  if (status) entry.status = status;
}

// ---------------------------------------------------------------------------------------------------
// The store, read directly: PostgreSQL (the replicas' shared store) or the SQLite file of the one process

async function openStore(cluster) {
  if (cluster) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: cluster.url, max: 2, connectionTimeoutMillis: 5000 });
    pool.on('error', () => {}); // a restart cuts idle connections; the next query opens a new one
    return {
      kind: 'PostgreSQL',
      all: async (sql, params = []) => (await pool.query(sql.replace(/\?/g, (() => { let i = 0; return () => `$${++i}`; })()), params)).rows, // prettier-ignore
      close: () => pool.end(),
    };
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path.join(replicas[0].dataDir, 'trawl.sqlite'));
  db.pragma('busy_timeout = 5000');
  const all = async (sql, params = []) => {
    const statement = db.prepare(sql);
    return statement.reader ? statement.all(...params) : (statement.run(...params), []);
  };
  return { kind: 'SQLite', all, close: async () => db.close() };
}

/** Makes the scheduled monitor's slot due now, once its previous one was claimed (exactly one run each). */
async function pullSchedule(store) {
  try {
    const [row] = await store.all('SELECT next_run_ms FROM monitors WHERE id = ?', [inputs.scheduled]);
    if (Number(row.next_run_ms) <= Date.now()) {
      effects.pullSkips++; // the last pull is not claimed yet (a replica down, or PostgreSQL restarting)
      return;
    }
    await store.all('UPDATE monitors SET next_run_ms = ? WHERE id = ?', [Date.now() - 1, inputs.scheduled]);
    effects.pulls++;
  } catch {
    effects.pullSkips++;
  }
}

// ---------------------------------------------------------------------------------------------------
// Sampling: per replica, every HEALTH_MS a GET /health (its latency beyond the HTTP round trip is the
// event loop's delay, seen from the client); every SAMPLE_S RSS, open descriptors, CPU, and /metrics'
// event-loop lag when the server has /metrics.

const health = []; // {replica, t, ms, ok}
// this process's own event loop (the clients and the fixtures): a stall here would show as server latency
const benchLoop = monitorEventLoopDelay({ resolution: 10 });
const samples = []; // per minute
let metricsAvailable = false;

function procStats(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]) / 1024;
    if (!Number.isFinite(rss)) throw new Error('not running'); // a zombie has no VmRSS
    const fds = fs.readdirSync(`/proc/${pid}/fd`).length;
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuTicks = Number(f[11]) + Number(f[12]);
    return { rss, fds, cpuTicks };
  } catch {
    return { rss: NaN, fds: NaN, cpuTicks: NaN };
  }
}

async function scrapeLag(replica) {
  try {
    const res = await request(`${replica.origin}/metrics`, { dispatcher, headers: { 'x-api-key': key.value } });
    const text = await res.body.text();
    if (res.statusCode !== 200) return undefined;
    const val = (name) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.eE+-]+)`, 'm').exec(text)?.[1]) * 1000;
    const p99 = val('nodejs_eventloop_lag_p99_seconds');
    return Number.isFinite(p99) ? { p99, max: val('nodejs_eventloop_lag_max_seconds') } : undefined;
  } catch {
    return undefined;
  }
}

async function probeHealth(replica) {
  const t = now();
  const t0 = performance.now();
  try {
    const res = await request(`${replica.origin}/health`, { dispatcher, headersTimeout: 10_000, bodyTimeout: 10_000 });
    await res.body.dump();
    health.push({ replica: replica.index, t, ms: performance.now() - t0, ok: res.statusCode === 200 });
  } catch {
    health.push({ replica: replica.index, t, ms: NaN, ok: false });
  }
}

const CLK_TCK = 100;
async function takeSample(index, from, to, prevCpu) {
  const row = { minute: (to - traffic.start) / 60_000, from, to, replicas: [], kinds: {} };
  row.benchLoop = { p99: benchLoop.percentile(99) / 1e6, max: benchLoop.max / 1e6 };
  benchLoop.reset();
  for (const r of replicas) {
    const p = procStats(r.child?.pid);
    const cpuPct = prevCpu[r.index] && prevCpu[r.index].pid === r.child?.pid ? ((p.cpuTicks - prevCpu[r.index].ticks) * (1000 / CLK_TCK) * 100) / (to - from) : NaN; // prettier-ignore
    prevCpu[r.index] = { pid: r.child?.pid, ticks: p.cpuTicks };
    const probes = health.filter((h) => h.replica === r.index && h.t >= from && h.t < to && h.ok).map((h) => h.ms).sort((a, b) => a - b); // prettier-ignore
    const lag = metricsAvailable ? await scrapeLag(r) : undefined;
    row.replicas.push({ replica: r.index + 1, pid: r.child?.pid, rssMB: p.rss, fds: p.fds, cpuPct, healthP50: percentile(probes, 50), healthP99: percentile(probes, 99), healthMax: probes.at(-1) ?? NaN, lagP99: lag?.p99 ?? NaN, lagMax: lag?.max ?? NaN }); // prettier-ignore
  }
  for (const kind of allKinds()) {
    const done = stats.requests.filter((q) => q.kind === kind && q.end >= from && q.end < to);
    const lat = done
      .filter((q) => q.ok)
      .map((q) => q.end - q.start)
      .sort((a, b) => a - b);
    const failedAttempts = stats.attempts.filter((a) => a.kind === kind && a.end >= from && a.end < to && !a.ok).length; // prettier-ignore
    row.kinds[kind] = { n: done.length, ok: lat.length, p50: percentile(lat, 50), p99: percentile(lat, 99), failedAttempts, failed: done.length - lat.length }; // prettier-ignore
  }
  samples.push(row);
  const rs = row.replicas.map((x) => `r${x.replica} ${x.rssMB.toFixed(0)} MB ${x.fds} fds`).join(', ');
  log(`minute ${row.minute.toFixed(1)}: ${rs}; ${Object.values(row.kinds).reduce((s, k) => s + k.n, 0)} requests, ${Object.values(row.kinds).reduce((s, k) => s + k.failed, 0)} failed`); // prettier-ignore
}

const allKinds = () => [...Object.keys(KINDS).filter((k) => k !== 'mcp_task'), 'mcp_task_start', 'mcp_task_end'];

// ---------------------------------------------------------------------------------------------------
// Set-up: fixtures, the store, SciFact documents, this repository's src/ as code, the servers, the
// cached pages and the monitors.

async function setUp() {
  const site = await startFixtureSite();
  const fixtures = { site, searxng: await startSearxng(site.base), model: await startModel(), receiver: await startReceiver() }; // prettier-ignore
  const cluster = REPLICAS === 2 ? await startPrivatePostgres(log) : undefined;
  const secretKey = crypto.randomBytes(32).toString('base64');
  env.base = trawlEnv(fixtures, cluster, secretKey);
  fs.mkdirSync(path.join(OUT, 'logs'), { recursive: true });
  replicas = [];
  for (let i = 0; i < REPLICAS; i++) {
    const port = await freePort();
    const dataDir = makeTmpDir(`trawl-soak-r${i + 1}-`);
    replicas.push({ index: i, port, origin: `http://${HOST}:${port}`, dataDir, logFile: path.join(OUT, 'logs', `serve-${i + 1}.log`), pids: [] }); // prettier-ignore
  }
  // an admin data dir for the CLI on PostgreSQL (the store is shared); the one process's own on SQLite
  const adminDir = cluster ? makeTmpDir('trawl-soak-admin-') : replicas[0].dataDir;
  key.value = cli(['keys', 'create', '--name', 'soak', '--scopes', 'search,contents,context,monitors,agent,admin'], adminDir).trim(); // prettier-ignore
  const corpus = readJsonlGz(path.join(SCIFACT, 'corpus.jsonl.gz')).slice(0, DOCS);
  const file = path.join(makeTmpDir('trawl-soak-corpus-'), 'scifact.jsonl');
  fs.writeFileSync(file, corpus.map((d) => JSON.stringify({ _id: d._id, title: d.title, text: d.text })).join('\n') + '\n'); // prettier-ignore
  log(`importing ${DOCS} SciFact abstracts and indexing src/ as code…`);
  cli(['import', file, '--progress', 'off', '--log-level', 'warn'], adminDir);
  cli(['index', path.join(ROOT, 'src'), '--name', 'trawl-src', '--log-level', 'warn'], adminDir);
  for (const r of replicas) await startServer(r);
  log(`serving on ${replicas.map((r) => r.origin).join(', ')}`);
  await waitSearchable();
  const queries = readTsv(path.join(SCIFACT, 'queries.tsv')).map((q) => q.text);
  const cached = Array.from({ length: N_CACHED }, (_, i) => `${site.base}/p/${i}`);
  for (const url of cached) {
    const ok = await perform('setup', (r) => rest(r, 'POST', '/contents', { urls: [url], text: true }, (j) => j?.statuses?.[0]?.status === 'success')); // prettier-ignore
    if (!ok) throw new Error(`could not cache ${url}`);
  }
  const monitors = [];
  const makeMonitor = async (trigger) => {
    const body = { name: 'soak', search: { query: 'connection pool proxy', numResults: 5 }, webhook: { url: fixtures.receiver.url }, ...(trigger ? { trigger } : {}) }; // prettier-ignore
    const m = await perform('setup', (r) => rest(r, 'POST', '/monitors', body, (j) => j?.id && j.webhookSecret && j));
    if (!m) throw new Error('could not create a monitor');
    fixtures.receiver.secrets.push(m.webhookSecret);
    return m.id;
  };
  for (let i = 0; i < N_MONITORS; i++) monitors.push(await makeMonitor());
  const scheduled = await makeMonitor({ type: 'interval', period: '1h' });
  const probe = await request(`${replicas[0].origin}/metrics`, { dispatcher, headers: { 'x-api-key': key.value } });
  const probeText = await probe.body.text();
  metricsAvailable = probe.statusCode === 200 && /nodejs_eventloop_lag_p99_seconds/.test(probeText);
  log(metricsAvailable ? 'event-loop lag from /metrics and from /health probes' : `no /metrics (HTTP ${probe.statusCode}): event-loop delay from /health probes only`); // prettier-ignore
  stats.attempts.length = 0;
  stats.requests.length = 0;
  return { fixtures, cluster, site, queries, cached, monitors, scheduled };
}

async function waitSearchable() {
  const deadline = performance.now() + 300_000;
  for (const r of replicas) {
    for (;;) {
      const s = await rest(r, 'GET', '/status', undefined, (j) => j).catch(() => ({ ok: false }));
      const code = s.ok ? (s.value.index?.code?.chunks ?? 0) : 0;
      if (s.ok && (s.value.index?.searchable ?? 0) >= DOCS && code > 0) break;
      if (performance.now() > deadline) throw new Error(`replica ${r.index + 1} did not index ${DOCS} documents within 300 s`); // prettier-ignore
      await sleep(250);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// The run: each kind at its steady rate (open loop: a request starts on its tick whatever the others do),
// probes, per-minute samples, and the faults.

const faults = [];

async function injectFaults(cluster, durationMs) {
  const plan = [];
  if (FAULTS && cluster) plan.push({ at: durationMs / 3, kind: 'postgres-restart' });
  if (FAULTS) plan.push({ at: (2 * durationMs) / 3, kind: 'replica-kill' });
  for (const f of plan) {
    await sleep(Math.max(0, f.at - (now() - traffic.start)));
    if (traffic.stopped) return;
    const fault = { kind: f.kind, start: now() };
    faults.push(fault);
    if (f.kind === 'postgres-restart') {
      log('fault: pg_ctl restart -m fast');
      await cluster.restart();
      fault.done = now();
    } else {
      const victim = replicas[replicas.length - 1];
      await victim.restarting;
      victim.expectExit = true;
      fault.replica = victim.index + 1;
      log(`fault: SIGKILL replica ${victim.index + 1} (pid ${victim.child.pid})`);
      victim.child.kill('SIGKILL');
      await victim.child.exited;
      fault.killed = now();
      await startServer(victim);
      victim.expectExit = false;
      fault.done = now();
      log(`replica ${victim.index + 1} listening again after ${((fault.done - fault.start) / 1000).toFixed(1)} s`);
    }
  }
}

const traffic = { start: 0, stopped: false, inFlight: new Set() };

async function runTraffic(cluster, store) {
  const durationMs = MINUTES * 60_000;
  traffic.start = now();
  const timers = new Map(); // kind → its next tick
  for (const [kind, perSecond] of Object.entries(KINDS)) {
    const period = 1000 / (perSecond * RATE);
    let n = 0;
    let inFlight = 0;
    const tick = () => {
      if (traffic.stopped) return;
      if (inFlight >= IN_FLIGHT_CAP) stats.skipped[kind] = (stats.skipped[kind] ?? 0) + 1;
      else {
        inFlight++;
        const p = ops[kind](n++).finally(() => {
          inFlight--;
          traffic.inFlight.delete(p);
        });
        traffic.inFlight.add(p);
      }
      // the next tick on the schedule, not after this one: no drift, no catching up in bursts
      const next = traffic.start + Math.ceil((now() - traffic.start + 1) / period) * period;
      timers.set(kind, setTimeout(tick, Math.max(0, next - now())));
    };
    timers.set(kind, setTimeout(tick, Math.random() * period));
  }
  const probeTimer = setInterval(() => replicas.forEach((r) => probeHealth(r)), HEALTH_MS);
  const pullTimer = setInterval(() => pullSchedule(store), PULL_S * 1000);
  const faultsDone = injectFaults(cluster, durationMs);
  benchLoop.enable();
  const prevCpu = [];
  for (const r of replicas) prevCpu[r.index] = { pid: r.child.pid, ticks: procStats(r.child.pid).cpuTicks };
  let from = now();
  for (let i = 0; now() - traffic.start < durationMs; i++) {
    const to = Math.min(traffic.start + durationMs, traffic.start + (i + 1) * SAMPLE_S * 1000);
    await sleep(Math.max(0, to - now()));
    await takeSample(i, from, to, prevCpu);
    from = to;
  }
  traffic.stopped = true;
  for (const timer of timers.values()) clearTimeout(timer);
  await Promise.all(replicas.map((r) => r.restarting));
  clearInterval(probeTimer);
  clearInterval(pullTimer);
  await faultsDone;
  log(`traffic stopped; waiting for ${traffic.inFlight.size} requests in flight…`);
  await Promise.race([Promise.allSettled([...traffic.inFlight]), sleep(300_000)]);
}

// ---------------------------------------------------------------------------------------------------
// After the run: wait for the work to settle, then look every acknowledged effect up in the store.

const OPEN_RUN = "status IN ('queued', 'running')";
const OPEN_MONITOR_RUN = "status IN ('pending', 'running')";

async function settle(store, receiver) {
  const deadline = performance.now() + 240_000;
  for (;;) {
    // reading a task settles it (an agent-run task ends when its run has; a dead worker's task fails)
    for (const t of effects.tasks.filter((x) => !TERMINAL_TASK.has(x.status.split(' ')[0]))) await followTask(t, now(), 5_000, 'settle'); // prettier-ignore
    const [runs] = await store.all(`SELECT COUNT(*) AS n FROM agent_runs WHERE ${OPEN_RUN}`);
    const [mruns] = await store.all(`SELECT COUNT(*) AS n FROM monitor_runs WHERE ${OPEN_MONITOR_RUN}`);
    const [pending] = await store.all("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'");
    const [tasks] = await store.all("SELECT COUNT(*) AS n FROM mcp_tasks WHERE status NOT IN ('completed', 'failed', 'cancelled')"); // prettier-ignore
    // a slot made due just before the traffic stopped has no run until a replica claims it (its next poll)
    const [slot] = await store.all('SELECT next_run_ms FROM monitors WHERE id = ?', [inputs.scheduled]);
    const dueSlot = Number(slot.next_run_ms) <= Date.now() ? 1 : 0;
    const open = { agentRuns: Number(runs.n), monitorRuns: Number(mruns.n), deliveries: Number(pending.n), tasks: Number(tasks.n), dueSlot }; // prettier-ignore
    if (Object.values(open).every((v) => v === 0) || performance.now() > deadline) return { ...open, receiverEvents: receiver.events.size }; // prettier-ignore
    await sleep(1000);
  }
}

const countBy = (rows, f) => rows.reduce((m, r) => ((m[f(r)] = (m[f(r)] ?? 0) + 1), m), {});

async function checkStore(store, receiver) {
  const checks = [];
  const check = (name, ok, detail) => checks.push({ name, ok, detail });

  const runs = await store.all('SELECT id, status FROM agent_runs');
  const byId = new Map(runs.map((r) => [r.id, r.status]));
  const missing = effects.agentRuns.filter((id) => !byId.has(id));
  const open = runs.filter((r) => r.status === 'queued' || r.status === 'running');
  const taskRuns = (await store.all('SELECT run_id FROM mcp_tasks WHERE run_id IS NOT NULL')).length;
  check('agent runs: every 201 is in the store', missing.length === 0, `${effects.agentRuns.length} acknowledged over REST, ${missing.length} missing; ${runs.length} rows (${taskRuns} started by MCP tasks)`); // prettier-ignore
  check('agent runs: all ended', open.length === 0, `by status: ${JSON.stringify(countBy(runs, (r) => r.status))}`);

  const mruns = await store.all('SELECT id, monitor_id, origin, status, fail_reason FROM monitor_runs');
  const triggered = mruns.filter((r) => r.origin === 'trigger');
  const short = [...effects.triggers].filter(([id, n]) => triggered.filter((r) => r.monitor_id === id).length < n);
  const acknowledged = [...effects.triggers.values()].reduce((a, b) => a + b, 0);
  check('monitor runs: one per acknowledged trigger', short.length === 0, `${acknowledged} triggers acknowledged, ${triggered.length} triggered runs stored`); // prettier-ignore
  const scheduledRuns = mruns.filter((r) => r.origin === 'schedule').length;
  check('monitor runs: each due slot ran exactly once', scheduledRuns === effects.pulls, `${effects.pulls} slots made due (${effects.pullSkips} pulls skipped), ${scheduledRuns} scheduled runs`); // prettier-ignore
  check('monitor runs: all ended', !mruns.some((r) => r.status === 'pending' || r.status === 'running'), `by status: ${JSON.stringify(countBy(mruns, (r) => `${r.status}${r.fail_reason ? `/${r.fail_reason}` : ''}`))}`); // prettier-ignore

  const deliveries = await store.all('SELECT event_id, event_type, status FROM webhook_deliveries');
  const notReceived = deliveries.filter((d) => d.status === 'delivered' && !receiver.events.has(d.event_id));
  const unknown = [...receiver.events.keys()].filter((id) => !deliveries.some((d) => d.event_id === id));
  check('deliveries: every stored delivery delivered, and received with a valid signature', deliveries.every((d) => d.status === 'delivered') && notReceived.length === 0 && receiver.badSignatures === 0, `${deliveries.length} rows ${JSON.stringify(countBy(deliveries, (d) => d.status))}; receiver: ${receiver.events.size} events, ${receiver.duplicates} repeated (at least once), ${receiver.badSignatures} bad signatures, ${unknown.length} not in the store`); // prettier-ignore
  const ended = mruns.filter((r) => r.status === 'completed' || r.status === 'failed');
  const completedEvents = new Set([...receiver.events.values()].filter((e) => e.type === 'monitor.run.completed').map((e) => e.runId)); // prettier-ignore
  const silent = ended.filter((r) => !completedEvents.has(r.id));
  check('deliveries: every ended run sent monitor.run.completed', silent.length === 0, `${ended.length} ended runs, ${silent.length} without the event at the receiver`); // prettier-ignore

  const tasks = await store.all('SELECT id, tool, status FROM mcp_tasks');
  const taskIds = new Map(tasks.map((t) => [t.id, t.status]));
  // an ended task is kept its TTL after its end, then dropped by design (the next task written sweeps
  // it): only a task missing before that is lost. The server ended it before the client saw it end,
  // so a task seen ended more than its TTL ago has expired on the server too.
  const checkedAt = now();
  const absent = effects.tasks.filter((t) => !taskIds.has(t.taskId));
  const expired = absent.filter((t) => t.endedAt !== undefined && checkedAt - t.endedAt > TASK_TTL_MS);
  const lostTasks = absent.length - expired.length;
  check('MCP tasks: every created task is in the store, or ended and past its TTL', lostTasks === 0, `${effects.tasks.length} created: ${effects.tasks.length - absent.length} in the store, ${expired.length} ended over ${TASK_TTL_MS / 60_000} min ago and dropped at their TTL, ${lostTasks} lost`); // prettier-ignore
  check('MCP tasks: all ended', !tasks.some((t) => !TERMINAL_TASK.has(t.status)), `by tool/status: ${JSON.stringify(countBy(tasks, (t) => `${t.tool}/${t.status}`))}`); // prettier-ignore

  const fresh = new Set((await store.all("SELECT url FROM documents WHERE url LIKE ?", [`%/fresh/${RUN}-%`])).map((r) => r.url.slice(r.url.lastIndexOf('/') + 1))); // prettier-ignore
  const lostPages = effects.misses.filter((id) => !fresh.has(id));
  check(`contents: every page stored with success is in the store (${store.kind})`, lostPages.length === 0, `${effects.misses.length} stored, ${lostPages.length} missing`); // prettier-ignore
  if (REPLICAS > 1) {
    const { default: Database } = await import('better-sqlite3');
    for (const r of replicas) {
      const db = new Database(path.join(r.dataDir, 'trawl.sqlite'), { readonly: true });
      db.pragma('busy_timeout = 5000');
      const local = new Set(db.prepare('SELECT url FROM documents WHERE url LIKE ?').all(`%/fresh/${RUN}-%`).map((x) => x.url.slice(x.url.lastIndexOf('/') + 1))); // prettier-ignore
      db.close();
      const behind = effects.misses.filter((id) => !local.has(id));
      check(`contents: replica ${r.index + 1}'s own copy has every stored page`, behind.length === 0, `${behind.length} missing`); // prettier-ignore
    }
  }
  return checks;
}

// ---------------------------------------------------------------------------------------------------

/** Per fault: failed attempts from the fault on, and when the first success came after the last of them. */
function faultFigures(durationMs) {
  return faults.map((f, i) => {
    const until = faults[i + 1]?.start ?? traffic.start + durationMs + 300_000;
    const inWindow = stats.attempts.filter((a) => a.end >= f.start && a.end < until);
    const failed = inWindow.filter((a) => !a.ok);
    const lastFailure = failed.length ? Math.max(...failed.map((a) => a.end)) : f.start;
    const firstOk = inWindow
      .filter((a) => a.ok && a.end >= lastFailure)
      .map((a) => a.end)
      .sort((a, b) => a - b)[0];
    const victimOk = f.replica ? inWindow.filter((a) => a.ok && a.replica === f.replica - 1 && a.start >= f.start).map((a) => a.end).sort((a, b) => a - b)[0] : undefined; // prettier-ignore
    const gaveUp = stats.requests.filter((q) => !q.ok && q.end >= f.start && q.end < until);
    return {
      ...f,
      failedAttempts: failed.length,
      failedByKind: countBy(failed, (a) => a.kind),
      failedByWhy: countBy(failed, (a) => a.why),
      failedRequests: gaveUp.length,
      outageMs: failed.length ? lastFailure - Math.min(...failed.map((a) => a.start)) : 0,
      recoveredMs: firstOk === undefined ? NaN : firstOk - f.start,
      victimBackMs: victimOk === undefined ? undefined : victimOk - f.start,
    };
  });
}

async function main() {
  const machineBefore = machineLine();
  const loadBefore = os.loadavg();
  fs.mkdirSync(OUT, { recursive: true });
  const sdk = '@modelcontextprotocol/sdk';
  Object.assign(mcp, {
    Client: (await import(`${sdk}/client/index.js`)).Client,
    Transport: (await import(`${sdk}/client/streamableHttp.js`)).StreamableHTTPClientTransport,
    ...(await import(`${sdk}/types.js`)),
  });
  const setup = await setUp();
  inputs = setup;
  const store = await openStore(setup.cluster);
  log(`${MINUTES} min of traffic (rate ×${RATE}${FAULTS ? ', with faults' : ''}); output in ${OUT}`);
  await runTraffic(setup.cluster, store);
  log('settling: waiting for runs, tasks and deliveries to end…');
  const settled = await settle(store, setup.fixtures.receiver);
  const checks = await checkStore(store, setup.fixtures.receiver);
  await store.close();
  const loadAfter = os.loadavg();
  const durationMs = MINUTES * 60_000;
  const totals = {};
  for (const kind of allKinds()) {
    const done = stats.requests.filter((q) => q.kind === kind);
    const lat = done
      .filter((q) => q.ok)
      .map((q) => q.end - q.start)
      .sort((a, b) => a - b);
    totals[kind] = { n: done.length, ok: lat.length, p50: percentile(lat, 50), p99: percentile(lat, 99), max: lat.at(-1) ?? NaN, failedAttempts: stats.attempts.filter((a) => a.kind === kind && !a.ok).length, failed: done.length - lat.length, retried: done.filter((q) => q.tries > 1).length, skipped: stats.skipped[kind === 'mcp_task_start' ? 'mcp_task' : kind] ?? 0, why: countBy(done.filter((q) => !q.ok), (q) => q.why) }; // prettier-ignore
  }
  shutdown.now = true;
  await Promise.all(replicas.map((r) => r.restarting));
  for (const r of replicas) {
    r.expectExit = true;
    await stopChild(r.child, 10_000);
  }
  const logWarnings = replicas.map((r) => fs.readFileSync(r.logFile, 'utf8').split('\n').filter((l) => /"level":(4|5|6)\d/.test(l)).length); // prettier-ignore
  const result = {
    command: `node bench/soak.mjs ${args.join(' ')}`.trim(),
    machine: { before: machineBefore, after: machineLine(), cpu: os.cpus()[0]?.model?.trim(), cores: os.availableParallelism(), loadBefore, loadAfter }, // prettier-ignore
    config: { minutes: MINUTES, replicas: REPLICAS, store: setup.cluster ? 'PostgreSQL 15 (private cluster)' : 'SQLite', rate: RATE, ratesPerSecond: Object.fromEntries(Object.entries(KINDS).map(([k, v]) => [k, v * RATE])), faults: FAULTS, docs: DOCS, leaseMs: LEASE_MS, taskTtlMs: TASK_TTL_MS, sampleSeconds: SAMPLE_S, metricsAvailable }, // prettier-ignore
    samples,
    totals,
    contentsSources: stats.contentsSources,
    faults: faultFigures(durationMs),
    crashes,
    settled,
    checks,
    fixtures: { siteHits: setup.site.hits, searxngSearches: setup.fixtures.searxng.counts.searches, modelCalls: setup.fixtures.model.counts.calls, webhookHits: setup.fixtures.receiver.hits }, // prettier-ignore
    logWarnings,
    replicaPids: replicas.map((r) => r.pids),
  };
  fs.writeFileSync(path.join(OUT, 'soak.json'), JSON.stringify({ ...result, attempts: stats.attempts, requests: stats.requests, health }, null, 1)); // prettier-ignore
  const md = writeReport(OUT, result);
  console.log(md);
  setup.cluster?.stop();
  await Promise.all([setup.site.close(), setup.fixtures.searxng.close(), setup.fixtures.model.close(), setup.fixtures.receiver.close()]); // prettier-ignore
  await dispatcher.close();
  process.exit(checks.every((c) => c.ok) ? 0 : 1);
}

await main();
