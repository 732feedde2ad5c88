// Code context figures: CoSQA dev quality of the code index with no model (MRR@10, Recall@10 by
// ../shared/bench/score-retrieval.mjs; each function indexed as a chunk through the chunker, queries
// through /context's own query path), the share of queries whose answer is inside a 2,000-token /context
// response, the code index's ingest rate and bytes per chunk against the SQLite FTS5 baseline of issue
// 23 (bench/fts5.mjs) over the same chunks, and, on a large real tree (this project's node_modules by
// default), the indexing rate, the index's size and /context latency.
// With the shipped code model unless `--code-model off` (words only; run both for the model's effect).
// /context is also timed over the real HTTP door (`trawl serve` on the CoSQA index) with 1 and 8
// clients at once, with the server's CPU time per query.
// Usage: npm run build && node bench/context.mjs [--tree PATH] [--queries N] [--code-model off|FILE]
// Last line: `cosqa_mrr10=… cosqa_in_2000_tokens=… index_files_per_s=… context_p50_ms=…
// code_index_chunks_per_s=… fts5_chunks_per_s=… code_index_bytes_per_chunk=… fts5_bytes_per_chunk=…`
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildFts5, dirBytes } from './fts5.mjs';
import http from 'node:http';
import {
  CLI,
  COSQA_DIR,
  ROOT,
  SCORER,
  inProcessTrawl,
  childEnv,
  fmt,
  freePort,
  spawnTracked,
  stopChild,
  waitFor200,
  machineLine,
  makeTmpDir,
  mdTable,
  percentile,
  ratio,
  readJsonlGz,
  readTsv,
  removeTmpDir,
  requireBuild,
} from './lib.mjs';

requireBuild();
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const TREE = path.resolve(opt('--tree', path.join(ROOT, 'node_modules')));
const TREE_QUERIES = Number(opt('--queries', 200));
const COSQA = COSQA_DIR;
const dist = (p) => path.join(ROOT, 'dist', p);
const trawl = await inProcessTrawl();
const { ctxOf } = trawl;
const { chunkFile } = await import(dist('core/code/chunk/chunk.js'));
const { languagesInQuery } = await import(dist('core/code/chunk/languages.js'));
const { chunkUrl } = await import(dist('core/code/index/code-index.js'));
/** Chunks per `replaceFiles` call of `trawl index`, files kept whole, and its batching (src/core/code/index/write-batches.ts). */
const { BATCH_CHUNKS, writeInBatches } = await import(dist('core/code/index/write-batches.js'));
const { createCodeAnalysisPool } = await import(dist('core/code/index/code-analysis.js'));

/** `--code-model off` (or a model file): the code model every app and server of this run uses (default: the shipped one). */
const CODE_MODEL = opt('--code-model', undefined);
const MODEL_ENV = CODE_MODEL ? { TRAWL_CODE_MODEL: CODE_MODEL } : {};
const appAt = (dir) => trawl.appAt(dir, CODE_MODEL);

// ---------------------------------------------------------------------------------------------------
// CoSQA dev: each function is one file of a source, chunked like any Python file

/** Bytes of the tables (and their indexes) named `code_…` in the main database, from `dbstat`. */
function codeTablesBytes(db) {
  return db
    .prepare(
      `SELECT coalesce(sum(d.pgsize), 0) FROM dbstat d JOIN sqlite_schema s ON s.name = d.name
       WHERE s.tbl_name LIKE 'code\\_%' ESCAPE '\\'`,
    )
    .pluck()
    .get();
}

