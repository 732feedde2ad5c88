// Monitors: scheduler accuracy, idle cost of scheduled monitors, and webhook delivery.
//
//   npm run build && node bench/monitors.mjs [--due 1000] [--scheduled 10000] [--deliveries 2000]
//
// 1. `--due` monitors all due at the same instant, with the engine running on its own timers (croner):
//    how long after `nextRunAt` each run was created and started, and when the last one finished.
// 2. `--scheduled` monitors scheduled (due in an hour or more): the process's CPU over 30 s of idling
//    and its RSS, beside the same process with no monitors (the baseline).
// 3. Webhook delivery to a loopback receiver: from a run's completion to the receiver's 200 (p50), and
//    deliveries per second of `--deliveries` events, beside a bare undici POST loop to the same
//    receiver at the same concurrency (the baseline).
// 4. Isolation: `--hanging` events to a receiver that never answers are in the outbox before 50 to the
//    fast receiver; how long the fast ones take to arrive (one slow receiver must delay only itself).
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HOST, ROOT, fetchedDocument, fmt, machineLine, makeTmpDir, mdTable, percentile, removeTmpDir, requireBuild } from './lib.mjs'; // prettier-ignore

requireBuild();
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const DUE = arg('due', 1000);
const SCHEDULED = arg('scheduled', 10000);
const DELIVERIES = arg('deliveries', 2000);
const HANGING = arg('hanging', 16);
const dist = (p) => path.join(ROOT, 'dist', p);
const { loadConfig } = await import(dist('config/config.js'));
const { createApp } = await import(dist('compose/app.js'));
const { createLogger } = await import(dist('lib/logger.js'));
const { request, Agent } = await import('undici');

// ---------------------------------------------------------------------------------------------------
// A receiver that answers 200 at once and notes when each event arrived.

const arrivals = new Map(); // event id → { at, event }
const receiver = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    const raw = Buffer.concat(chunks).toString();
    if (raw) {
      const event = JSON.parse(raw);
      arrivals.set(event.id, { at, event });
    }
    res.writeHead(200).end();
  });
});
await new Promise((resolve) => receiver.listen(0, HOST, resolve));
const hook = `http://${HOST}:${receiver.address().port}/hook`;

function openApp(dataDir) {
  const config = loadConfig({}, { dataDir, allowInsecureWebhooks: true, logLevel: 'silent', monitorConcurrency: 4 });
  return createApp(config, { logger: createLogger('silent') });
}

async function seedPages(app, n = 200) {
  const now = new Date().toISOString();
  for (let i = 0; i < n; i++) {
    const doc = fetchedDocument({
      url: `https://news.example.com/${i}`,
      title: `Release ${i} of the reverse proxy`,
      text: `Release ${i} of the reverse proxy adds feature ${i}, fixes ${i % 7} bugs and changes the default timeout.`,
      contentHash: `h${i}`,
      fetchedAt: now,
    });
    await app.services.documents.writeBatches([{ pages: [doc], now }]);
  }
}

const create = async (app, n, extra = {}) => {
  const ids = [];
  for (let i = 0; i < n; i++) {
    const monitor = await app.services.monitors.create(
      { search: { query: `reverse proxy release ${i % 50}`, numResults: 5 }, trigger: { type: 'interval', period: '1h' }, webhook: { url: hook }, ...extra }, // prettier-ignore
      null,
    );
    ids.push(monitor.id);
  }
  return ids;
};

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
};

// ---------------------------------------------------------------------------------------------------
// 1. Scheduler accuracy: DUE monitors due at the same instant.

async function schedulerAccuracy() {
  const dir = makeTmpDir();
  const app = openApp(dir);
  try {
    await seedPages(app);
    const ids = await create(app, DUE);
    const dueAt = Date.now() + 3000;
    app.db.prepare('UPDATE monitors SET next_run_ms = ?').run(dueAt);
    app.services.monitors.engine.start();
    // wait for every run to end
    const runsDone = app.db.prepare("SELECT COUNT(*) AS n FROM monitor_runs WHERE status IN ('completed', 'failed', 'cancelled')"); // prettier-ignore
    while (runsDone.get().n < DUE) await sleep(50);
    const rows = app.db.prepare('SELECT created_at, started_at, completed_at, status FROM monitor_runs').all();
    const created = rows.map((r) => Date.parse(r.created_at) - dueAt);
    const started = rows.map((r) => Date.parse(r.started_at) - dueAt);
    const finished = rows.map((r) => Date.parse(r.completed_at) - dueAt);
    const failed = rows.filter((r) => r.status !== 'completed').length;
    await app.services.monitors.engine.stop();
    return { ids, created: stats(created), started: stats(started), finished: stats(finished), failed };
  } finally {
    await app.close();
    removeTmpDir(dir);
  }
}

