// Start-up benchmarks: `trawl mcp` cold start (spawn → MCP initialize answered, then the first tools/list
// and tools/call) side by side with a bare server of the same MCP SDK (v2), in alternating runs; `trawl serve` start →
// first GET /health 200, and idle RSS of `trawl serve`, each next to a plain-Node baseline.
// Goals (issue 19): initialize ≤ 1.1× the bare server's median, first tools/list ≤ 1.1× its + 2 ms.
// Usage: npm run build && node bench/startup.mjs
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BARE_HONO_SERVER,
  BARE_HTTP_SERVER,
  CLI,
  ROOT,
  childEnv,
  fmt,
  freePort,
  hammer,
  machineLine,
  makeTmpDir,
  mdTable,
  memoryMB,
  ratio,
  removeTmpDir,
  requireBuild,
  spawnTracked,
  stopChild,
  summarize,
  trackPid,
  untrackPid,
  waitFor200,
} from './lib.mjs';

const MCP_RUNS = 20; // per kind, alternating: bare, trawl (existing data dir), trawl (fresh data dir), ...
const SERVE_RUNS = 10;
const CONNECT_TIMEOUT_MS = 15000;
const INIT_GOAL_RATIO = 1.1; // trawl mcp initialize median ≤ this × the bare server's
const LIST_GOAL = { ratio: 1.1, plusMs: 2 }; // first tools/list median ≤ ratio × the bare server's + plusMs

/**
 * The smallest MCP stdio server the SDK allows (one tool), as a floor for `trawl mcp`: the same SDK (v2,
 * `@modelcontextprotocol/server`) and the same entry, `serveStdio`, which serves both protocol eras.
 */
const BARE_MCP_SERVER = `
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
serveStdio(() => {
  const server = new McpServer({ name: 'bare', version: '0.0.0' });
  server.registerTool('ping', { description: 'ping' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
  return server;
});
`;

function withTimeout(promise, ms, what) {
  return Promise.race([
    promise,
    sleep(ms, undefined, { ref: false }).then(() => {
      throw new Error(`${what}: timed out after ${ms} ms`);
    }),
  ]);
}

// ---------------------------------------------------------------------------------------------------
// a. MCP cold start

/**
 * One MCP stdio run: spawn, `initialize` (client.connect), then tools/list, optional idle RSS, then close
 * (stdin EOF → exit). Times are in ms.
 */
async function mcpRun(args, { idleMs = 0 } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: childEnv(),
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    if (stderr.length < 4000) stderr += chunk;
  });
  const client = new Client({ name: 'trawl-bench', version: '0.0.0' });
  let pid = null;
  try {
    const t0 = performance.now();
    const connecting = client.connect(transport);
    // transport.pid exists once the child is spawned (synchronously inside connect → start).
    void sleep(0).then(() => {
      pid = transport.pid;
      trackPid(pid);
    });
    await withTimeout(connecting, CONNECT_TIMEOUT_MS, 'MCP initialize');
    const initMs = performance.now() - t0;
    pid = transport.pid;
    trackPid(pid);
    // tools/list via client.request, not client.listTools(): the latter also compiles an Ajv validator per
    // tool output schema on the client side, which is not the server's time.
    const listTools = () => client.request({ method: 'tools/list' }, ListToolsResultSchema);
    const l0 = performance.now();
    const { tools } = await withTimeout(listTools(), CONNECT_TIMEOUT_MS, 'tools/list');
    const listMs = performance.now() - l0;
    const l1 = performance.now();
    await withTimeout(listTools(), CONNECT_TIMEOUT_MS, 'tools/list');
    const relistMs = performance.now() - l1;
    // a call the server must run (trawl: a search its schema refuses, answered by the door)
    const call = tools.some((t) => t.name === 'search')
      ? { name: 'search', arguments: { query: 'x', numResults: 0 } }
      : { name: tools[0].name, arguments: {} };
    const c1 = performance.now();
    await withTimeout(client.request({ method: 'tools/call', params: call }, CallToolResultSchema), CONNECT_TIMEOUT_MS, 'tools/call'); // prettier-ignore
    const callMs = performance.now() - c1;
    let mem = null;
    if (idleMs > 0) {
      await sleep(idleMs);
      mem = memoryMB(pid);
    }
    const c0 = performance.now();
    await client.close(); // ends stdin; SIGTERM after 2 s, SIGKILL after 4 s
    const closeMs = performance.now() - c0;
    return { initMs, listMs, relistMs, callMs, closeMs, tools: tools.length, mem };
  } catch (err) {
    await transport.close().catch(() => {});
    throw new Error(`${err.message}\nstderr: ${stderr}`);
  } finally {
    if (pid) untrackPid(pid);
  }
}

