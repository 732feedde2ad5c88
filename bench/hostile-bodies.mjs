// Hostile bodies (issue 32, items 4 and 9, row 3): the worst 4 MiB shape of each route (many unknown keys
// at the top and nested under `summary`, `text`, `highlights`, `extras`, `trigger`, `metadata`, MCP
// `tools/call` arguments; long arrays, many objects, a long string), and the worst shapes that pass the
// body limits (unknown keys just under 10,000 per object, arrays just under 200,000 values), each sent to a
// fresh `trawl serve` (silent logs, temp data dir, no rate limit) of this build and, with --baseline, of
// another build side by side. Per shape: the answer (status, tag), its time (median of --reps), the
// server's CPU time for it (/proc utime+stime, 10 ms ticks), and GET /health every 10 ms meanwhile (its
// max latency). A baseline answer slower than --timeout s is cut (the server is restarted) and shown as
// "> N s". The budget: every answer ≤ 250 ms, /health ≤ 50 ms meanwhile.
//
//   npm run build && node bench/hostile-bodies.mjs [--baseline /work/wt-base] [--reps 3] [--timeout 20]
/* global AbortSignal */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, HOST, fmt, freePort, machineLine, makeTmpDir, mdTable, ratio, spawnTracked, stopChild, summarize, waitFor200 } from './lib.mjs'; // prettier-ignore

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const baselineRoot = opt('--baseline', undefined);
const REPS = Number(opt('--reps', '3'));
const TIMEOUT_S = Number(opt('--timeout', '20'));
const BUDGET_MS = 250;
const HEALTH_BUDGET_MS = 50;
/** The default TRAWL_MAX_BODY_BYTES, less a little room for each shape's closing text. */
const FILL = 4 * 1024 * 1024 - 256;

/** `head` + `"k0":1,"k1":1,…` (until the text is `bytes` long, or `count` keys) + `tail`. */
function keys(head, tail, { bytes = FILL, count = Infinity } = {}) {
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; i < count && size < bytes - 16; i++) {
    const part = `${i ? ',' : ''}"k${i}":1`;
    parts.push(part);
    size += part.length;
  }
  parts.push(tail);
  return parts.join('');
}
/** `head` + `[item,item,…]` filling the body + `tail`. */
function list(head, item, tail, count = Infinity) {
  const n = Math.min(count, Math.floor((FILL - head.length - tail.length) / (item.length + 1)));
  return `${head}[${Array(n).fill(item).join(',')}]${tail}`;
}
const UNDER = { count: 9_999 };
const tool = (name, args) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`; // prettier-ignore

/** [name, path, body text]: the worst shapes per route, then those just under the limits. */
const SHAPES = [
  ['/search, unknown keys at the top', '/search', keys('{"query":"x",', '}')],
  ['/search, unknown keys in contents.summary', '/search', keys('{"query":"x","contents":{"summary":{', '}}}')],
  ['/search, unknown keys in contents.text', '/search', keys('{"query":"x","contents":{"text":{', '}}}')],
  ['/search, unknown keys in contents.highlights', '/search', keys('{"query":"x","contents":{"highlights":{', '}}}')], // prettier-ignore
  ['/contents, unknown keys in extras', '/contents', keys('{"urls":["https://a.example/"],"extras":{', '}}')],
  ['/contents, 4 MiB of urls', '/contents', list('{"urls":', '"https://a.example/"', '}')],
  ['/findSimilar, unknown keys at the top', '/findSimilar', keys('{"url":"https://a.example/",', '}')],
  ['/context, unknown keys at the top', '/context', keys('{"query":"x",', '}')],
  ['/answer, unknown keys at the top', '/answer', keys('{"query":"x",', '}')],
  ['/monitors, unknown keys in trigger', '/monitors', keys('{"search":{"query":"x"},"trigger":{"type":"cron","expression":"0 * * * *",', '}}')], // prettier-ignore
  ['/monitors, 4 MiB of metadata keys', '/monitors', keys('{"search":{"query":"x"},"metadata":{', '}}')],
  ['/agent/runs, 4 MiB of input.data rows', '/agent/runs', list('{"query":"x","input":{"data":', '{"a":1}', '}}')],
  ['/admin/teams, unknown keys at the top', '/admin/teams', keys('{"name":"t",', '}')],
  ['/mcp tools/call search, unknown argument keys', '/mcp', keys(tool('search', '{"query":"x",').slice(0, -2), '}}}')], // prettier-ignore
  ['/search, one 4 MiB string', '/search', `{"query":"${'x'.repeat(FILL - 16)}"}`],
  ['/search, 9,999 unknown keys (under the limit)', '/search', keys('{"query":"x",', '}', UNDER)],
  ['/search, 9,999 unknown keys × 4 objects (under)', '/search', keys(keys(keys(keys('{"query":"x","contents":{"summary":{', '},"text":{', UNDER), '},"highlights":{', UNDER), '},"extras":{', UNDER), '}},', UNDER).slice(0, -1) + '}'], // prettier-ignore
  ['/contents, 199,990 numbers in urls (under)', '/contents', list('{"urls":', '1', '}', 199_990)],
  ['/contents, 19,990 objects in urls (under)', '/contents', list('{"urls":', '{}', '}', 19_990)],
  ['/mcp tools/call search, 9,999 unknown keys (under)', '/mcp', keys(tool('search', '{"query":"x",').slice(0, -2), '}}}', UNDER)], // prettier-ignore
];

/** CPU time (user + system) of process `pid` so far, in ms (Linux /proc; 10 ms ticks). */
function cpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

async function startServer(root) {
  const cli = root ? path.join(root, 'dist', 'bin', 'cli.js') : CLI;
  const dir = makeTmpDir();
  const port = await freePort();
  const child = spawnTracked(process.execPath, [cli, 'serve', '--port', String(port), '--data-dir', dir, '--log-level', 'silent']); // prettier-ignore
  await waitFor200(port, '/health', { child, timeoutMs: 60_000 });
  const key = fs.readFileSync(path.join(dir, 'first-api-key'), 'utf8').trim();
  return { child, port, key, stop: () => stopChild(child, 1000) };
}

/**
 * GET /health every 10 ms until `until` (the answer) settles; the max latency. A poll still waiting when
 * the answer is cut (the server blocked) is abandoned and counts as ∞.
 */
async function healthMax(port, until) {
  let done = false;
  let max = 0;
  const settled = new AbortController();
  void until.then((answer) => {
    done = true;
    if (answer.status === 0) settled.abort();
  });
  while (!done) {
    const t0 = performance.now();
    try {
      await fetch(`http://${HOST}:${port}/health`, { signal: settled.signal }).then((r) => r.text());
      max = Math.max(max, performance.now() - t0);
    } catch {
      max = Infinity;
    }
    await sleep(10);
  }
  return max;
}