// ---------------------------------------------------------------------------------------------------
// 2. Idle cost with SCHEDULED monitors, beside none.

/** Measures a process that opens `dir` (with its monitors made by another process) and keeps the schedule. */
async function idleCost(dir) {
  const app = openApp(dir);
  try {
    app.services.monitors.engine.start();
    await sleep(2000);
    globalThis.gc?.();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(30_000);
    const cpu = process.cpuUsage(cpu0);
    const wall = performance.now() - t0;
    const rss = process.memoryUsage().rss / 1024 / 1024;
    const scheduled = app.db.prepare('SELECT COUNT(*) AS n FROM monitors WHERE next_run_ms IS NOT NULL').get().n;
    await app.services.monitors.engine.stop();
    return { cpuPct: ((cpu.user + cpu.system) / 1000 / wall) * 100, rss, scheduled };
  } finally {
    await app.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// 3. Delivery: completion → receiver, and throughput against a bare POST loop.

async function delivery() {
  const dir = makeTmpDir();
  const app = openApp(dir);
  try {
    await seedPages(app);
    // latency: runs triggered one at a time with the engine running; completion time from the event
    const ids = await create(app, 50, { webhook: { url: hook, events: ['monitor.run.completed'] } });
    app.services.monitors.engine.start();
    const latencies = [];
    for (const id of ids) {
      await app.services.monitors.trigger(id);
      for (;;) {
        const hit = [...arrivals.values()].find((a) => a.event.type === 'monitor.run.completed' && a.event.data.monitorId === id); // prettier-ignore
        if (hit) {
          latencies.push(hit.at - Date.parse(hit.event.data.completedAt));
          break;
        }
        await sleep(1);
      }
    }
    await app.services.monitors.engine.stop();
    // throughput: DELIVERIES monitor.created events waiting in the outbox, then flushed
    arrivals.clear();
    await create(app, DELIVERIES);
    const t0 = performance.now();
    await app.services.monitors.engine.flush();
    const seconds = (performance.now() - t0) / 1000;
    const delivered = arrivals.size;
    return { latency: stats(latencies), rate: delivered / seconds, delivered };
  } finally {
    await app.close();
    removeTmpDir(dir);
  }
}

/** Time for 50 deliveries to the fast receiver written after HANGING to one that never answers. */
async function isolation() {
  const hanging = http.createServer(() => {}); // reads nothing, answers nothing: each attempt times out
  await new Promise((resolve) => hanging.listen(0, HOST, resolve));
  const dir = makeTmpDir();
  const app = openApp(dir);
  try {
    await create(app, HANGING, { webhook: { url: `http://${HOST}:${hanging.address().port}/hook` } });
    arrivals.clear();
    const fast = await create(app, 50);
    const t0 = performance.now();
    const flushed = app.services.monitors.engine.flush();
    while (fast.some((id) => ![...arrivals.values()].some((a) => a.event.data.id === id))) await sleep(1);
    const fastMs = performance.now() - t0;
    hanging.closeAllConnections(); // the hanging attempts fail now and are retried later
    await flushed;
    return fastMs;
  } finally {
    hanging.close();
    await app.close();
    removeTmpDir(dir);
  }
}

async function barePosts(n, concurrency = 8) {
  const agent = new Agent();
  const body = JSON.stringify({ id: 'evt_x', object: 'event', type: 'monitor.created', data: {}, createdAt: new Date().toISOString() }); // prettier-ignore
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        const res = await request(hook, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher: agent }); // prettier-ignore
        await res.body.dump();
      }
    }),
  );
  await agent.close();
  return n / ((performance.now() - t0) / 1000);
}

