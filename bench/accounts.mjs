// Accounts: what authentication and metering cost per request, a key held at its rate limit, and a
// concurrent spend of the last credits.
//
//   npm run build && node bench/accounts.mjs
//
// Each configuration is a `trawl serve` child on a fresh data directory, called over loopback.
// 1. Overhead: POST /context (a priced call that does almost nothing, so the accounts layer is what
//    differs) at one connection, 2 s warm-up then 10 s measured, p50 and p99 latency and req/s, for:
//    metering off (the baseline), metering recording usage, metering with team credits and a key
//    budget (holds), and the same plus a rate-limit bucket.
// 2. Rate limit: one key with a limit of 50 requests/s, 10 connections for 10 s: requests/s served,
//    429s, and whether every 429 carried Retry-After.
// 3. Spend: a team with $1.00 of credits (200 calls at $0.005), 1,000 calls from 50 connections across
//    `serve --workers 2`: calls served, credits left, and cents overspent (goal 0).
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CLI,
  HOST,
  ROOT,
  childEnv,
  fmt,
  freePort,
  machineLine,
  makeTmpDir,
  mdTable,
  percentile,
  requireBuild,
  spawnTracked,
  stopChild,
  waitFor200,
} from './lib.mjs';

requireBuild();
const BODY = JSON.stringify({ query: 'undici pool', tokensNum: 100 });

function trawl(args, dir) {
  return execFileSync(process.execPath, [CLI, ...args, '--data-dir', dir], {
    encoding: 'utf8',
    env: childEnv(),
  }).trim();
}

async function serve(dir, env = {}, extra = []) {
  const port = await freePort();
  const child = spawnTracked(process.execPath, [CLI, 'serve', '--port', String(port), '--data-dir', dir, ...extra], {
    stdio: 'ignore',
    cwd: ROOT,
    env: childEnv({ TRAWL_LOG_LEVEL: 'warn', TRAWL_MONITORS: 'false', ...env }),
  });
  await waitFor200(port, '/health', { intervalMs: 20, timeoutMs: 30000, child });
  return { port, child };
}

/** autocannon posting /context; `samples` gets every response's latency in ms (fractional). */
function cannon(port, key, { connections, duration }, samples) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://${HOST}:${port}/context`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: BODY,
        connections,
        pipelining: 1,
        duration,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (samples) instance.on('response', (_c, _s, _b, ms) => samples.push(ms));
  });
}

// ---------------------------------------------------------------------------------------------------
// 1. Overhead

const CONFIGS = [
  { name: 'metering off (baseline)', env: { TRAWL_METERING: 'false', TRAWL_RATE_LIMIT_QPS: '0' } },
  { name: 'metering on: usage recorded', env: { TRAWL_RATE_LIMIT_QPS: '0' } },
  { name: 'metering on: team credits and key budget (holds)', env: { TRAWL_RATE_LIMIT_QPS: '0' }, limits: true },
  { name: 'the same, plus a rate-limit bucket', env: { TRAWL_RATE_LIMIT_QPS: '100000' }, limits: true },
];

