// Agent runs: the engine's own time per run, how fast a stream of events flows, how long runs wait for a
// slot under the per-key concurrency limit, and whether the recorded cost matches an independent count.
//
//   npm run build && node bench/agent.mjs [--runs 30]
//
// Trawl from dist/ in this process behind its real HTTP door, BEIR SciFact's abstracts in its index, and
// a loopback Chat Completions server that answers at once (planning as JSON, answers with citations)
// and records, per call, its own handling time and the tokens it reports.
import http from 'node:http';
import path from 'node:path';
import { HOST, ROOT, fetchedDocument, fmt, machineLine, makeTmpDir, mdTable, percentile, readJsonlGz, readTsv, removeTmpDir, requireBuild } from './lib.mjs'; // prettier-ignore

requireBuild();
const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1] || 30);
const SCIFACT = path.resolve(ROOT, '..', 'shared', 'data', 'scifact');
const dist = (p) => path.join(ROOT, 'dist', p);
const { loadConfig } = await import(dist('config/config.js'));
const { createApp } = await import(dist('compose/app.js'));
const { startHttpServer } = await import(dist('http/server.js'));
const { createLogger } = await import(dist('lib/logger.js'));

// ---------------------------------------------------------------------------------------------------
// The loopback model: instant answers; per call its handling time and reported tokens.

const calls = [];
let modelDelayMs = 0; // the queueing measurement makes runs take a while
const modelServer = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', async () => {
    if (modelDelayMs) await new Promise((r) => setTimeout(r, modelDelayMs));
    const started = performance.now();
    const request = JSON.parse(body);
    const prompt = request.messages.map((m) => m.content).join('\n');
    const planning = request.response_format?.json_schema?.name === 'plan';
    const question = /Question: (.*)/.exec(prompt)?.[1]?.split(/\s+/) ?? ['claim'];
    const content = planning
      ? JSON.stringify({ queries: [question.slice(0, 4).join(' '), question.slice(-4).join(' ')] })
      : 'The sources support the claim in part [1]. A second study disagrees on the effect size [2].';
    const usage = { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(content.length / 4) };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'x', object: 'chat.completion', model: request.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage })); // prettier-ignore
    calls.push({ planning, ms: performance.now() - started, tokens: usage.prompt_tokens + usage.completion_tokens });
  });
});
await new Promise((resolve) => modelServer.listen(0, HOST, resolve));

const dir = makeTmpDir();
const config = loadConfig({}, { dataDir: dir, port: 0, logLevel: 'silent', modelBaseUrl: `http://${HOST}:${modelServer.address().port}/v1`, model: 'bench-model', rateLimitQps: 0, monitors: false }); // prettier-ignore
const app = createApp(config, { logger: createLogger('silent') });
const now = new Date().toISOString();
const corpus = readJsonlGz(path.join(SCIFACT, 'corpus.jsonl.gz'));
await app.services.documents.upsertMany(
  corpus.map((d) => fetchedDocument({ url: `https://scifact.example/${d._id}`, title: d.title, text: d.text, contentHash: d._id, fetchedAt: now })), // prettier-ignore
  now,
);
const queries = readTsv(path.join(SCIFACT, 'queries.tsv')).map((q) => q.text);
const server = await startHttpServer(app, HOST, 0);
const key = (await app.services.keys.create('bench', { qps: 0 })).key; // unlimited: measure the engine, not the queue
const keyCaller = await app.services.keys.verify(key);

