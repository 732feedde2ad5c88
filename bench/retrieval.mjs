// Retrieval quality of the search index on BEIR SciFact (and CoSQA with --cosqa), scored by
// ../shared/bench/score-retrieval.mjs, with no model: the lexical ranking alone.
// Usage: npm run build && node bench/retrieval.mjs [--dataset scifact|cosqa|all] [--types instant,auto,...]
// Each search type runs its local pipeline (retrieveLocal: the query, feedback variations, fused by
// reciprocal rank), as /search does with no web providers and no embeddings configured.
// The corpus is imported as documents (import://<dataset>/<id>, title + text) into a fresh data
// directory, through the same store and index the server uses; each query asks for 100 results.
// Prints Markdown tables; the last line is `scifact_ndcg10=… cosqa_mrr10=…`.
// With --code-model [FILE] (default models/code-retriever.bin), each type also runs fused with Trawl's
// code model (item 4 of issue 33: does the code model help prose?): the query's 100 nearest documents by
// the model (document vector: title and text read by the question table, `--code-model-side code` for
// the code table) fused with the type's list by reciprocal rank (k = 60), as /search fuses an
// embeddings provider's list.
// With --database-url postgres://…, the corpus is written to PostgreSQL (a fresh schema, dropped after)
// and the index is built as a replica builds it, by its document follower; the ranking must not change.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, fmt, machineLine, makeTmpDir, mdTable, readJsonlGz, readTsv, summarize } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const which = opt('--dataset', 'scifact');
const databaseUrl = opt('--database-url', undefined);
const types = opt('--types', 'instant,auto,deep-lite,deep-reasoning').split(',');
const codeModelFile = args.includes('--code-model')
  ? path.resolve(
      args[args.indexOf('--code-model') + 1]?.startsWith('--') || !args[args.indexOf('--code-model') + 1]
        ? path.join(ROOT, 'models', 'code-retriever.bin')
        : args[args.indexOf('--code-model') + 1],
    )
  : null;
const codeModelSide = opt('--code-model-side', 'question');
const DATA = path.resolve(ROOT, '..', 'shared', 'data');
const SCORER = path.resolve(ROOT, '..', 'shared', 'bench', 'score-retrieval.mjs');

const dist = (p) => path.join(ROOT, 'dist', p);
if (!fs.existsSync(dist('core/search/search-index.js'))) {
  console.error('bench: dist/ not built; run `npm run build` first');
  process.exit(1);
}
const { openDatabase } = await import(dist('store/sqlite/database.js'));
const { createDocumentsRepo } = await import(dist('store/sqlite/documents.js'));
const { createSearchIndex } = await import(dist('core/search/search-index.js'));
const { retrieveLocal } = await import(dist('core/search/retrieve.js'));
const { PIPELINES, fuse } = await import(dist('core/search/pipelines.js'));
const { localWrites } = await import(dist('core/documents/write-path.js'));
const { createDocumentFollower } = await import(dist('core/replica/document-follower.js'));
const { openPgStore } = await import(dist('store/pg/database.js'));
const { createPgDocumentsRepo } = await import(dist('store/pg/documents.js'));
const { createPgDocumentLog } = await import(dist('store/pg/document-log.js'));

