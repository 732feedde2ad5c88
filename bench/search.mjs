// Search at scale: an index of 103,660 documents (BEIR SciFact ×20, every copy with ~10% of its body
// words dropped by a seeded PRNG, distinct URLs), built through the store and index the server uses.
// Measures the indexing rate, the final merge, the database size per document and RSS; server-side
// latency of `instant` and `auto` over the 300 SciFact queries; then `trawl serve` on that index under
// autocannon (10 connections, then 1; 2 s warm-up, 10 s measured) with /search bodies cycling the queries, with
// one worker process (the default) and with two (`--workers 2`, one per core).
// Usage: npm run build && node bench/search.mjs [--copies 20] [--workers 1,2] [--connections 10,1]
// The last line is `search_instant_p50_ms=… search_instant_rps=… index_docs_per_s=…` (REST figures of
// the largest worker count, i.e. `trawl serve` using both cores of the 2-core goal).
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  CLI,
  HOST,
  ROOT,
  childEnv,
  fetchedDocument,
  fmt,
  freePort,
  machineLine,
  makeTmpDir,
  mdTable,
  memoryMB,
  percentile,
  readJsonlGz,
  readTsv,
  removeTmpDir,
  requireBuild,
  spawnTracked,
  stopChild,
  waitFor200,
} from './lib.mjs';

requireBuild();
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const COPIES = Number(opt('--copies', '20'));
const WORKERS = opt('--workers', '1,2').split(',').map(Number);
const BATCH = 500;
const DROP = 0.1; // share of body words dropped from each copy
/** Load with 10 connections (throughput; the goal's figure) and with 1 (one request at a time: latency unloaded). */
const CONNECTIONS = opt('--connections', '10,1').split(',').map(Number);
const HEADLINE_CONNECTIONS = 10;
const WARMUP_S = 2;
const DURATION_S = 10;
const NUM_RESULTS = 10;
const TYPES = ['instant', 'auto'];
const SCIFACT = path.resolve(ROOT, '..', 'shared', 'data', 'scifact');
const COMMAND = 'npm run build && node bench/search.mjs';

const dist = (p) => path.join(ROOT, 'dist', p);
const { openDatabase } = await import(dist('store/database.js'));
const { createDocumentsRepo } = await import(dist('store/documents.repo.js'));
const { createSearchIndex, indexedDocuments } = await import(dist('core/search/search-index.js'));
const { retrieveLocal } = await import(dist('core/search/retrieve.js'));
const { PIPELINES } = await import(dist('core/search/pipelines.js'));

const corpus = readJsonlGz(path.join(SCIFACT, 'corpus.jsonl.gz'));
const queries = readTsv(path.join(SCIFACT, 'queries.tsv')).map((q) => q.text);

// A seeded linear congruential generator, so every run indexes the same perturbed copies.
let seed = 20261123;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const stats = (values) => {
  const s = Float64Array.from(values).sort();
  return { n: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99) };
};
const progress = (msg) => process.stderr.write(`search: ${msg}\n`);

// ---------------------------------------------------------------------------------------------------
// 1. The index

/** Builds the index in `dir` the way the server writes documents (indexed in the same transaction). */
function build(dir) {
  const db = openDatabase(dir);
  const stored = createDocumentsRepo(db);
  const index = createSearchIndex(db, stored);
  const documents = indexedDocuments(db, stored, index);
  const now = new Date().toISOString();
  const perCopy = []; // seconds per copy, to see whether writes slow down as the index grows
  const started = performance.now();
  let n = 0;
  for (let k = 0; k < COPIES; k++) {
    const t = performance.now();
    const batch = [];
    for (const d of corpus) {
      const text = (d.text ?? '')
        .split(' ')
        .filter(() => random() >= DROP)
        .join(' ');
      batch.push(
        fetchedDocument({ url: `https://sci${k}.example/${d._id}`, title: d.title ?? '', text, contentHash: `${k}:${d._id}`, fetchedAt: now }), // prettier-ignore
      );
      if (batch.length === BATCH) n += flush(documents, batch, now);
    }
    n += flush(documents, batch, now);
    perCopy.push((performance.now() - t) / 1000);
    progress(`indexed ${n} documents (${fmt(corpus.length / perCopy.at(-1), 0)} docs/s for copy ${k + 1})`);
  }
  const indexSeconds = (performance.now() - started) / 1000;
  const m = performance.now();
  db.transaction(() => index.repo.mergeAll())();
  index.table.noteWrite();
  const mergeSeconds = (performance.now() - m) / 1000;
  progress(`merged in ${fmt(mergeSeconds, 1)} s`);
  return { db, index, n, indexSeconds, mergeSeconds, perCopy };
}