/** All configurations served at once and measured in turns (5 rounds of 2 s each), so load hits them alike. */
async function overhead() {
  const servers = [];
  for (const config of CONFIGS) {
    const dir = makeTmpDir();
    let key;
    if (config.limits) {
      trawl(['teams', 'create', 'bench', '--credits', '100000'], dir);
      key = trawl(['keys', 'create', '--name', 'bench', '--team', 'bench', '--budget', '100000', '--budget-period', 'day'], dir); // prettier-ignore
    } else key = trawl(['keys', 'create', '--name', 'bench'], dir);
    servers.push({ config, key, samples: [], requests: 0, seconds: 0, ...(await serve(dir, config.env)) });
  }
  for (const s of servers) await cannon(s.port, s.key, { connections: 1, duration: 1 });
  for (let round = 0; round < 5; round++) {
    for (const s of servers) {
      const result = await cannon(s.port, s.key, { connections: 1, duration: 2 }, s.samples);
      s.requests += result.requests.total;
      s.seconds += 2;
    }
  }
  for (const s of servers) await stopChild(s.child);
  return servers.map((s) => {
    const sorted = [...s.samples].sort((a, b) => a - b);
    return {
      name: s.config.name,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      rps: s.requests / s.seconds,
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// 2. A key at its limit

async function atLimit() {
  const dir = makeTmpDir();
  const key = trawl(['keys', 'create', '--name', 'limited', '--qps', '50'], dir);
  const { port, child } = await serve(dir);
  const counts = { ok: 0, limited: 0, withRetryAfter: 0, other: 0 };
  const end = performance.now() + 10_000;
  const loop = async () => {
    while (performance.now() < end) {
      const res = await fetch(`http://${HOST}:${port}/context`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: BODY,
      });
      await res.arrayBuffer();
      if (res.status === 200) counts.ok++;
      else if (res.status === 429) {
        counts.limited++;
        if (Number(res.headers.get('retry-after')) >= 1) counts.withRetryAfter++;
      } else counts.other++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 10 }, loop));
  const seconds = (performance.now() - t0) / 1000;
  await stopChild(child);
  return {
    ...counts,
    seconds,
    okPerSecond: counts.ok / seconds,
    totalPerSecond: (counts.ok + counts.limited) / seconds,
  };
}

// ---------------------------------------------------------------------------------------------------
// 3. The last credits, spent concurrently by two worker processes

async function spend() {
  const dir = makeTmpDir();
  trawl(['teams', 'create', 'spenders', '--credits', '1.00'], dir);
  const key = trawl(['keys', 'create', '--name', 'spender', '--team', 'spenders'], dir);
  const { port, child } = await serve(dir, { TRAWL_RATE_LIMIT_QPS: '0' }, ['--workers', '2']);
  await sleep(500); // both workers listening
  const statuses = {};
  let next = 0;
  const loop = async () => {
    while (next++ < 1000) {
      const res = await fetch(`http://${HOST}:${port}/context`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: BODY,
      });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 50 }, loop));
  await stopChild(child);
  const team = JSON.parse(trawl(['teams', 'list', '--json'], dir)).find((t) => t.name === 'spenders');
  const usage = JSON.parse(trawl(['usage', '--days', '1', '--json'], dir)).find((l) => l.team === 'spenders' && l.keyId === null); // prettier-ignore
  const overspentCents = Math.max(0, Math.round((usage.spent - 1) * 100 * 1000) / 1000);
  return { statuses, creditsLeft: team.credits, spent: usage.spent, requests: usage.requests, overspentCents };
}

// ---------------------------------------------------------------------------------------------------

console.log(`# Accounts benchmark\n\n${machineLine()}\n`);
const rows = await overhead();
const base = rows[0];
console.log('## Authentication and metering per request (`POST /context`, 1 connection, 5 × 2 s in turns)\n');
console.log(
  mdTable(
    ['configuration', 'p50 ms', 'p99 ms', 'req/s', 'p50 vs baseline'],
    rows.map((r) => [r.name, fmt(r.p50, 3), fmt(r.p99, 3), fmt(r.rps, 0), `${r.p50 >= base.p50 ? '+' : ''}${fmt(r.p50 - base.p50, 3)} ms (${fmt(r.p50 / base.p50, 2)}×)`]), // prettier-ignore
  ),
);
const limit = await atLimit();
console.log('\n## One key at its limit (50 requests/s, 10 connections, 10 s)\n');
console.log(
  mdTable(
    ['served (200) per s', 'answered per s', '429s', '429s with Retry-After', 'other'],
    [[fmt(limit.okPerSecond, 1), fmt(limit.totalPerSecond, 0), String(limit.limited), String(limit.withRetryAfter), String(limit.other)]], // prettier-ignore
  ),
);
const spent = await spend();
console.log('\n## Concurrent spend of the last credits ($1.00 = 200 calls; 1,000 calls, 50 connections, 2 workers)\n');
console.log(
  mdTable(
    ['served (200)', 'refused (402)', 'charged', 'credits left', 'overspent (cents)'],
    [[String(spent.statuses[200] ?? 0), String(spent.statuses[402] ?? 0), `$${spent.spent.toFixed(3)}`, `$${spent.creditsLeft.toFixed(3)}`, String(spent.overspentCents)]], // prettier-ignore
  ),
);
const overheadMs = rows[3].p50 - base.p50;
console.log(
  `\naccounts_overhead_p50_ms=${fmt(overheadMs, 3)} limited_ok_per_s=${fmt(limit.okPerSecond, 1)} overspent_cents=${spent.overspentCents}`,
);
