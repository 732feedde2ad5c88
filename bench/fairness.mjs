// Fair queueing (issue 32, row 5): team A floods a slow host, team B reads a fast page of the same host.
// For each build, a fresh `trawl serve` (warn logs, temp data dir, the default 16 live fetches at once and
// 6 per host) and a loopback site in this process: `/slow` answers after SLOW_MS, `/fast` at once.
//   - B alone: B's `/contents` of a fast page, REPS times one after the other (its latency with no flood);
//   - the flood: A keeps 8 `/contents` of 6 slow pages each in flight (its key's in-flight limit: 48 live
//     fetches of one host) for FLOOD_S seconds, while B asks for a fast page every 500 ms (one at a time,
//     `livecrawlTimeout` 10 s): B's p50 / p95 / max latency, how many of B's pages came back (not
//     CRAWL_LIVECRAWL_TIMEOUT), how many were reported queued (`x-svc-queued: true`), and A's throughput
//     (slow pages read per second over the flood);
//   - the flood as MCP tasks (the issue's case), 3 rounds: A starts 24 `get_contents` tasks of 2 slow pages
//     each at once over MCP (streamable HTTP), and 500 ms later B calls `get_contents` for a fast page: A's
//     tasks accepted, B's latency (median, max), B's answers that say they queued, and A's pages per
//     second until its accepted tasks ended.
//
//   npm run build && node bench/fairness.mjs [--baseline DIR] [--checkout DIR] [--flood-s 20] [--slow-ms 1000]
//
// --baseline DIR measures another built checkout too (main before this work), side by side with ratios.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
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
  percentile,
  ratio,
  spawnTracked,
  stopChild,
  summarize,
  waitFor200,
} from './lib.mjs';

const { args, opt, checkout, baseline } = benchOptions();
const FLOOD_S = Number(opt('--flood-s', '20'));
const SLOW_MS = Number(opt('--slow-ms', '1000'));
const REPS = 10;
const A_REQUESTS = 8;
const A_URLS = 6;
const A_TASKS = 24;
const MCP_ROUNDS = 3;
const COMMAND = `npm run build && node bench/fairness.mjs${args.length ? ` ${args.join(' ')}` : ''}`;

/** The loopback site: `/slow` after SLOW_MS, `/fast` at once; robots.txt 404 (allow all). */
function startSite() {
  const page = (title) => `<html><head><title>${title}</title></head><body><p>The ${title} page.</p></body></html>`;
  const server = http.createServer((req, res) => {
    const answer = (title) => res.writeHead(200, { 'content-type': 'text/html' }).end(page(title));
    const { pathname } = new URL(req.url ?? '/', 'http://x');
    if (pathname === '/slow') setTimeout(() => answer('slow'), SLOW_MS);
    else if (pathname === '/fast') answer('fast');
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, HOST, () => resolve({ server, base: `http://${HOST}:${server.address().port}` }))); // prettier-ignore
}

async function startTrawl(root) {
  const cli = path.join(root, 'dist', 'bin', 'cli.js');
  if (!fs.existsSync(cli)) throw new Error(`${cli} not found: run npm run build in ${root}`);
  const dataDir = makeTmpDir('trawl-bench-fair-');
  const env = childEnv({ TRAWL_PRIVATE_ALLOWLIST: HOST });
  const trawl = (...a) => execFileSync(process.execPath, [cli, ...a, '--data-dir', dataDir], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 }).trim(); // prettier-ignore
  const keys = {};
  for (const team of ['team-a', 'team-b']) {
    trawl('teams', 'create', team);
    keys[team] = trawl('keys', 'create', '--name', team, '--team', team);
  }
  const port = await freePort();
  const child = spawnTracked(process.execPath, [cli, 'serve', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'], { stdio: 'ignore', cwd: root, env }); // prettier-ignore
  await waitFor200(port, '/health', { intervalMs: 10, timeoutMs: 30_000, child });
  return { child, port, keys, agent: new Agent({ keepAliveTimeout: 60_000, connections: 64 }) };
}

let seq = 0;
/** POST /contents of `urls` (live) with `key`: time to answer, statuses, and the queue header. */
async function contents(trawl, key, urls, livecrawlTimeout) {
  const t0 = performance.now();
  const res = await request(`http://${HOST}:${trawl.port}/contents`, {
    dispatcher: trawl.agent,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ urls, maxAgeHours: 0, livecrawlTimeout }),
    headersTimeout: 300_000,
    bodyTimeout: 300_000,
  });
  const json = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`/contents: HTTP ${res.statusCode} ${JSON.stringify(json)}`);
  const ok = json.statuses.filter((s) => s.status === 'success').length;
  return { ms: performance.now() - t0, ok, failed: json.statuses.length - ok, queued: res.headers['x-svc-queued'] === 'true' }; // prettier-ignore
}