async function cosqa() {
  const dir = makeTmpDir('trawl-bench-cosqa-');
  const app = appAt(dir);
  const code = readJsonlGz(path.join(COSQA, 'code.jsonl.gz'));
  const queries = readTsv(path.join(COSQA, 'queries-dev.tsv')).map((q) => [q.qid, q.text]);
  const c0 = performance.now();
  const files = code.map((c) => ({
    id: c._id,
    chunks: chunkFile(`${c._id}.py`, c.code, 'python').map((k) => ({ ...k, source: 'cosqa', path: c._id })),
  }));
  const chunkSeconds = (performance.now() - c0) / 1000;
  const chunks = files.reduce((n, f) => n + f.chunks.length, 0);
  const perFile = await writeCodeIndex(app, dir, () =>
    app.db.transaction(() => {
      for (const f of files) app.services.code.replaceFile('cosqa', f.id, f.chunks, f.id, Date.now());
    })(),
  );
  const batched = await batchedBuild(files);
  const fts5 = await fts5Baseline(files);
  const run = [];
  const latencies = [];
  for (const [qid, q] of queries) {
    const s = performance.now();
    const { languages, rest } = languagesInQuery(q);
    const hits = app.services.code.search(rest.trim() || q, { limit: 100, languages });
    latencies.push(performance.now() - s);
    const seen = new Set();
    for (const h of hits) {
      if (seen.has(h.path)) continue; // a function cut in parts counts once, at its best part
      seen.add(h.path);
      run.push(`${qid} Q0 ${h.path} ${seen.size} ${h.score} trawl`);
    }
  }
  const runFile = path.join(dir, 'run.txt');
  fs.writeFileSync(runFile, `${run.join('\n')}\n`);
  const scored = execFileSync(
    process.execPath,
    [SCORER, '--qrels', path.join(COSQA, 'qrels-dev.txt'), '--run', runFile],
    { encoding: 'utf8' },
  );
  const metric = (name) => Number(new RegExp(`^${name}\\s+([0-9.]+)`, 'im').exec(scored)?.[1] ?? NaN);
  return {
    app,
    dir,
    queries,
    code,
    scored,
    mrr: metric('MRR@10'),
    r10: metric('Recall@10'),
    chunkSeconds,
    chunks,
    perFile,
    batched,
    fts5,
    latencies,
  };
}

/**
 * Times `write` (the code index's writes); then the index as `trawl index` leaves it (the merge worker
 * idle, checkpointed); then merged into one segment and checkpointed again. Bytes of the data dir and
 * `code_*` tables, both ways.
 */
async function writeCodeIndex(app, dir, write) {
  const t = performance.now();
  await write();
  const writeSeconds = (performance.now() - t) / 1000;
  await app.services.code.index.merged();
  app.db.pragma('wal_checkpoint(TRUNCATE)');
  const leftSeconds = (performance.now() - t) / 1000;
  const left = { all: dirBytes(dir), code: codeTablesBytes(app.db) };
  app.services.code.index.repo.mergeAll();
  app.services.code.index.table.noteWrite();
  app.db.pragma('wal_checkpoint(TRUNCATE)');
  const seconds = (performance.now() - t) / 1000;
  return { writeSeconds, leftSeconds, left, seconds, all: dirBytes(dir), code: codeTablesBytes(app.db) };
}

/**
 * The same chunks in a fresh data dir, written as `trawl index` writes: whole files per `replaceFiles`
 * call until it holds `BATCH_CHUNKS` chunks, each batch analyzed in threads (started here, and timed)
 * while the one before is written.
 */
async function batchedBuild(files) {
  const dir = makeTmpDir('trawl-bench-cosqa-batched-');
  const app = appAt(dir);
  const batches = files.map((f) => ({ path: f.id, hash: f.id, chunks: f.chunks.map((c) => ({ ...c })) }));
  const r = await writeCodeIndex(app, dir, async () => {
    const pool = createCodeAnalysisPool();
    await writeInBatches(batches, (batch) => app.services.code.replaceFiles('cosqa', batch, Date.now()), pool);
    await pool.close();
  });
  await app.close();
  removeTmpDir(dir);
  return r;
}

/** FTS5 built the same way over the same chunks: (chunk URL, symbol or path, chunk text). */
async function fts5Baseline(files) {
  const dir = makeTmpDir('trawl-bench-cosqa-fts5-');
  const rows = files.flatMap((f) => f.chunks.map((k) => ({ url: chunkUrl(k), title: k.symbol ?? k.path, text: k.code }))); // prettier-ignore
  const r = await buildFts5(dir, rows);
  removeTmpDir(dir);
  return r;
}

/** Share of queries whose answer function is in the /context response at 2,000 tokens. */
async function inResponse({ app, queries }) {
  const qrels = new Map(
    fs
      .readFileSync(path.join(COSQA, 'qrels-dev.txt'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const p = l.split(/\s+/);
        return [p[0], p[2]];
      }),
  );
  let found = 0;
  for (const [qid, q] of queries) {
    const out = await app.services.context.run({ query: q, tokensNum: 2000 }, ctxOf(app));
    if (out.sources.some((s) => s.location.startsWith(`cosqa/${qrels.get(qid)}:`))) found++;
  }
  return found / queries.length;
}