/** spawn → exit of a process (baseline `node -e`). */
async function spawnToExit(args) {
  const t0 = performance.now();
  const child = spawnTracked(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
  child.stdout.resume();
  const { code } = await withTimeout(child.exited, CONNECT_TIMEOUT_MS, 'node -e');
  if (code !== 0) throw new Error(`node -e exited with ${code}`);
  return performance.now() - t0;
}

async function repeat(n, fn) {
  await fn(-1); // warm-up, not counted
  const out = [];
  for (let i = 0; i < n; i++) out.push(await fn(i));
  return out;
}

/**
 * `n` rounds of every kind in `kinds` ({name: fn}), alternating (the order rotates each round, so no kind
 * always follows the same one), after one uncounted warm-up round. Returns {name: results[]}.
 */
async function alternate(n, kinds) {
  const names = Object.keys(kinds);
  const out = Object.fromEntries(names.map((k) => [k, []]));
  for (let round = -1; round < n; round++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(Math.max(round, 0) + j) % names.length];
      const result = await kinds[name](round);
      if (round >= 0) out[name].push(result);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// b./c. HTTP servers: spawn → first 200, SIGTERM → exit, idle RSS

/** Spawns an HTTP server on a fresh port and times spawn → first 200 on `urlPath` (polled every 5 ms). */
async function httpStart(kind, dataDir, logLevel = 'warn') {
  const port = await freePort();
  const { args, urlPath } = httpCommand(kind, port, dataDir, logLevel);
  const t0 = performance.now();
  const child = spawnTracked(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: ROOT });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    if (stderr.length < 4000) stderr += chunk;
  });
  try {
    const t1 = await waitFor200(port, urlPath, { intervalMs: 5, timeoutMs: CONNECT_TIMEOUT_MS, child });
    return { child, port, startMs: t1 - t0, stderr: () => stderr };
  } catch (err) {
    await stopChild(child);
    throw new Error(`${kind}: ${err.message}\nstderr: ${stderr}`);
  }
}

function httpCommand(kind, port, dataDir, logLevel) {
  switch (kind) {
    case 'trawl':
      return {
        args: [CLI, 'serve', '--port', String(port), '--data-dir', dataDir, '--log-level', logLevel],
        urlPath: '/health',
      };
    case 'http':
      return { args: ['-e', BARE_HTTP_SERVER, String(port)], urlPath: '/health' };
    case 'hono':
      return { args: ['--input-type=module', '-e', BARE_HONO_SERVER, String(port)], urlPath: '/health' };
    default:
      throw new Error(kind);
  }
}

async function httpStartStop(kind, dataDir) {
  const { child, startMs, stderr } = await httpStart(kind, dataDir);
  const stopMs = await stopChild(child, 5000);
  const { code, signal } = await child.exited;
  if (kind === 'trawl' && code !== 0) throw new Error(`trawl serve exited ${code ?? signal}\n${stderr()}`);
  return { startMs, stopMs };
}