/** One request of `shape`; its answer, time, the server's CPU time, /health's max latency meanwhile. */
async function once(server, [, route, text]) {
  const headers = { 'content-type': 'application/json', 'x-api-key': server.key, accept: 'application/json, text/event-stream' }; // prettier-ignore
  const cpu0 = cpuMs(server.child.pid);
  const t0 = performance.now();
  const answer =
    fetch(`http://${HOST}:${server.port}${route}`, { method: 'POST', headers, body: text, signal: AbortSignal.timeout(TIMEOUT_S * 1000) }) // prettier-ignore
      .then(async (r) => {
        const body = await r.json().catch(() => ({}));
        return { status: r.status, tag: body.tag ?? body.error?.data?.tag ?? (body.error ? '{error}' : ''), error: String(body.error?.message ?? body.error ?? '') }; // prettier-ignore
      })
      .catch(() => ({ status: 0, tag: 'timeout' }));
  const health = await healthMax(server.port, answer);
  const result = await answer;
  return { ...result, ms: performance.now() - t0, cpu: cpuMs(server.child.pid) - cpu0, health };
}

/** Every shape against the build at `root`: medians of `reps`; a cut answer restarts the server. */
async function measure(root, reps) {
  let server = await startServer(root);
  const out = [];
  for (const shape of SHAPES) {
    const runs = [];
    for (let i = 0; i < reps; i++) {
      const run = await once(server, shape);
      runs.push(run);
      if (run.status === 0) {
        await server.stop();
        server = await startServer(root);
        break;
      }
    }
    const cut = runs.some((r) => r.status === 0);
    out.push({
      answer: cut ? `> ${TIMEOUT_S} s` : `${runs[0].status} ${runs[0].tag}`,
      error: runs[0].error ?? '',
      ms: cut ? Infinity : summarize(runs.map((r) => r.ms)).median,
      cpu: cut ? Infinity : summarize(runs.map((r) => r.cpu)).median,
      health: Math.max(...runs.map((r) => r.health)),
    });
  }
  await server.stop();
  return out;
}

const wall = (n) => (n === Infinity ? `> ${TIMEOUT_S * 1000}` : fmt(n, 0));
console.log(`# Hostile bodies: the worst 4 MiB shape of each route\n\n${machineLine()}\n`);
const current = await measure(undefined, REPS);
const base = baselineRoot ? await measure(path.resolve(baselineRoot), 1) : undefined;
const rows = SHAPES.map(([name, , text], i) => {
  const c = current[i];
  const row = [name, fmt(text.length / 1024 / 1024, 2), c.answer, wall(c.ms), wall(c.cpu), fmt(c.health, 0)];
  if (base) row.push(base[i].answer, wall(base[i].ms), wall(base[i].cpu), fmt(base[i].health, 0), ratio(base[i].ms, c.ms)); // prettier-ignore
  return row;
});
const headers = ['shape', 'MiB', 'answer', 'ms (median)', 'server CPU ms', '/health max ms'];
if (base) headers.push('baseline answer', 'baseline ms', 'baseline CPU ms', 'baseline /health max ms', 'speed-up');
console.log(`This build: median of ${REPS}${base ? `; baseline (${baselineRoot}): one run each, cut after ${TIMEOUT_S} s` : ''}. Budget: ≤ ${BUDGET_MS} ms per answer, /health ≤ ${HEALTH_BUDGET_MS} ms meanwhile.\n`); // prettier-ignore
console.log(mdTable(headers, rows));
console.log('\nMessages (this build):\n');
for (const [i, [name]] of SHAPES.entries()) console.log(`- ${name}: ${current[i].error.slice(0, 220)}`);
const worstMs = Math.max(...current.map((c) => c.ms));
const worstCpu = Math.max(...current.map((c) => c.cpu));
const worstHealth = Math.max(...current.map((c) => c.health));
console.log(`\nhostile_worst_ms=${fmt(worstMs, 0)} hostile_worst_cpu_ms=${fmt(worstCpu, 0)} hostile_health_max_ms=${fmt(worstHealth, 0)}`); // prettier-ignore