// ---------------------------------------------------------------------------------------------------
// /context over the real HTTP door, with 1 and 8 clients at once

/** User + system CPU seconds a process has used so far (Linux /proc), or NaN. */
function cpuSeconds(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN;
  }
}

function postContext(port, key, query) {
  const body = JSON.stringify({ query, tokensNum: 2000 });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/context', method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, 'content-length': Buffer.byteLength(body) } }, // prettier-ignore
      (res) => {
        res.resume();
        res.once('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`/context answered ${res.statusCode}`)),
        );
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/**
 * `trawl serve` on the data dir (its own process; `env` adds settings), every query once per client
 * count: each client sends its share one after another. Latencies, and the server's CPU per query.
 */
async function overHttp(dataDir, queries, clientCounts, env = {}) {
  const key = execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'bench', '--data-dir', dataDir], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'ignore'],
    encoding: 'utf8',
  }).trim();
  const port = await freePort();
  const child = spawnTracked(process.execPath, [CLI, 'serve', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'], { env: childEnv(env), stdio: ['ignore', 'ignore', 'inherit'], cwd: ROOT }); // prettier-ignore
  try {
    await waitFor200(port, '/health', { intervalMs: 10, timeoutMs: 20000, child });
    for (const q of queries.slice(0, 20)) await postContext(port, key, q); // warm: the model loads on first use
    const out = {};
    for (const clients of clientCounts) {
      const ms = [];
      const cpu0 = cpuSeconds(child.pid);
      let next = 0;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (next < queries.length) {
            const q = queries[next++];
            const t = performance.now();
            await postContext(port, key, q);
            ms.push(performance.now() - t);
          }
        }),
      );
      out[clients] = {
        ms: Float64Array.from(ms).sort(),
        cpuMs: ((cpuSeconds(child.pid) - cpu0) * 1000) / queries.length,
      };
    }
    return out;
  } finally {
    await stopChild(child, 5000);
  }
}

// ---------------------------------------------------------------------------------------------------
// A large real tree

async function tree() {
  const dir = makeTmpDir('trawl-bench-tree-');
  const app = appAt(dir);
  const first = await app.services.indexer.indexTree({ root: TREE, name: 'tree' });
  const second = await app.services.indexer.indexTree({ root: TREE, name: 'tree' });
  app.db.pragma('wal_checkpoint(TRUNCATE)');
  const bytes = ['trawl.sqlite', 'trawl.sqlite-wal'].reduce(
    (n, f) => n + (fs.existsSync(path.join(dir, f)) ? fs.statSync(path.join(dir, f)).size : 0),
    0,
  );
  // queries: symbols and doc phrases of the tree itself, as an agent would ask them (texts are stored
  // compressed: read through the code index)
  const ids = app.db
    .prepare('SELECT id FROM code_chunks WHERE symbol IS NOT NULL ORDER BY source, path, start_line')
    .pluck()
    .all();
  const rows = [];
  for (let i = 0; i < ids.length && rows.length < TREE_QUERIES * 5; i += 1000) {
    for (const h of app.services.code.hitsByIds(ids.slice(i, i + 1000))) {
      if (h.doc && h.doc.length > 30 && rows.length < TREE_QUERIES * 5) rows.push(h);
    }
  }
  const questions = rows.filter((_, i) => i % 5 === 0).map((r) => r.doc.split(/[.\n]/)[0].slice(0, 120));
  await app.services.context.run({ query: 'warm up', tokensNum: 'dynamic' }, ctxOf(app));
  const ms = [];
  for (const q of questions) {
    const s = performance.now();
    await app.services.context.run({ query: q, tokensNum: 'dynamic' }, ctxOf(app));
    ms.push(performance.now() - s);
  }
  await app.close();
  removeTmpDir(dir);
  return { first, second, bytes, ms: Float64Array.from(ms).sort() };
}