function flush(documents, batch, now) {
  const n = batch.length;
  if (n > 0) documents.writeNow(batch.splice(0), now);
  return n;
}

/** Bytes of the database files after a WAL checkpoint (trawl.sqlite + trawl.sqlite-wal). */
function databaseBytes(db, dir) {
  db.pragma('wal_checkpoint(TRUNCATE)');
  const size = (f) => (fs.existsSync(path.join(dir, f)) ? fs.statSync(path.join(dir, f)).size : 0);
  return { main: size('trawl.sqlite'), wal: size('trawl.sqlite-wal') };
}

// ---------------------------------------------------------------------------------------------------
// 2. Server-side latency, the index in this process

/**
 * Each way of ranking runs the 300 queries twice: the first pass starts with an empty postings cache
 * (as after a write or a restart), the second is warm (what a busy server sees). Reported: the warm
 * pass's percentiles and the cold pass's median.
 */
function serverSide(index) {
  const ways = [
    {
      label: '`instant`: rarest 8 terms, no proximity, limit 10',
      run: (q) => index.search(q, { limit: NUM_RESULTS, maxTerms: 8, proximity: false }),
    },
    {
      label: `\`instant\` as \`/search\` runs it (retrieveLocal, numResults ${NUM_RESULTS})`,
      run: (q) => retrieveLocal(index, q, undefined, PIPELINES.instant, undefined, NUM_RESULTS),
    },
    {
      label: `\`auto\` as \`/search\` runs it: every term, the best 100 re-ranked by proximity (numResults ${NUM_RESULTS})`,
      run: (q) => retrieveLocal(index, q, undefined, PIPELINES.auto, undefined, NUM_RESULTS),
    },
    {
      label: '`auto` fused with other lists (limit 100, as with providers or embeddings)',
      run: (q) => retrieveLocal(index, q, undefined, PIPELINES.auto),
    },
  ];
  return ways.map((way) => {
    index.table.noteWrite(); // a new generation: the postings cache starts empty
    const passes = [0, 1].map(() =>
      queries.map((q) => {
        const t = performance.now();
        way.run(q);
        return performance.now() - t;
      }),
    );
    const cold = stats(passes[0]);
    const warm = stats(passes[1]);
    progress(`server-side ${way.label}: p50 ${fmt(warm.p50, 2)} ms`);
    return { label: way.label, cold, warm };
  });
}

// ---------------------------------------------------------------------------------------------------
// 3. REST, `trawl serve` on the built index

/** One request outside the load run: the status and how many results came back. */
function probe(port, key, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: HOST,
        port,
        method: 'POST',
        path: '/search',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      },
    );
    req.setTimeout(10000, () => req.destroy(new Error('probe timed out')));
    req.once('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** autocannon posting /search bodies that cycle through the queries; `samples` gets every response's ms. */
function cannon(port, key, type, connections, durationS, samples) {
  let i = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://${HOST}:${port}/search`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        connections,
        pipelining: 1,
        duration: durationS,
        timeout: 10,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ query: queries[i++ % queries.length], type, numResults: NUM_RESULTS }),
            }),
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (samples) instance.on('response', (_c, _s, _b, ms) => samples.push(ms));
  });
}

