// The shipped code model in /context: its load on first use (ms, RSS added; a fresh process each run), and
// on CoSQA dev (6,268 chunks, 500 queries) the code index written with and without its vectors
// (chunks/s, 2,000 chunks per `replaceFiles` as `trawl index` writes), the background re-embedding of an
// index made without them, and /context with the hybrid ranking against the lexical one: p50 / p99 of
// one client, MRR@10 and Recall@10 (../shared/bench/score-retrieval.mjs) of the snippets' order.
// Usage: npm run build && node bench/code-model.mjs [--runs N]
// Last line: `load_ms=… rss_added_mb=… ingest_chunks_per_s=… ingest_chunks_per_s_off=… reembed_chunks_per_s=…
// context_p50_ms=… context_p99_ms=… context_p50_ms_off=… mrr10=… mrr10_off=…`
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import {
  COSQA_DIR,
  ROOT,
  SCORER,
  inProcessTrawl,
  fmt,
  machineLine,
  makeTmpDir,
  mdTable,
  percentile,
  readJsonlGz,
  readTsv,
  removeTmpDir,
  requireBuild,
  summarize,
} from './lib.mjs';

requireBuild();
const args = process.argv.slice(2);
const RUNS = Number(args.includes('--runs') ? args[args.indexOf('--runs') + 1] : 5);
const COSQA = COSQA_DIR;
const dist = (p) => path.join(ROOT, 'dist', p);
const { appAt, ctxOf } = await inProcessTrawl();
const { chunkFile } = await import(dist('core/code/chunk/chunk.js'));
const { writeInBatches } = await import(dist('core/code/index/write-batches.js'));