async function measure(label, root, site) {
  process.stderr.write(`fairness: ${label} (${root})…\n`);
  const trawl = await startTrawl(root);
  const fast = () => [`${site.base}/fast?n=${++seq}`];
  const slow = () => Array.from({ length: A_URLS }, () => `${site.base}/slow?n=${++seq}`);
  const alone = [];
  for (let i = 0; i < REPS; i++) alone.push((await contents(trawl, trawl.keys['team-b'], fast(), 10_000)).ms);

  process.stderr.write(`fairness: ${label}: A floods for ${FLOOD_S} s…\n`);
  const until = performance.now() + FLOOD_S * 1000;
  const flood = { pages: 0, failed: 0 };
  const floodDone = Array.from({ length: A_REQUESTS }, async () => {
    while (performance.now() < until) {
      const r = await contents(trawl, trawl.keys['team-a'], slow(), 60_000);
      flood.pages += r.ok;
      flood.failed += r.failed;
    }
  });
  await sleep(1000); // the queues fill
  const b = [];
  while (performance.now() < until) {
    b.push(await contents(trawl, trawl.keys['team-b'], fast(), 10_000));
    await sleep(500);
  }
  const floodStart = until - FLOOD_S * 1000;
  await Promise.all(floodDone);
  const floodS = (performance.now() - floodStart) / 1000;
  process.stderr.write(`fairness: ${label}: A starts ${A_TASKS} MCP tasks…\n`);
  const mcp = await mcpFlood(trawl, slow, fast);
  await trawl.agent.close();
  await stopChild(trawl.child, 5000);
  const sorted = b.map((r) => r.ms).sort((x, y) => x - y);
  return {
    label,
    root,
    aloneP50: summarize(alone).median,
    bN: b.length,
    bP50: summarize(sorted).median,
    bP95: percentile(sorted, 95),
    bMax: sorted.at(-1),
    bOk: b.filter((r) => r.ok === 1).length,
    bQueued: b.filter((r) => r.queued).length,
    aPagesPerS: flood.pages / floodS,
    aFailed: flood.failed,
    ...mcp,
  };
}