/** The pids of a process and its children (the cluster workers). */
function processTree(pid) {
  const file = `/proc/${pid}/task/${pid}/children`;
  const kids = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
  return [pid, ...kids];
}

/** VmRSS of the server, its workers included, in MB. */
const rssOfTree = (pid) => processTree(pid).reduce((sum, p) => sum + (memoryMB(p).rss || 0), 0);

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system) used so far by the server and its workers, in ms (Linux /proc). */
function cpuMsOfTree(pid) {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      /* gone */
    }
  }
  return (ticks * 1000) / CLK_TCK;
}

async function rest(dir, key, workers) {
  const port = await freePort();
  const child = spawnTracked(
    process.execPath,
    [
      CLI,
      'serve',
      '--port',
      String(port),
      '--data-dir',
      dir,
      '--log-level',
      'silent',
      '--create-first-key',
      'false',
      '--workers',
      String(workers),
    ],
    { stdio: 'ignore', cwd: ROOT, env: childEnv() },
  );
  const rows = [];
  try {
    const t = performance.now();
    await waitFor200(port, '/health', { intervalMs: 20, timeoutMs: 30000, child });
    const startMs = performance.now() - t;
    for (const type of TYPES) {
      const check = await probe(port, key, { query: queries[0], type, numResults: NUM_RESULTS });
      const results = check.status === 200 ? (JSON.parse(check.text).results ?? []).length : 0;
      if (check.status !== 200 || results === 0) {
        throw new Error(`${type}: expected 200 with results, got ${check.status}: ${check.text.slice(0, 300)}`);
      }
      for (const connections of CONNECTIONS) {
        progress(`REST ${type}, ${workers} worker(s), ${connections} connection(s): warm-up ${WARMUP_S} s, then ${DURATION_S} s`); // prettier-ignore
        await cannon(port, key, type, connections, WARMUP_S);
        const samples = [];
        const cpuBefore = cpuMsOfTree(child.pid);
        const r = await cannon(port, key, type, connections, DURATION_S, samples);
        const cpuMs = cpuMsOfTree(child.pid) - cpuBefore;
        const s = stats(samples);
        rows.push({
          workers,
          type,
          connections,
          rps: r.requests.average,
          p50: s.p50,
          p99: s.p99,
          total: r.requests.total,
          non2xx: r.non2xx,
          errors: r.errors + r.timeouts,
          cpuPerReq: r.requests.total ? cpuMs / r.requests.total : NaN,
          rss: rssOfTree(child.pid),
          startMs,
        });
      }
    }
  } finally {
    await stopChild(child, 5000);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  const started = performance.now();
  const dir = makeTmpDir('trawl-bench-search-');
  const load = machineLine();
  const built = build(dir);
  const bytes = databaseBytes(built.db, dir);
  const rssBuild = memoryMB(process.pid);
  const side = serverSide(built.index);
  built.db.close();

  const key = execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'bench', '--data-dir', dir], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
    encoding: 'utf8',
    timeout: 30000,
  }).trim();
  if (!key) throw new Error('keys create printed no key');
  const restRows = [];
  for (const workers of WORKERS) restRows.push(...(await rest(dir, key, workers)));
  removeTmpDir(dir);

  const rate = built.n / built.indexSeconds;
  const copyRate = (s) => fmt(corpus.length / s, 0);
  const headline =
    restRows.filter((r) => r.type === 'instant' && r.connections === HEADLINE_CONNECTIONS).at(-1) ??
    restRows.filter((r) => r.type === 'instant').at(-1);
  const lines = [
    '## Search at scale (bench/search.mjs)',
    '',
    load,
    '',
    `Command: \`${COMMAND}\`. Corpus: BEIR SciFact (${corpus.length} documents) ×${COPIES}, every copy with ` +
      `${DROP * 100}% of its body words dropped by a seeded PRNG, URLs \`https://sci<k>.example/<id>\`; ` +
      `written through \`indexedDocuments(…).upsertMany\` in batches of ${BATCH} (documents and index in one ` +
      'transaction, as the server writes them), then one `mergeAll`.',
    '',
    '### Index',
    '',
    mdTable(
      [
        'documents',
        'indexing docs/s (wall)',
        'first / last copy docs/s',
        'final merge s',
        'database B/doc',
        'database MB (main + WAL)',
        'bench RSS MB after build (peak)',
      ],
      [
        [
          String(built.n),
          fmt(rate, 0),
          `${copyRate(built.perCopy[0])} / ${copyRate(built.perCopy.at(-1))}`,
          fmt(built.mergeSeconds, 1),
          fmt((bytes.main + bytes.wal) / built.n, 0),
          `${fmt(bytes.main / 2 ** 20, 1)} + ${fmt(bytes.wal / 2 ** 20, 1)}`,
          `${fmt(rssBuild.rss, 0)} (${fmt(rssBuild.hwm, 0)})`,
        ],
      ],
    ),
    '',
    'Database size after `PRAGMA wal_checkpoint(TRUNCATE)`. The bench process also holds the corpus and ' +
      'the query strings.',
    '',
    `### Server-side latency, ${queries.length} SciFact queries, index in this process (ms)`,
    '',
    mdTable(
      ['ranking', 'p50', 'p90', 'p99', 'cold p50', 'cold p99'],
      side.map((r) => [
        r.label,
        fmt(r.warm.p50, 2),
        fmt(r.warm.p90, 2),
        fmt(r.warm.p99, 2),
        fmt(r.cold.p50, 2),
        fmt(r.cold.p99, 2),
      ]),
    ),
    '',
    'Warm: second pass over the queries; cold: first pass after the postings cache was emptied.',
    '',
    `### REST \`POST /search\` under autocannon (${CONNECTIONS.join(' and ')} connections, ${WARMUP_S} s warm-up, ${DURATION_S} s measured)`,
    '',
    mdTable(
      ['workers', 'type', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors', 'server CPU ms/req', 'RSS MB'], // prettier-ignore
      restRows.map((r) => [
        String(r.workers),
        r.type,
        String(r.connections),
        fmt(r.rps, 0),
        fmt(r.p50, 2),
        fmt(r.p99, 2),
        String(r.total),
        String(r.non2xx),
        String(r.errors),
        fmt(r.cpuPerReq, 2),
        fmt(r.rss, 0),
      ]),
    ),
    '',
    `Bodies \`{query, type, numResults: ${NUM_RESULTS}}\` cycling through the ${queries.length} queries, no web ` +
      'providers configured (so `auto` is local). p50/p99 from every response; server CPU (user + system, ' +
      'workers included, from /proc) over the measured run divided by its requests; RSS is VmRSS of the ' +
      'server and its workers right after the run. Start → first /health 200: ' +
      WORKERS.map((w) => `${fmt(restRows.find((r) => r.workers === w).startMs, 0)} ms (${w} worker(s))`).join(', ') +
      '.',
    '',
    `Goal for \`instant\` end to end: p50 ≤ 10 ms and ≥ 500 req/s on 2 cores: ` +
      `${headline.p50 <= 10 && headline.rps >= 500 ? 'met' : 'not met'} ` +
      `(${fmt(headline.rps, 0)} req/s, p50 ${fmt(headline.p50, 2)} ms with ${headline.workers} worker(s) and ` +
      `${headline.connections} connections). With 1 connection each request is alone on the server: its p50 ` +
      'is the latency a caller sees when the server is not saturated.',
    '',
    `(took ${fmt((performance.now() - started) / 1000, 0)} s)`,
    '',
    `search_instant_p50_ms=${fmt(headline.p50, 2)} search_instant_rps=${fmt(headline.rps, 0)} ` +
      `index_docs_per_s=${fmt(rate, 0)}`,
  ];
  console.log(lines.join('\n'));
}

await main();
process.exit(0);