/** The `### CoSQA chunks: code index vs FTS5` section. */
function fts5Section(cq) {
  const { fts5, chunks } = cq;
  const ftsWrites = fts5.docs / fts5.insertSeconds;
  const ftsRate = fts5.docs / fts5.seconds;
  const ftsPerChunk = fts5.bytes / fts5.docs;
  const rows = [['chunks', String(chunks), String(fts5.docs), '', '']];
  // the goals are the bulk build's, built the way FTS5's is (many per transaction); a file at a time is
  // the watch-mode workload, reported beside
  for (const [label, b, goals] of [
    ['one file per `replaceFile`', cq.perFile, false],
    [`${BATCH_CHUNKS} chunks per \`replaceFiles\``, cq.batched, true],
  ]) {
    const writes = chunks / b.writeSeconds;
    const rate = chunks / b.leftSeconds;
    const merged = chunks / b.seconds;
    const perChunk = b.left.all / chunks;
    rows.push(
      [`ingest chunks/s, writes only (${label})`, fmt(writes, 0), fmt(ftsWrites, 0), ratio(writes, ftsWrites), ''],
      [`ingest chunks/s to a checkpointed index, as \`trawl index\` leaves it (${label})`, fmt(rate, 0), fmt(ftsRate, 0), ratio(rate, ftsRate), goals ? `≥ 0.50×: ${rate / ftsRate >= 0.5 ? 'met' : 'not met'}` : ''], // prettier-ignore
      [`ingest chunks/s to a checkpointed index merged into one segment (${label})`, fmt(merged, 0), fmt(ftsRate, 0), ratio(merged, ftsRate), ''], // prettier-ignore
      [`bytes per chunk, every file of the data dir, as left (${label})`, fmt(perChunk, 0), fmt(ftsPerChunk, 0), ratio(perChunk, ftsPerChunk), goals ? `≤ 1.20×: ${perChunk / ftsPerChunk <= 1.2 ? 'met' : 'not met'}` : ''], // prettier-ignore
      [`bytes per chunk, every file of the data dir, merged into one (${label})`, fmt(b.all / chunks, 0), fmt(ftsPerChunk, 0), ratio(b.all / chunks, ftsPerChunk), ''], // prettier-ignore
      [`bytes per chunk, \`code_*\` tables only, merged into one (${label})`, fmt(b.code / chunks, 0), fmt(ftsPerChunk, 0), ratio(b.code / chunks, ftsPerChunk), ''], // prettier-ignore
    );
  }
  return [
    '### CoSQA chunks: code index vs FTS5',
    '',
    mdTable(['figure', 'code index', 'FTS5', 'ratio (Trawl/FTS5)', 'goal'], rows),
    '',
    'Both sides get the same chunks, cut beforehand. Code index, two ways, each in a fresh data directory, ' +
      'timed to a checkpointed index as `trawl index` leaves it (the merge worker idle, then `PRAGMA ' +
      'wal_checkpoint(TRUNCATE)`; the goal), then further to all segments merged into one and checkpointed ' +
      'again (no command does that merge; the merge worker merges 8 segments of a size class at a time): `replaceFile` per function inside one ' +
      'transaction (the index queried above; each CoSQA function is a file, a small write into the open ' +
      `segment, rewritten with it until it holds 64 files), and whole files per \`replaceFiles\` call until it holds ${BATCH_CHUNKS} ` +
      'chunks, one transaction each (what `trawl index` does; it wrote 200 files per call before, 200 chunks here). FTS5 (bench/fts5.mjs): each chunk as (its `code://` URL, its symbol ' +
      'or else its path, its code), 1,000 per transaction, then the same checkpoint. The code index shares ' +
      'its database with the rest of Trawl: "every file of the data dir" is the whole fresh data directory ' +
      '(trawl.sqlite with every table and the schema, the -shm file, cache.sqlite and secret.key when ' +
      'present); "`code_*` tables only" counts the pages (dbstat) of the tables named `code_…` and their ' +
      'indexes (`code_docs`, `code_blocks`, `code_chunks`, …) and ' +
      'leaves out the rest.',
  ];
}

const started = performance.now();
const load = machineLine();
const cq = await cosqa();
const share = await inResponse(cq);
await cq.app.close();
const door = await overHttp(
  cq.dir,
  cq.queries.map(([, q]) => q),
  [1, 8],
  MODEL_ENV,
);
removeTmpDir(cq.dir);
const big = await tree();
const cqLat = Float64Array.from(cq.latencies).sort();