async function idleMemory(kind, dataDir) {
  const { child, port } = await httpStart(kind, dataDir);
  try {
    await sleep(2000);
    const idle = memoryMB(child.pid);
    const counts = await hammer(port, '/health', 1000, 10);
    if ((counts[200] ?? 0) !== 1000) throw new Error(`${kind}: /health x1000 gave ${JSON.stringify(counts)}`);
    await sleep(500);
    const after = memoryMB(child.pid);
    return { idle: idle.rss, after: after.rss, hwm: after.hwm };
  } finally {
    await stopChild(child, 5000);
  }
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  requireBuild();
  const started = performance.now();
  const rows = [];
  const row = (label, values, baseline, baselineName) => {
    const s = summarize(values);
    rows.push([
      label,
      s.n,
      fmt(s.median),
      fmt(s.p90),
      fmt(s.min),
      fmt(s.max),
      baseline ? `${ratio(s.median, baseline)} ${baselineName}` : '1.00× (baseline)',
    ]);
    return s;
  };
  const mcpArgs = (dir) => [CLI, 'mcp', '--data-dir', dir, '--log-level', 'silent'];

  // a. MCP cold start
  process.stderr.write('startup: node -e baseline…\n');
  const nodeE = row(
    'baseline: `node -e` print + exit (spawn → exit)',
    await repeat(MCP_RUNS, () => spawnToExit(['-e', 'console.log("ok")'])),
  );
  process.stderr.write('startup: bare MCP SDK server and trawl mcp, alternating…\n');
  const mcpDir = makeTmpDir('trawl-bench-mcp-'); // the warm-up round migrates it
  const runs = await alternate(MCP_RUNS, {
    bare: () => mcpRun(['--input-type=module', '-e', BARE_MCP_SERVER]),
    existing: () => mcpRun(mcpArgs(mcpDir)),
    fresh: async () => {
      const dir = makeTmpDir('trawl-bench-mcp-');
      try {
        return await mcpRun(mcpArgs(dir));
      } finally {
        removeTmpDir(dir);
      }
    },
  });
  const { bare: bareMcp, existing, fresh } = runs;
  const bareMcpInit = row(
    'baseline: bare MCP SDK stdio server (spawn → initialize)',
    bareMcp.map((r) => r.initMs),
    nodeE.median,
    'node -e',
  );
  const mcpFresh = row(
    '**trawl mcp, fresh data dir** (spawn → initialize)',
    fresh.map((r) => r.initMs),
    nodeE.median,
    'node -e',
  );
  rows[rows.length - 1][6] += `, ${ratio(mcpFresh.median, bareMcpInit.median)} bare MCP SDK`;
  const mcpExisting = row(
    '**trawl mcp, existing data dir** (spawn → initialize)',
    existing.map((r) => r.initMs),
    nodeE.median,
    'node -e',
  );
  rows[rows.length - 1][6] += `, ${ratio(mcpExisting.median, bareMcpInit.median)} bare MCP SDK`;
  const bareList = row(
    'baseline: bare MCP SDK server, first tools/list round trip (1 tool)',
    bareMcp.map((r) => r.listMs),
  ).median;
  const trawlList = row(
    '**trawl mcp: first tools/list round trip** (after initialize)',
    existing.map((r) => r.listMs),
    bareList,
    'bare MCP',
  ).median;
  row(
    'trawl mcp: second tools/list round trip',
    existing.map((r) => r.relistMs),
    bareList,
    'bare MCP',
  );
  const bareCall = row(
    'baseline: bare MCP SDK server, first tools/call round trip (ping)',
    bareMcp.map((r) => r.callMs),
  ).median;
  row(
    'trawl mcp: first tools/call round trip (a refused search; opens the door)',
    existing.map((r) => r.callMs),
    bareCall,
    'bare MCP',
  );
  row(
    'trawl mcp close (stdin EOF → exit)',
    existing.map((r) => r.closeMs),
    summarize(bareMcp.map((r) => r.closeMs)).median,
    'bare MCP',
  );
  const toolCount = existing[0].tools;

  // b. serve start → /health
  process.stderr.write('startup: bare node:http / Hono servers…\n');
  const bareHttp = await repeat(SERVE_RUNS, () => httpStartStop('http'));
  const bareHttpStart = row(
    'baseline: bare `node:http` server (spawn → first 200)',
    bareHttp.map((r) => r.startMs),
  );
  const bareHono = await repeat(SERVE_RUNS, () => httpStartStop('hono'));
  row(
    'baseline: bare Hono + @hono/node-server (spawn → first 200)',
    bareHono.map((r) => r.startMs),
    bareHttpStart.median,
    'node:http',
  );
  process.stderr.write('startup: trawl serve, fresh data dirs…\n');
  const serveFresh = await repeat(SERVE_RUNS, async () => {
    const dir = makeTmpDir('trawl-bench-serve-');
    try {
      return await httpStartStop('trawl', dir);
    } finally {
      removeTmpDir(dir);
    }
  });
  row(
    '**trawl serve, fresh data dir** (spawn → /health 200)',
    serveFresh.map((r) => r.startMs),
    bareHttpStart.median,
    'node:http',
  );
  process.stderr.write('startup: trawl serve, existing data dir…\n');
  const serveDir = makeTmpDir('trawl-bench-serve-');
  const serveExisting = await repeat(SERVE_RUNS, () => httpStartStop('trawl', serveDir));
  const serveExistingStart = row(
    '**trawl serve, existing data dir** (spawn → /health 200)',
    serveExisting.map((r) => r.startMs),
    bareHttpStart.median,
    'node:http',
  );
  row(
    'trawl serve SIGTERM → exit',
    serveExisting.map((r) => r.stopMs),
    summarize(bareHttp.map((r) => r.stopMs)).median,
    'node:http',
  );

  // c. idle RSS
  process.stderr.write('startup: idle RSS…\n');
  const memHttp = await idleMemory('http');
  const memHono = await idleMemory('hono');
  const memTrawl = await idleMemory('trawl', serveDir);
  const mcpMem = (await mcpRun(mcpArgs(mcpDir), { idleMs: 2000 })).mem;
  const bareMcpMem = (await mcpRun(['--input-type=module', '-e', BARE_MCP_SERVER], { idleMs: 2000 })).mem;
  removeTmpDir(mcpDir);
  removeTmpDir(serveDir);

  const memRows = [
    ['baseline: bare `node:http` server', fmt(memHttp.idle), fmt(memHttp.after), fmt(memHttp.hwm), '1.00× (baseline)'],
    [
      'baseline: bare Hono + @hono/node-server',
      fmt(memHono.idle),
      fmt(memHono.after),
      fmt(memHono.hwm),
      ratio(memHono.idle, memHttp.idle),
    ],
    ['**trawl serve**', fmt(memTrawl.idle), fmt(memTrawl.after), fmt(memTrawl.hwm), ratio(memTrawl.idle, memHttp.idle)],
    [
      'baseline: bare MCP SDK stdio server',
      fmt(bareMcpMem.rss),
      '–',
      fmt(bareMcpMem.hwm),
      ratio(bareMcpMem.rss, memHttp.idle),
    ],
    [
      'trawl mcp (after initialize + tools/list)',
      fmt(mcpMem.rss),
      '–',
      fmt(mcpMem.hwm),
      ratio(mcpMem.rss, memHttp.idle),
    ],
  ];

  const lines = [];
  lines.push('## Start-up (bench/startup.mjs)');
  lines.push('');
  lines.push(machineLine());
  lines.push('');
  lines.push(
    `Latency in ms; ${MCP_RUNS} runs per MCP row (the bare server and trawl mcp alternating, run by run), ` +
      `${SERVE_RUNS} per HTTP row, each after 1 uncounted warm-up. HTTP readiness is polled every 5 ms. Ratios compare medians.`,
  );
  lines.push('');
  lines.push(mdTable(['measurement', 'runs', 'median', 'p90', 'min', 'max', 'median vs baseline'], rows));
  lines.push('');
  const initRatio = Math.max(mcpFresh.median, mcpExisting.median) / bareMcpInit.median;
  const listGoalMs = LIST_GOAL.ratio * bareList + LIST_GOAL.plusMs;
  const initMet = initRatio <= INIT_GOAL_RATIO;
  const listMet = trawlList <= listGoalMs;
  lines.push(
    `trawl mcp lists ${toolCount} tools. Goals: initialize ≤ ${INIT_GOAL_RATIO}× the bare server's median ` +
      `(${fmt(initRatio, 2)}×, the slower of fresh and existing: ${initMet ? 'met' : 'MISSED'}); first tools/list ≤ ` +
      `${LIST_GOAL.ratio}× + ${LIST_GOAL.plusMs} ms = ${fmt(listGoalMs)} ms (${fmt(trawlList)} ms: ${listMet ? 'met' : 'MISSED'}).`,
  );
  lines.push('');
  lines.push('Memory in MB (VmRSS from /proc/<pid>/status after 2 s idle; then after 1000 GET /health, 10 at a time).');
  lines.push('');
  lines.push(
    mdTable(['process', 'RSS idle', 'RSS after 1000 /health', 'peak RSS (VmHWM)', 'idle vs node:http'], memRows),
  );
  lines.push('');
  lines.push(`(took ${fmt((performance.now() - started) / 1000, 0)} s)`);
  lines.push('');
  lines.push(
    `mcp_init_ratio=${fmt(initRatio, 2)} (goal<=${INIT_GOAL_RATIO}:${initMet ? 'met' : 'MISSED'}) ` +
      `mcp_init_median_ms=${fmt(mcpFresh.median)} (fresh) ${fmt(mcpExisting.median)} (existing) bare=${fmt(bareMcpInit.median)} ` +
      `mcp_tools_list_ms=${fmt(trawlList)} (goal<=${fmt(listGoalMs)}:${listMet ? 'met' : 'MISSED'}) ` +
      `serve_health_median_ms=${fmt(serveExistingStart.median)} serve_idle_rss_mb=${fmt(memTrawl.idle)}`,
  );
  console.log(lines.join('\n'));
}

await main();
process.exit(0);