async function mcpClient(trawl, key) {
  const transport = new StreamableHTTPClientTransport(new URL(`http://${HOST}:${trawl.port}/mcp`), {
    requestInit: { headers: { 'x-api-key': key } },
  });
  const client = new Client({ name: 'bench-fairness', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/**
 * A's MCP tasks against B's MCP read, MCP_ROUNDS times: A starts A_TASKS tasks at once, B reads a fast page
 * 500 ms later; tasks accepted, B's latency and whether its answer said it queued, A's pages per second
 * until its tasks ended (medians over the rounds).
 */
async function mcpFlood(trawl, slow, fast) {
  const [a, b] = [await mcpClient(trawl, trawl.keys['team-a']), await mcpClient(trawl, trawl.keys['team-b'])];
  const rounds = [];
  for (let i = 0; i < MCP_ROUNDS; i++) {
    const started = performance.now();
    const starts = await Promise.allSettled(
      Array.from({ length: A_TASKS }, () =>
        a.request(
          { method: 'tools/call', params: { name: 'get_contents', arguments: { urls: slow().slice(0, 2), maxAgeHours: 0, livecrawlTimeout: 60_000 }, task: {} } }, // prettier-ignore
          CreateTaskResultSchema,
        ),
      ),
    );
    const accepted = starts.filter((s) => s.status === 'fulfilled').map((s) => s.value.task.taskId);
    await sleep(500);
    const t0 = performance.now();
    const read = await b.callTool({ name: 'get_contents', arguments: { urls: fast(), maxAgeHours: 0, livecrawlTimeout: 10_000 } }); // prettier-ignore
    const ms = performance.now() - t0;
    const text = read.content?.[0]?.text ?? '';
    const results = await Promise.all(accepted.map((id) => a.experimental.tasks.getTaskResult(id, CallToolResultSchema))); // prettier-ignore
    const pages = results.reduce((n, r) => n + Number(/^(\d+) of \d+ pages read/.exec(r.content?.[0]?.text ?? '')?.[1] ?? 0), 0); // prettier-ignore
    rounds.push({ accepted: accepted.length, ms, ok: /^1 of 1 pages read/.test(text), noted: /\(Queued \d+ ms behind other work/.test(text), pagesPerS: pages / ((performance.now() - started) / 1000) }); // prettier-ignore
  }
  await Promise.all([a.close(), b.close()]);
  return {
    tasksAccepted: summarize(rounds.map((r) => r.accepted)).median,
    mcpMs: summarize(rounds.map((r) => r.ms)).median,
    mcpMax: Math.max(...rounds.map((r) => r.ms)),
    mcpOk: rounds.filter((r) => r.ok).length,
    mcpNoted: rounds.filter((r) => r.noted).length,
    mcpPagesPerS: summarize(rounds.map((r) => r.pagesPerS)).median,
  };
}

function report(sides, started) {
  const withRatio = sides.length === 2;
  const row = (name, key, show, note = true) => [
    name,
    ...sides.map((x) => show(x[key], x)),
    ...(withRatio ? [note ? ratio(sides[1][key], sides[0][key]) : ''] : []),
  ];
  const head = (first) => [first, ...sides.map((x) => x.label), ...(withRatio ? ['now / before'] : [])];
  const ms = (v) => fmt(v, 0);
  const lines = [
    '## Fair queueing (bench/fairness.mjs)',
    '',
    `\`${COMMAND}\``,
    '',
    machineLine(),
    '',
    `Builds: ${sides.map((x) => `${x.label} = ${x.root}`).join('; ')}. Each: a fresh \`trawl serve --log-level warn\` (16 live fetches at once, 6 per host), teams A and B with a key each; \`/slow\` answers after ${SLOW_MS} ms.`, // prettier-ignore
    '',
    mdTable(
      head(
        `B's fast page while A keeps ${A_REQUESTS}×${A_URLS} slow fetches in flight on the same host for ${FLOOD_S} s`,
      ),
      [
        // prettier-ignore
        row(`B alone, no flood: p50 (ms, ${REPS} reads)`, 'aloneP50', ms),
        row('B during the flood: p50 (ms)', 'bP50', ms),
        row('B during the flood: p95 (ms)', 'bP95', ms),
        row('B during the flood: max (ms)', 'bMax', ms),
        row('B pages read / asked (deadline 10 s)', 'bOk', (v, x) => `${v}/${x.bN}`, false),
        row('B answers reported queued (`x-svc-queued: true`)', 'bQueued', (v, x) => `${v}/${x.bN}`, false),
        row("A's throughput (slow pages read per s)", 'aPagesPerS', (v) => fmt(v, 2)),
        row("A's pages failed", 'aFailed', String, false),
      ],
    ),
    '',
    mdTable(
      head(
        `B's fast page over MCP 500 ms after A starts ${A_TASKS} MCP \`get_contents\` tasks of 2 slow pages each (${MCP_ROUNDS} rounds)`,
      ),
      [
        // prettier-ignore
        row("A's tasks accepted / asked (median)", 'tasksAccepted', (v) => `${v}/${A_TASKS}`, false),
        row("B's `get_contents`: median (ms)", 'mcpMs', ms),
        row("B's `get_contents`: max (ms)", 'mcpMax', ms),
        row('B pages read / asked', 'mcpOk', (v) => `${v}/${MCP_ROUNDS}`, false),
        row('B answers saying "Queued N ms behind other work"', 'mcpNoted', (v) => `${v}/${MCP_ROUNDS}`, false),
        row("A's throughput until its tasks ended (pages per s, median)", 'mcpPagesPerS', (v) => fmt(v, 2)),
      ],
    ),
    '',
    `(took ${fmt((performance.now() - started) / 1000, 0)} s)`,
    '',
    headlineOf(sides, (x) => ({
      b_p50_ms: ms(x.bP50),
      b_p95_ms: ms(x.bP95),
      b_read: `${x.bOk}/${x.bN}`,
      a_pages_per_s: fmt(x.aPagesPerS, 2),
      mcp_b_ms: ms(x.mcpMs),
      mcp_tasks_accepted: x.tasksAccepted,
    })),
  ];
  console.log(lines.join('\n'));
}

const started = performance.now();
const site = await startSite();
const sides = [];
if (baseline) sides.push(await measure('before', baseline, site));
sides.push(await measure(baseline ? 'now' : 'this build', checkout, site));
site.server.close();
report(sides, started);
process.exit(0);