async function post(body, k = key) {
  const res = await fetch(`${server.url}/agent/runs`, {
    method: 'POST',
    headers: { 'x-api-key': k, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}
const runOf = (id) => app.services.agentRuns.get(id, keyCaller);
const stats = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p90: percentile(s, 90) };
};

// ---------------------------------------------------------------------------------------------------
// 1. Engine time per run, minus the model's own time (no fetches: the index answers)

async function engineTime(effort) {
  const rows = [];
  for (let i = 0; i < RUNS; i++) {
    const before = calls.length;
    const t0 = performance.now();
    const run = await post({ query: queries[i % queries.length], effort });
    await app.services.agentRuns.engine.drain();
    const wall = performance.now() - t0;
    const modelMs = calls.slice(before).reduce((n, c) => n + c.ms, 0);
    const done = await runOf(run.id);
    if (done.status !== 'completed') throw new Error(`run ${run.id} ${done.status}: ${JSON.stringify(done.error)}`);
    rows.push({ engine: wall - modelMs, searches: done.usage.searches, events: 0, id: run.id });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------
// 2. Events per second through a replay stream (a run with 20,000 stored events)

async function streamRate() {
  const run = await post({ query: queries[0], effort: 'minimal' });
  await app.services.agentRuns.engine.drain();
  const insert = app.db.prepare('INSERT INTO agent_events (run_id, seq, event, data, created_at) VALUES (?, ?, ?, ?, ?)'); // prettier-ignore
  const last = app.db.prepare('SELECT MAX(seq) AS n FROM agent_events WHERE run_id = ?').get(run.id).n;
  const terminal = app.db.prepare('SELECT * FROM agent_events WHERE run_id = ? AND seq = ?').get(run.id, last);
  app.db.prepare('DELETE FROM agent_events WHERE run_id = ? AND seq = ?').run(run.id, last);
  const N = 20_000;
  app.db.transaction(() => {
    for (let i = 0; i < N; i++) insert.run(run.id, last + i, 'agent_run.source.added', JSON.stringify({ callId: 'call_1', url: `https://e.example/${i}`, title: `Source ${i}` }), now); // prettier-ignore
    insert.run(run.id, last + N, terminal.event, terminal.data, terminal.created_at);
  })();
  const t0 = performance.now();
  const res = await fetch(`${server.url}/agent/runs/${run.id}/events`, { headers: { 'x-api-key': key, accept: 'text/event-stream' } }); // prettier-ignore
  const text = await res.text();
  const seconds = (performance.now() - t0) / 1000;
  const frames = text.split('\n\n').filter((f) => f.includes('event:')).length;
  return { frames, perSecond: frames / seconds };
}

// ---------------------------------------------------------------------------------------------------
// 3. POST → agent_run.started under the default limit (2 runs at once for a 10/s key)

async function queueing() {
  modelDelayMs = 200; // a run takes about 0.4 s (a plan and an answer), so 2 slots fill up
  const limited = (await app.services.keys.create('limited', { qps: 10 })).key;
  const caller = await app.services.keys.verify(limited);
  const ids = [];
  // posted 120 ms apart, within the key's 10 requests per second
  for (let i = 0; i < 20; i++) {
    ids.push((await post({ query: queries[i], effort: 'low' }, limited)).id);
    await new Promise((r) => setTimeout(r, 120));
  }
  await app.services.agentRuns.engine.drain();
  const runs = await Promise.all(ids.map((id) => app.services.agentRuns.get(id, caller)));
  const waits = runs.map((r) => Date.parse(r.startedAt) - Date.parse(r.createdAt));
  const durations = runs.map((r) => Date.parse(r.completedAt) - Date.parse(r.startedAt));
  // how soon a run that had to wait started after a slot freed: its start minus the last completion before it
  const handovers = runs
    .filter((_r, i) => waits[i] > 10)
    .map((r) => {
      const start = Date.parse(r.startedAt);
      const freed = Math.max(...runs.map((o) => Date.parse(o.completedAt)).filter((t) => t <= start));
      return start - freed;
    });
  const running = runs.map((r) => [Date.parse(r.startedAt), Date.parse(r.completedAt)]);
  const most = Math.max(...running.map(([s]) => running.filter(([a, b]) => a <= s && s < b).length));
  modelDelayMs = 0;
  return { wait: stats(waits), max: Math.max(...waits), duration: stats(durations), handover: stats(handovers), waited: handovers.length, most }; // prettier-ignore
}

// ---------------------------------------------------------------------------------------------------
// 4. Cost accuracy: recorded costDollars against tokens and calls counted outside the engine

async function costAccuracy() {
  const rows = [];
  for (let i = 0; i < 10; i++) {
    const before = calls.length;
    const run = await post({ query: queries[100 + i], effort: 'auto' });
    await app.services.agentRuns.engine.drain();
    const done = await runOf(run.id);
    const mine = calls.slice(before);
    const answerTokens = mine.filter((c) => !c.planning).reduce((n, c) => n + c.tokens, 0);
    const planningCalls = mine.filter((c) => c.planning).length;
    const events = (await app.services.agentRuns.events(run.id, keyCaller, { limit: 1000 })).data;
    const searches = events.filter((e) => e.event === 'agent_run.search').length;
    const reads = planningCalls > 1 ? planningCalls : 1; // one reading per follow-up round, plus the final one
    const units = answerTokens / 10_000 + (searches + planningCalls + reads) * 0.1;
    const expected = Math.round((units * 0.1 + searches * 0.005) * 1e6) / 1e6;
    rows.push({ recorded: done.costDollars.total, expected, diff: Math.abs(done.costDollars.total - expected) });
  }
  return rows;
}

console.log(`# Agent runs benchmark\n\n${machineLine()}\n`);
const low = await engineTime('low');
const medium = await engineTime('medium');
console.log(`## Engine time per run beyond the model's own (${RUNS} runs each, local index, no fetches)\n`);
console.log(
  mdTable(
    ['effort', 'engine ms p50', 'engine ms p90', 'searches per run'],
    [
      ['low', fmt(stats(low.map((r) => r.engine)).p50, 1), fmt(stats(low.map((r) => r.engine)).p90, 1), fmt(low[0].searches, 0)], // prettier-ignore
      ['medium', fmt(stats(medium.map((r) => r.engine)).p50, 1), fmt(stats(medium.map((r) => r.engine)).p90, 1), fmt(medium[0].searches, 0)], // prettier-ignore
    ],
  ),
);
const rate = await streamRate();
console.log(`\n## A replay stream of ${rate.frames} events: ${fmt(rate.perSecond, 0)} events/s\n`);
const queue = await queueing();
console.log(
  '## 20 runs posted 120 ms apart by a key limited to 2 at a time (10 requests/s; effort low, model answering in 200 ms)\n',
);
console.log(
  mdTable(
    ['POST → started, p50', 'p90', 'max', 'runs that waited', 'freed slot → next start, p50', 'most running at once', 'run duration p50'], // prettier-ignore
    [[`${fmt(queue.wait.p50, 0)} ms`, `${fmt(queue.wait.p90, 0)} ms`, `${fmt(queue.max, 0)} ms`, String(queue.waited), `${fmt(queue.handover.p50, 0)} ms`, String(queue.most), `${fmt(queue.duration.p50, 0)} ms`]], // prettier-ignore
  ),
);
const costs = await costAccuracy();
const worst = Math.max(...costs.map((c) => c.diff));
console.log('\n## Cost accuracy (10 metered `auto` runs)\n');
console.log(
  mdTable(
    ['run', 'recorded $', 'counted $', 'difference'],
    costs.map((c, i) => [String(i + 1), c.recorded.toFixed(6), c.expected.toFixed(6), c.diff.toFixed(6)]),
  ),
);
console.log(
  `\nagent_engine_low_p50_ms=${fmt(stats(low.map((r) => r.engine)).p50, 1)} agent_events_per_s=${fmt(rate.perSecond, 0)} agent_queue_wait_p50_ms=${fmt(queue.wait.p50, 0)} agent_cost_max_diff=${worst.toFixed(6)}`, // prettier-ignore
);
await server.close();
await app.close();
modelServer.close();
removeTmpDir(dir);