/** Monitors made by one process, then the idle cost measured in a fresh one (as after a restart). */
function idleCostInChild(count) {
  const dir = makeTmpDir();
  try {
    const child = (...rest) =>
      execFileSync(process.execPath, ['--expose-gc', import.meta.filename, ...rest], { encoding: 'utf8' });
    child('--create-child', String(count), '--dir', dir);
    return JSON.parse(child('--idle-child', '--dir', dir).trim().split('\n').at(-1));
  } finally {
    removeTmpDir(dir);
  }
}

// ---------------------------------------------------------------------------------------------------

const childDir = args[args.indexOf('--dir') + 1];
if (args.includes('--create-child')) {
  const app = openApp(childDir);
  // no event is due (monitor.created is not subscribed): the measured process only keeps the schedule
  await create(app, arg('create-child', 0), { webhook: { url: hook, events: ['monitor.run.completed'] } });
  await app.close();
  process.exit(0);
}
if (args.includes('--idle-child')) {
  console.log(JSON.stringify(await idleCost(childDir)));
  process.exit(0);
}

console.log(`# Monitors benchmark\n\n${machineLine()}\n`);
const accuracy = await schedulerAccuracy();
console.log(`## ${DUE} monitors due at the same instant (4 runs at once, engine on its own timers)\n`);
console.log(
  mdTable(
    ['ms after nextRunAt', 'p50', 'p99', 'max'],
    [
      ['run created (slot claimed)', fmt(accuracy.created.p50, 0), fmt(accuracy.created.p99, 0), fmt(accuracy.created.max, 0)], // prettier-ignore
      ['run started (a slot free)', fmt(accuracy.started.p50, 0), fmt(accuracy.started.p99, 0), fmt(accuracy.started.max, 0)], // prettier-ignore
      ['run finished', fmt(accuracy.finished.p50, 0), fmt(accuracy.finished.p99, 0), fmt(accuracy.finished.max, 0)], // prettier-ignore
    ],
  ),
);
console.log(`\nRuns not completed: ${accuracy.failed}.\n`);

const base = idleCostInChild(0);
const loaded = idleCostInChild(SCHEDULED);
console.log(`## Idle cost over 30 s of a process keeping ${loaded.scheduled} monitors scheduled, vs none\n`);
console.log(
  mdTable(
    ['', 'no monitors', `${SCHEDULED} monitors`, 'ratio'],
    [
      ['CPU (% of one core)', fmt(base.cpuPct, 2), fmt(loaded.cpuPct, 2), fmt(loaded.cpuPct / Math.max(base.cpuPct, 0.01), 1)], // prettier-ignore
      ['RSS (MB)', fmt(base.rss, 0), fmt(loaded.rss, 0), fmt(loaded.rss / base.rss, 2)],
    ],
  ),
);

const deliveries = await delivery();
const bare = await barePosts(DELIVERIES);
console.log(`\n## Webhook delivery to a loopback receiver\n`);
console.log(
  mdTable(
    ['measurement', 'Trawl outbox', 'bare undici POST loop', 'ratio'],
    [
      ['completion → receiver 200, p50 (ms)', fmt(deliveries.latency.p50, 1), '', ''],
      ['completion → receiver 200, p99 (ms)', fmt(deliveries.latency.p99, 1), '', ''],
      [`deliveries/s (${DELIVERIES}, 8 in flight to one host)`, fmt(deliveries.rate, 0), fmt(bare, 0), fmt(deliveries.rate / bare, 2)], // prettier-ignore
    ],
  ),
);
const isolatedMs = await isolation();
console.log(`\n## Isolation: 50 deliveries to a fast receiver behind ${HANGING} to one that never answers\n`);
console.log(mdTable(['measurement', 'ms'], [['until the 50 fast deliveries arrived', fmt(isolatedMs, 0)]]));
console.log(
  `\nwebhook_isolated_fast_ms=${fmt(isolatedMs, 0)} ` +
    `monitors_claim_p99_ms=${fmt(accuracy.created.p99, 0)} monitors_idle_cpu_pct=${fmt(loaded.cpuPct, 2)} ` +
    `webhook_p50_ms=${fmt(deliveries.latency.p50, 1)} webhook_per_s=${fmt(deliveries.rate, 0)}`,
);
receiver.close();
