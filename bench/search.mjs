// Search at scale: an index of 103,660 documents (BEIR SciFact ×20, each copy with ~10% of its body
// words dropped by a seeded PRNG, distinct URLs), built through the store and index the server uses.
// Measures the indexing rate, the final merge, the database size per document and RSS; server-side
// latency of `instant` and `auto` over the 300 SciFact queries; then `trawl serve` on that index under
// autocannon (10 connections, 2 s warm-up, 10 s measured) with /search bodies cycling the queries, with
// one worker process and with two (`--workers 2`, one per core).
// Usage: npm run build && node bench/search.mjs [--copies 20]
// The last line is `search_instant_p50_ms=… search_instant_rps=… index_docs_per_s=…`.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import {
  CLI,
  HOST,
  ROOT,
  fmt,
  freePort,
  machineLine,
  makeTmpDir,
  mdTable,
  memoryMB,
  percentile,
  removeTmpDir,
  requireBuild,
  spawnTracked,
  stopChild,
  waitFor200,
} from './lib.mjs';

requireBuild();
const args = process.argv.slice(2);
const copies = Number(args[args.indexOf('--copies') + 1]) || 20;
const SCIFACT = path.resolve(ROOT, '..', 'shared', 'data', 'scifact');
const dist = (p) => path.join(ROOT, 'dist', p);
const { openDatabase } = await import(dist('store/database.js'));
const { createDocumentsRepo } = await import(dist('store/documents.repo.js'));
const { createSearchIndex, indexedDocuments } = await import(dist('core/search/search-index.js'));
const { retrieveLocal } = await import(dist('core/search/retrieve.js'));
const { PIPELINES } = await import(dist('core/search/pipelines.js'));

const corpus = gunzipSync(fs.readFileSync(path.join(SCIFACT, 'corpus.jsonl.gz')))
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const queries = fs
  .readFileSync(path.join(SCIFACT, 'queries.tsv'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => l.slice(l.indexOf('\t') + 1));

let seed = 20261123;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const stats = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99) };
};

/** Builds the index in `dir` the way the server writes documents (indexed in the same transaction). */
function build(dir) {
  const db = openDatabase(dir);
  const stored = createDocumentsRepo(db);
  const index = createSearchIndex(db, stored);
  const documents = indexedDocuments(db, stored, index);
  const now = new Date().toISOString();
  const started = performance.now();
  let n = 0;
  for (let k = 0; k < copies; k++) {
    const batch = [];
    for (const d of corpus) {
      const text =
        k === 0
          ? d.text
          : d.text
              .split(' ')
              .filter(() => random() > 0.1)
              .join(' ');
      batch.push({
        url: `https://sci${k}.example/${d._id}`,
        title: d.title ?? '',
        text: text ?? '',
        author: null,
        publishedDate: null,
        kind: 'html',
        metadata: {},
        origin: 'fetch',
        collection: null,
        contentHash: `${k}:${d._id}`,
        fetchedAt: now,
      });
      if (batch.length === 500) n += flush(documents, batch, now);
    }
    n += flush(documents, batch, now);
    process.stderr.write(`bench: indexed ${n} documents\n`);
  }
  const indexSeconds = (performance.now() - started) / 1000;
  const m = performance.now();
  db.transaction(() => index.repo.mergeAll())();
  index.table.noteWrite();
  const mergeSeconds = (performance.now() - m) / 1000;
  return { db, index, n, indexSeconds, mergeSeconds };
}

function flush(documents, batch, now) {
  const n = batch.length;
  if (n > 0) documents.upsertMany(batch.splice(0), now);
  return n;
}

function serverSide(index) {
  const rows = [];
  for (const type of ['instant', 'auto']) {
    const times = [];
    for (const q of queries) {
      const t = performance.now();
      retrieveLocal(index, q, undefined, PIPELINES[type]);
      times.push(performance.now() - t);
    }
    const s = stats(times);
    rows.push([type, fmt(s.p50, 2), fmt(s.p90, 2), fmt(s.p99, 2)]);
  }
  return rows;
}

function cannon(port, key, type, durationS, recorder) {
  let i = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://${HOST}:${port}/search`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        connections: 10,
        duration: durationS,
        timeout: 10,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ query: queries[i++ % queries.length], type, numResults: 10 }),
            }),
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (recorder) instance.on('response', (_c, _s, _b, ms) => recorder.push(ms));
  });
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
    { stdio: 'ignore', cwd: ROOT },
  );
  await waitFor200(port, '/health', { intervalMs: 20, timeoutMs: 30000, child });
  const rows = [];
  try {
    for (const type of ['instant', 'auto']) {
      await cannon(port, key, type, 2);
      const samples = [];
      const result = await cannon(port, key, type, 10, samples);
      const s = stats(samples);
      const non2xx = result.non2xx + result.errors;
      rows.push([String(workers), type, fmt(result.requests.average, 0), fmt(s.p50, 2), fmt(s.p99, 2), String(non2xx)]);
    }
    rows.rss = rssOfTree(child.pid);
  } finally {
    await stopChild(child);
  }
  return rows;
}

/** RSS of a process and its children (the workers), in MB. */
function rssOfTree(pid) {
  const kids = fs.existsSync(`/proc/${pid}/task/${pid}/children`)
    ? fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
    : [];
  return [pid, ...kids].reduce((sum, p) => sum + (memoryMB(p).rss || 0), 0);
}

const dir = makeTmpDir('trawl-search-');
try {
  console.log('# Search at scale\n');
  console.log(machineLine());
  const built = build(dir);
  built.db.pragma('wal_checkpoint(TRUNCATE)');
  const bytes = fs.statSync(path.join(dir, 'trawl.sqlite')).size;
  const rssBuild = process.memoryUsage().rss / 2 ** 20;
  const side = serverSide(built.index);
  built.db.close();
  const key = execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'bench', '--data-dir', dir], {
    encoding: 'utf8',
  }).trim();
  const one = await rest(dir, key, 1);
  const two = await rest(dir, key, 2);
  const restRows = [...one, ...two];
  const rate = built.n / built.indexSeconds;
  console.log(`\n## Index (${built.n} documents)\n`);
  console.log(
    mdTable(
      ['documents', 'indexing docs/s', 'final merge s', 'database bytes/doc', 'bench RSS MB after build'],
      [[String(built.n), fmt(rate, 0), fmt(built.mergeSeconds, 1), fmt(bytes / built.n, 0), fmt(rssBuild, 0)]],
    ),
  );
  console.log('\n## Server-side latency, 300 SciFact queries (ms)\n');
  console.log(mdTable(['type', 'p50', 'p90', 'p99'], side));
  console.log('\n## REST `/search` under autocannon (10 connections, 10 s)\n');
  console.log(mdTable(['workers', 'type', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx'], restRows));
  console.log(
    `\nserver RSS after the runs: ${fmt(one.rss, 0)} MB (1 worker), ${fmt(two.rss, 0)} MB (2 workers, all processes)`,
  );
  console.log(`search_instant_p50_ms=${two[0][3]} search_instant_rps=${two[0][2]} index_docs_per_s=${fmt(rate, 0)}`);
} finally {
  removeTmpDir(dir);
}