/** The model's load in a fresh process, as the loader logs it (ms, RSS added). */
function loadOnce() {
  const script = `
    const { createCodeModelLoader } = await import(${JSON.stringify(dist('core/code/model/shipped-model.js'))});
    let line;
    const logger = { info: (o) => (line = o), warn: (o) => (line = o) };
    createCodeModelLoader({ setting: undefined, logger }).get();
    console.log(JSON.stringify(line));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out);
}

const loads = Array.from({ length: RUNS }, loadOnce);
const loadMs = summarize(loads.map((l) => l.ms)).median;
const rssMb = summarize(loads.map((l) => l.rssAddedMb)).median;

const code = readJsonlGz(path.join(COSQA, 'code.jsonl.gz'));
const queries = readTsv(path.join(COSQA, 'queries-dev.tsv')).map((q) => [q.qid, q.text]);
const files = code.map((c) => ({
  path: c._id,
  hash: c._id,
  chunks: chunkFile(`${c._id}.py`, c.code, 'python').map((k) => ({ ...k, source: 'cosqa', path: c._id })),
}));
const chunkCount = files.reduce((n, f) => n + f.chunks.length, 0);

/** Writes CoSQA in `trawl index` batches; chunks/s (the model loaded before, as a first query would). */
async function ingest(app) {
  app.services.codeModel.vectors.ready();
  const started = performance.now();
  await writeInBatches(files, (batch) => app.services.code.replaceFiles('cosqa', batch, Date.now()));
  app.services.code.settle();
  return chunkCount / ((performance.now() - started) / 1000);
}

/** /context over the dev queries: latencies, and the scorer's figures of the snippets' order. */
async function queryAll(app, dir) {
  const ms = [];
  const run = [];
  for (const [qid, q] of queries) {
    const s = performance.now();
    const out = await app.services.context.run({ query: q, tokensNum: 2000 }, ctxOf(app));
    ms.push(performance.now() - s);
    const ranked = await app.services.context.run({ query: q, tokensNum: 100_000 }, ctxOf(app));
    const seen = new Set();
    for (const src of ranked.sources) {
      const id = src.location.replace(/^cosqa\//, '').replace(/:\d+-\d+$/, '');
      if (seen.has(id)) continue;
      seen.add(id);
      run.push(`${qid} Q0 ${id} ${seen.size} ${1000 - seen.size} trawl`);
    }
    void out;
  }
  const runFile = path.join(dir, 'run.txt');
  fs.writeFileSync(runFile, `${run.join('\n')}\n`);
  const scored = execFileSync(process.execPath, [SCORER, '--qrels', path.join(COSQA, 'qrels-dev.txt'), '--run', runFile], { encoding: 'utf8' }); // prettier-ignore
  const figure = (name) => Number(new RegExp(`^${name}\\s+([0-9.]+)`, 'm').exec(scored)?.[1]);
  ms.sort((a, b) => a - b);
  return {
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    mrr: figure('MRR@10'),
    recall: figure('Recall@10'),
    scored,
  };
}

/** Ingest rates of fresh indexes, the two settings alternating (the first build of a process warms the JIT). */
const rates = { model: [], off: [] };
for (let i = 0; i < RUNS; i++) {
  for (const [name, setting] of [
    ['off', 'off'],
    ['model', undefined],
  ]) {
    const dir = makeTmpDir('trawl-bench-code-model-');
    const app = appAt(dir, setting);
    rates[name].push(await ingest(app));
    await app.close();
    removeTmpDir(dir);
  }
}

const sides = {};
for (const [name, setting] of [
  ['model', undefined],
  ['off', 'off'],
]) {
  const dir = makeTmpDir('trawl-bench-code-model-');
  const app = appAt(dir, setting);
  try {
    await ingest(app);
    await app.services.codeModel.vectors.idle();
    sides[name] = { rate: summarize(rates[name]).median, ...(await queryAll(app, dir)) };
  } finally {
    await app.close();
  }
  // the index made without the model, opened with it: the background job embeds every chunk
  if (name === 'off') {
    const again = appAt(dir, undefined);
    const started = performance.now();
    again.services.codeModel.vectors.ready();
    await again.services.codeModel.vectors.idle();
    sides.reembed = chunkCount / ((performance.now() - started) / 1000);
    await again.close();
  }
  removeTmpDir(dir);
}

console.log(`# The shipped code model in /context\n\n${machineLine()}\n`);
console.log(`Model load on first use, median of ${RUNS} fresh processes: ${fmt(loadMs, 0)} ms, RSS added ${fmt(rssMb, 0)} MB.\n`); // prettier-ignore
console.log(
  mdTable(
    ['CoSQA dev (6,268 chunks, 500 queries)', 'hybrid (model)', 'lexical (TRAWL_CODE_MODEL=off)'],
    [
      [`ingest chunks/s, 2,000 per replaceFiles (median of ${RUNS})`, fmt(sides.model.rate, 0), fmt(sides.off.rate, 0)],
      ['/context p50 ms (2,000 tokens, one client)', fmt(sides.model.p50, 2), fmt(sides.off.p50, 2)],
      ['/context p99 ms', fmt(sides.model.p99, 2), fmt(sides.off.p99, 2)],
      ['MRR@10 of the snippets', fmt(sides.model.mrr, 4), fmt(sides.off.mrr, 4)],
      ['Recall@10 of the snippets', fmt(sides.model.recall, 4), fmt(sides.off.recall, 4)],
      ['background re-embedding, chunks/s', fmt(sides.reembed, 0), '–'],
    ],
  ),
);
console.log(
  `\nload_ms=${fmt(loadMs, 0)} rss_added_mb=${fmt(rssMb, 0)} ingest_chunks_per_s=${fmt(sides.model.rate, 0)} ingest_chunks_per_s_off=${fmt(sides.off.rate, 0)} reembed_chunks_per_s=${fmt(sides.reembed, 0)} context_p50_ms=${fmt(sides.model.p50, 2)} context_p99_ms=${fmt(sides.model.p99, 2)} context_p50_ms_off=${fmt(sides.off.p50, 2)} mrr10=${fmt(sides.model.mrr, 4)} mrr10_off=${fmt(sides.off.mrr, 4)}`,
);
