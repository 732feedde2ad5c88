// Code context figures: CoSQA dev quality of the code index with no model (MRR@10, Recall@10 by
// ../shared/bench/score-retrieval.mjs; each function indexed as a chunk through the chunker, queries
// through /context's own query path), the share of queries whose answer is inside a 2,000-token /context
// response, and, on a large real tree (this project's node_modules by default), the indexing rate, the
// index's size and /context latency.
// Usage: npm run build && node bench/context.mjs [--tree PATH] [--queries N]
// Last line: `cosqa_mrr10=… cosqa_in_2000_tokens=… index_files_per_s=… context_p50_ms=…`
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  ROOT,
  fmt,
  machineLine,
  makeTmpDir,
  mdTable,
  percentile,
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
const COSQA = path.resolve(ROOT, '..', 'shared', 'data', 'cosqa');
const SCORER = path.resolve(ROOT, '..', 'shared', 'bench', 'score-retrieval.mjs');
const dist = (p) => path.join(ROOT, 'dist', p);
const { loadConfig } = await import(dist('config/config.js'));
const { createApp } = await import(dist('app.js'));
const { createLogger } = await import(dist('lib/logger.js'));
const { chunkFile } = await import(dist('core/code/chunk/chunk.js'));
const { languagesInQuery } = await import(dist('core/code/chunk/languages.js'));

const ctxOf = (app) => ({
  requestId: 'bench',
  logger: app.logger,
  signal: new AbortController().signal,
  caller: null,
  clock: app.clock,
  betas: new Set(),
});
const appAt = (dir) =>
  createApp(loadConfig({}, { dataDir: dir, logLevel: 'silent' }), { logger: createLogger('silent') });

// ---------------------------------------------------------------------------------------------------
// CoSQA dev: each function is one file of a source, chunked like any Python file

function cosqa() {
  const dir = makeTmpDir('trawl-bench-cosqa-');
  const app = appAt(dir);
  const code = readJsonlGz(path.join(COSQA, 'code.jsonl.gz'));
  const queries = readTsv(path.join(COSQA, 'queries-dev.tsv')).map((q) => [q.qid, q.text]);
  const t = performance.now();
  app.db.transaction(() => {
    for (const c of code) {
      const chunks = chunkFile(`${c._id}.py`, c.code, 'python').map((k) => ({ ...k, source: 'cosqa', path: c._id }));
      app.services.code.replaceFile('cosqa', c._id, chunks, c._id, Date.now());
    }
  })();
  const indexSeconds = (performance.now() - t) / 1000;
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
  return { app, dir, queries, code, scored, mrr: metric('MRR@10'), r10: metric('Recall@10'), indexSeconds, latencies };
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
  // queries: symbols and doc phrases of the tree itself, as an agent would ask them
  const rows = app.db
    .prepare(
      'SELECT symbol, doc FROM code_chunks WHERE symbol IS NOT NULL AND doc IS NOT NULL AND length(doc) > 30 ORDER BY url LIMIT ?',
    )
    .all(TREE_QUERIES * 5);
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

const started = performance.now();
const load = machineLine();
const cq = cosqa();
const share = await inResponse(cq);
await cq.app.close();
removeTmpDir(cq.dir);
const big = await tree();
const cqLat = Float64Array.from(cq.latencies).sort();

console.log(
  [
    '## Code context (bench/context.mjs)',
    '',
    load,
    '',
    '### CoSQA dev, no model',
    '',
    mdTable(
      ['measurement', 'result'],
      [
        ['functions indexed (chunked as Python files)', `${cq.code.length} in ${fmt(cq.indexSeconds, 1)} s`],
        ['MRR@10', fmt(cq.mrr, 4)],
        ['Recall@10', fmt(cq.r10, 4)],
        ['answer inside a 2,000-token /context response', `${fmt(share * 100, 1)}%`],
        ['code index query p50 / p99 (100 results)', `${fmt(percentile(cqLat, 50), 2)} / ${fmt(percentile(cqLat, 99), 2)} ms`], // prettier-ignore
      ],
    ),
    '',
    `Scorer output:\n\n\`\`\`\n${cq.scored.trim()}\n\`\`\``,
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
    `cosqa_mrr10=${fmt(cq.mrr, 4)} cosqa_in_2000_tokens=${fmt(share, 3)} index_files_per_s=${fmt(big.first.files / big.first.seconds, 0)} context_p50_ms=${fmt(percentile(big.ms, 50), 2)}`,
  ].join('\n'),
);
process.exit(0);