console.log(
  [
    '## Code context (bench/context.mjs)',
    '',
    load,
    '',
    `### CoSQA dev, ${CODE_MODEL === 'off' ? 'no model (--code-model off)' : `code model ${CODE_MODEL ?? 'shipped'}`}`,
    '',
    mdTable(
      ['measurement', 'result'],
      [
        ['functions indexed (chunked as Python files) / chunks', `${cq.code.length} / ${cq.chunks}`],
        ['chunking s (before indexing, shared by both sides below)', fmt(cq.chunkSeconds, 2)],
        ['MRR@10', fmt(cq.mrr, 4)],
        ['Recall@10', fmt(cq.r10, 4)],
        ['answer inside a 2,000-token /context response', `${fmt(share * 100, 1)}%`],
        ['code index query p50 / p99 (100 results, words only)', `${fmt(percentile(cqLat, 50), 2)} / ${fmt(percentile(cqLat, 99), 2)} ms`], // prettier-ignore
        ...[1, 8].map((n) => [`POST /context over HTTP (2,000 tokens), ${n} client${n > 1 ? 's at once' : ''}: p50 / p99, server CPU per query`, `${fmt(percentile(door[n].ms, 50), 2)} / ${fmt(percentile(door[n].ms, 99), 2)} ms, ${fmt(door[n].cpuMs, 2)} ms`]), // prettier-ignore
      ],
    ),
    '',
    `Scorer output:\n\n\`\`\`\n${cq.scored.trim()}\n\`\`\``,
    '',
    ...fts5Section(cq),
    '',
    `### A large real tree: \`${path.relative(ROOT, TREE) || TREE}\``,
    '',
    mdTable(
      ['measurement', 'result'],
      [
        ['files indexed / chunks', `${big.first.files} / ${big.first.chunks}`],
        ['first index: seconds, files/s', `${fmt(big.first.seconds, 1)} s, ${fmt(big.first.files / big.first.seconds, 0)} files/s`], // prettier-ignore
        ['re-index, nothing changed', `${fmt(big.second.seconds, 2)} s`],
        [
          'skipped',
          Object.entries(big.first.skipped)
            .map(([k, n]) => `${n} ${k}`)
            .join(', '),
        ],
        ['index size (database + WAL)', `${fmt(big.bytes / 2 ** 20, 1)} MB, ${fmt(big.bytes / big.first.chunks, 0)} B/chunk`], // prettier-ignore
        [`/context latency (dynamic), ${big.ms.length} queries, p50 / p99`, `${fmt(percentile(big.ms, 50), 2)} / ${fmt(percentile(big.ms, 99), 2)} ms`], // prettier-ignore
      ],
    ),
    '',
    `(took ${fmt((performance.now() - started) / 1000, 0)} s)`,
    '',
    `cosqa_mrr10_lexical=${fmt(cq.mrr, 4)} cosqa_in_2000_tokens=${fmt(share, 3)} http_p50_ms=${fmt(percentile(door[1].ms, 50), 2)} http_p99_ms=${fmt(percentile(door[1].ms, 99), 2)} http8_p50_ms=${fmt(percentile(door[8].ms, 50), 2)} http8_cpu_ms_per_query=${fmt(door[8].cpuMs, 2)} index_files_per_s=${fmt(big.first.files / big.first.seconds, 0)} context_p50_ms=${fmt(percentile(big.ms, 50), 2)} ` + // prettier-ignore
      `code_index_chunks_per_s=${fmt(cq.chunks / cq.perFile.leftSeconds, 0)} code_index_batched_chunks_per_s=${fmt(cq.chunks / cq.batched.leftSeconds, 0)} code_index_batched_merged_chunks_per_s=${fmt(cq.chunks / cq.batched.seconds, 0)} fts5_chunks_per_s=${fmt(cq.fts5.docs / cq.fts5.seconds, 0)} ` + // prettier-ignore
      `code_index_bytes_per_chunk=${fmt(cq.perFile.left.all / cq.chunks, 0)} code_index_batched_bytes_per_chunk=${fmt(cq.batched.left.all / cq.chunks, 0)} code_tables_bytes_per_chunk=${fmt(cq.perFile.code / cq.chunks, 0)} fts5_bytes_per_chunk=${fmt(cq.fts5.bytes / cq.fts5.docs, 0)}`, // prettier-ignore
  ].join('\n'),
);
process.exit(0);