/** The corpus written to PostgreSQL and followed into `db` as a replica does; the schema is dropped after. */
async function throughPostgres(db, documents, index, records, now) {
  const schema = `bench_retrieval_${process.pid}`;
  const pg = await openPgStore(databaseUrl, { schema });
  const log = createPgDocumentLog(pg.pool);
  try {
    const shared = createPgDocumentsRepo(pg.pool);
    for (let i = 0; i < records.length; i += 500) await shared.upsertMany(records.slice(i, i + 500), now);
    const follower = createDocumentFollower(db, log, localWrites(db, documents, index));
    // a transaction open elsewhere in the database holds the log back: read until every document is in
    while ((await documents.count()) < records.length) {
      if ((await follower.catchUp()) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await log.close();
    await pg.pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pg.close();
  }
}

const DATASETS = {
  scifact: {
    corpus: () =>
      readJsonlGz(path.join(DATA, 'scifact', 'corpus.jsonl.gz')).map((d) => ({
        id: d._id,
        title: d.title ?? '',
        text: d.text ?? '',
      })),
    queries: () => readTsv(path.join(DATA, 'scifact', 'queries.tsv')),
    qrels: path.join(DATA, 'scifact', 'qrels.txt'),
    headline: 'ndcg@10',
  },
  cosqa: {
    corpus: () =>
      readJsonlGz(path.join(DATA, 'cosqa', 'code.jsonl.gz')).map((d) => ({ id: d._id, title: '', text: d.code ?? '' })),
    queries: () => readTsv(path.join(DATA, 'cosqa', 'queries-dev.tsv')),
    qrels: path.join(DATA, 'cosqa', 'qrels-dev.txt'),
    headline: 'mrr@10',
  },
};

async function run(name) {
  const ds = DATASETS[name];
  const dir = makeTmpDir(`trawl-retrieval-${name}-`);
  const db = openDatabase(dir);
  const documents = createDocumentsRepo(db);
  const index = createSearchIndex(db, documents);
  const corpus = ds.corpus();
  const now = new Date().toISOString();
  const t0 = performance.now();
  const records = corpus.map((d) => ({
    url: `import://${name}/${d.id}`,
    title: d.title,
    text: d.text,
    author: null,
    publishedDate: null,
    kind: 'text',
    metadata: {},
    origin: 'import',
    collection: name,
    contentHash: String(d.id),
    fetchedAt: now,
  }));
  if (databaseUrl) await throughPostgres(db, documents, index, records, now);
  else {
    for (let i = 0; i < records.length; i += 500) {
      const batch = records.slice(i, i + 500);
      documents.writeNow(batch, now);
      index.index(batch);
    }
  }
  db.transaction(() => index.repo.mergeAll())();
  index.table.noteWrite();
  const indexSeconds = (performance.now() - t0) / 1000;

  const queries = ds.queries();
  const dense = codeModelFile ? await denseLists(corpus, queries, name) : null;
  const variants = types.flatMap((type) => (dense ? [type, `${type}+code-model`] : [type]));
  const byType = variants.map((variant) => {
    const type = variant.replace('+code-model', '');
    const lines = [];
    const times = [];
    for (const q of queries) {
      const s = performance.now();
      const lists = retrieveLocal(index, q.text, undefined, PIPELINES[type]);
      let ids = lists.length === 1 ? lists[0] : fuse(lists.map((l) => l.map(String))).map((f) => Number(f.key));
      let urls = index.urls(ids.slice(0, 100));
      if (variant !== type) {
        // by document name: the dense list names corpus ids, the index its own ids
        const names = ids.slice(0, 100).map((id) => urls.get(id).split('/').pop());
        const fused = fuse([names, dense.get(q.qid)]).map((f) => f.key);
        const byName = new Map(names.map((n, i) => [n, ids[i]]));
        ids = fused.slice(0, 100).map((n, i) => byName.get(n) ?? -1 - i);
        urls = new Map(ids.map((id, i) => [id, `x/${fused[i]}`]));
      }
      times.push(performance.now() - s);
      ids
        .slice(0, 100)
        .forEach((id, r) => lines.push(`${q.qid} Q0 ${urls.get(id).split('/').pop()} ${r + 1} ${100 - r} trawl`));
    }
    const runFile = path.join(dir, `${variant}.trec`);
    fs.writeFileSync(runFile, lines.join('\n') + '\n');
    const out = execFileSync(process.execPath, [SCORER, '--qrels', ds.qrels, '--run', runFile], { encoding: 'utf8' });
    const metrics = Object.fromEntries(
      [...out.matchAll(/([a-z]+@\d+)[=:\s]+([\d.]+)/gi)].map((m) => [m[1].toLowerCase(), Number(m[2])]),
    );
    return { type: variant, times: summarize(times), metrics, out: out.trim() };
  });
  db.close();
  return { name, docs: corpus.length, indexSeconds, byType };
}

/** Each query's 100 nearest corpus documents by the code model (corpus ids), brute force. */
async function denseLists(corpus, queries, name) {
  const { loadCodeModel } = await import(dist('core/code/model/code-model.js'));
  const model = loadCodeModel(codeModelFile);
  const embedDoc = codeModelSide === 'code' ? model.embedCode : model.embedQuery;
  const vectors = corpus.map((d) => embedDoc(`${d.title}\n${d.text}`));
  const out = new Map();
  for (const q of queries) {
    const v = model.embedQuery(q.text);
    const scored = vectors.map((x, i) => {
      let dot = 0;
      for (let k = 0; k < v.length; k++) dot += x[k] * v[k];
      return [String(corpus[i].id), dot];
    });
    scored.sort((a, b) => b[1] - a[1]);
    out.set(
      q.qid,
      scored.slice(0, 100).map((x) => x[0]),
    );
  }
  console.error(
    `bench: ${name}: code model ${model.version} (${codeModelSide} side) embedded ${corpus.length} documents`,
  );
  return out;
}

console.log(
  codeModelFile ? '# Retrieval quality (lexical, and fused with the code model)\n' : '# Retrieval quality (no model)\n',
);
console.log(machineLine());
console.log('');
const names = which === 'all' ? Object.keys(DATASETS) : [which];
const results = [];
for (const name of names) results.push(await run(name));
if (databaseUrl) console.log('Documents written to PostgreSQL and indexed by a replica’s document follower.\n');
console.log(
  mdTable(
    ['dataset', 'type', 'docs', 'nDCG@10', 'MRR@10', 'Recall@10', 'Recall@100', 'query p50 ms', 'p90 ms', 'index s'],
    results.flatMap((r) =>
      r.byType.map((t) => [
        r.name,
        t.type,
        String(r.docs),
        fmt(t.metrics['ndcg@10'], 4),
        fmt(t.metrics['mrr@10'], 4),
        fmt(t.metrics['recall@10'], 4),
        fmt(t.metrics['recall@100'], 4),
        fmt(t.times.median, 2),
        fmt(t.times.p90, 2),
        fmt(r.indexSeconds, 1),
      ]),
    ),
  ),
);
const headlineOf = (r) => r.byType.find((t) => t.type === 'auto') ?? r.byType[0];
for (const r of results) console.log(`\n### ${r.name} (${headlineOf(r).type})\n\n\`\`\`\n${headlineOf(r).out}\n\`\`\``);
console.log(
  results
    .map(
      (r) =>
        `${r.name}_${DATASETS[r.name].headline.replace('@', '')}=${fmt(headlineOf(r).metrics[DATASETS[r.name].headline], 4)}`,
    )
    .join(' '),
);
