// Adapting the code model to the indexed code (issue 33, item 2), measured on CoSQA dev: the corpus's own
// documented functions (doc → code without it; never the queries) refine the shipped model
// (scripts/code-model/adapt.mjs), and both models rank the 500 dev queries, dense alone and fused with
// the lexical list as /context fuses them (lexical score / best + MODEL_WEIGHT × cosine, 60 lexical and
// 100 dense candidates). Also the adaptation's time against the index's own ingest of the same chunks.
// Usage: npm run build && node bench/code-adapt.mjs [--epochs N] [--lr X]
// Last line: `base_mrr10=… adapted_mrr10=… base_dense_mrr10=… adapted_dense_mrr10=… adapt_s=… ingest_s=…`
import fs from 'node:fs';
import path from 'node:path';
import { COSQA_DIR, ROOT, fmt, inProcessTrawl, machineLine, makeTmpDir, mdTable, readJsonlGz, readTsv, removeTmpDir, requireBuild } from './lib.mjs'; // prettier-ignore

requireBuild();
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const EPOCHS = Number(opt('--epochs', 2));
const LR = Number(opt('--lr', 0.001));
const dist = (p) => path.join(ROOT, 'dist', p);
const { chunkFile } = await import(dist('core/code/chunk/chunk.js'));
const { languagesInQuery } = await import(dist('core/code/chunk/languages.js'));
const { loadCodeModel } = await import(dist('core/code/model/code-model.js'));
const { codeWithoutDoc } = await import(dist('core/code/model/chunk-text.js'));
const { MODEL_WEIGHT } = await import(dist('core/code/context/fuse-scores.js'));
const { adaptModel } = await import('../scripts/code-model/adapt.mjs');
const { questionOf } = await import('../scripts/code-model/pairs.mjs');

const { appAt } = await inProcessTrawl();
const dir = makeTmpDir('trawl-bench-adapt-');
const app = appAt(dir, 'off');
const code = readJsonlGz(path.join(COSQA_DIR, 'code.jsonl.gz'));
const files = code.map((c) => ({ id: c._id, chunks: chunkFile(`${c._id}.py`, c.code, 'python').map((k) => ({ ...k, source: 'cosqa', path: c._id })) })); // prettier-ignore
const t0 = performance.now();
app.db.transaction(() => {
  for (const f of files) app.services.code.replaceFile('cosqa', f.id, f.chunks, f.id, Date.now());
})();
const ingestSeconds = (performance.now() - t0) / 1000;
const chunks = files.flatMap((f) => f.chunks);
const queries = readTsv(path.join(COSQA_DIR, 'queries-dev.tsv')).map((q) => ({ qid: q.qid, ...split(q.text) }));
const qrels = new Map(fs.readFileSync(path.join(COSQA_DIR, 'qrels-dev.txt'), 'utf8').split('\n').filter(Boolean).map((l) => { const p = l.split(/\s+/); return [p[0], p[2]]; })); // prettier-ignore
function split(text) {
  const { languages, rest } = languagesInQuery(text);
  return { text: rest.trim() || text, languages };
}
const lexical = new Map(queries.map((q) => [q.qid, app.services.code.search(q.text, { limit: 60, languages: q.languages })])); // prettier-ignore
await app.close();
removeTmpDir(dir);

/** MRR@10 and Recall@10 of ranked chunk lists (a function cut in parts counts once, at its best part). */
function score(lists) {
  let mrr = 0;
  let r10 = 0;
  for (const q of queries) {
    const paths = [...new Set(lists.get(q.qid))].slice(0, 10);
    const rank = paths.indexOf(qrels.get(q.qid));
    if (rank >= 0) {
      mrr += 1 / (rank + 1);
      r10++;
    }
  }
  return { mrr: mrr / queries.length, r10: r10 / queries.length };
}

function measure(model) {
  const vectors = chunks.map((c) => model.embedChunk(c));
  const dense = new Map();
  const fused = new Map();
  for (const q of queries) {
    const v = model.embedQuery(q.text);
    const near = vectors
      .map((x, i) => {
        let dot = 0;
        for (let d = 0; d < v.length; d++) dot += x[d] * v[d];
        return { i, cosine: dot };
      })
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, 100);
    dense.set(
      q.qid,
      near.map((n) => chunks[n.i].path),
    );
    const lex = lexical.get(q.qid);
    const best = lex[0]?.score || 1;
    const floor = near.at(-1)?.cosine ?? 0;
    const byPath = new Map();
    const cos = new Map(near.map((n) => [`${chunks[n.i].path}:${chunks[n.i].startLine}`, n.cosine]));
    const lexOf = new Map(lex.map((h) => [`${h.path}:${h.startLine}`, h.score / best]));
    for (const key of new Set([...cos.keys(), ...lexOf.keys()])) {
      const s = (lexOf.get(key) ?? 0) + MODEL_WEIGHT * (cos.get(key) ?? floor);
      const p = key.slice(0, key.lastIndexOf(':'));
      if (!(byPath.get(p) >= s)) byPath.set(p, s);
    }
    fused.set(
      q.qid,
      [...byPath.entries()].sort((a, b) => b[1] - a[1]).map(([p]) => p),
    );
  }
  return { dense: score(dense), fused: score(fused) };
}

const base = loadCodeModel(path.join(ROOT, 'models', 'code-retriever.bin'));
const pairs = chunks.flatMap((c) => {
  const q = questionOf(c.doc);
  return q ? [{ q, code: `${c.symbol ?? ''}\n${codeWithoutDoc(c.code, c.language)}` }] : [];
});
const a0 = performance.now();
const adapted = adaptModel(base, pairs, { epochs: EPOCHS, lr: LR });
const adaptSeconds = (performance.now() - a0) / 1000;
const before = measure(base);
const after = measure(adapted);
const row = (label, m) => [label, fmt(m.dense.mrr, 4), fmt(m.dense.r10, 3), fmt(m.fused.mrr, 4), fmt(m.fused.r10, 3)];
console.log(`## Adapting the code model to the indexed code (bench/code-adapt.mjs)\n\n${machineLine()}\n`);
console.log(`CoSQA dev, ${queries.length} queries, ${chunks.length} chunks; ${pairs.length} pairs from the corpus's own docs; ${EPOCHS} epochs, lr ${LR}; MODEL_WEIGHT ${MODEL_WEIGHT}.\n`); // prettier-ignore
console.log(mdTable(['model', 'dense MRR@10', 'dense R@10', 'fused MRR@10', 'fused R@10'], [row(`shipped (${base.version})`, before), row(`adapted (+${adapted.terms.length - base.terms.length} terms)`, after)])); // prettier-ignore
console.log(`\nAdapting took ${fmt(adaptSeconds, 1)} s; the code index's own ingest of the same chunks (words only, one transaction) ${fmt(ingestSeconds, 1)} s.\n`); // prettier-ignore
console.log(`base_mrr10=${fmt(before.fused.mrr, 4)} adapted_mrr10=${fmt(after.fused.mrr, 4)} base_dense_mrr10=${fmt(before.dense.mrr, 4)} adapted_dense_mrr10=${fmt(after.dense.mrr, 4)} adapt_s=${fmt(adaptSeconds, 1)} ingest_s=${fmt(ingestSeconds, 1)}`); // prettier-ignore
