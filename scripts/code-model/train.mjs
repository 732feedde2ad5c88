#!/usr/bin/env node
// Trains Trawl's code retrieval model (src/core/code/model/code-model.ts) on mined question → code pairs
// (mine.mjs): static term embeddings, summed and normalised, with a question table and a code table that
// start equal (so training starts from bag-of-words matching, each term weighted by its rarity) and learn
// with a symmetric in-batch contrastive loss (src/core/code/model/contrastive.ts, also used to adapt the
// model to an index). Seeded: the same data and options give the same file. CPU only, one thread.
//
// Before anything, every pair is checked against CoSQA (exclusion.mjs): one exact or near-duplicate
// body, or one CoSQA query, fails the run.
//
// Usage: npm run build && node scripts/code-model/train.mjs [--pairs FILE] [--out FILE] [--dims N]
//   [--vocab N] [--epochs N] [--batch N] [--lr X] [--towers 1|2] [--limit N] [--seed N] [--val N]
// Prints the held-out pairs' MRR after each epoch; writes the model and OUT.json (its training summary).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { loadExclusion } from './exclusion.mjs';
import { opt, rng } from './util.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const args = process.argv.slice(2);
const PAIRS = path.resolve(opt(args, '--pairs', path.join(ROOT, '.cache', 'code-model', 'pairs.jsonl.gz')));
const OUT = path.resolve(opt(args, '--out', path.join(ROOT, 'models', 'code-retriever.bin')));
const DIMS = Number(opt(args, '--dims', 128));
const VOCAB = Number(opt(args, '--vocab', 60_000));
const MIN_COUNT = Number(opt(args, '--min-count', 3));
const EPOCHS = Number(opt(args, '--epochs', 3));
const BATCH = Number(opt(args, '--batch', 512));
const LR = Number(opt(args, '--lr', 0.003));
const TOWERS = Number(opt(args, '--towers', 1));
const LIMIT = Number(opt(args, '--limit', 0)) || Infinity;
const SEED = Number(opt(args, '--seed', 1));
const VAL = Number(opt(args, '--val', 2000));
const SCALE = Number(opt(args, '--scale', 20));
/** Share of a question's terms left out at random in each batch (web questions are shorter than docs). */
const DROPOUT = Number(opt(args, '--dropout', 0));
/** Pairs kept per question text: generated code repeats one doc over many bodies. */
const SAME_QUESTION = Number(opt(args, '--same-question', 3));
const MAX_QUERY_TERMS = 64;
const MAX_CODE_TERMS = Number(opt(args, '--max-terms', 256));
const COSQA = path.resolve(ROOT, '..', 'shared', 'data', 'cosqa');

const distModel = path.join(ROOT, 'dist', 'core', 'code', 'model', 'code-model.js');
if (!fs.existsSync(distModel)) {
  console.error('train: dist/ not found; run `npm run build` first');
  process.exit(1);
}
const { modelTerms, serializeCodeModel, parseCodeModel } = await import(distModel);
const { contrastive, tower } = await import(path.join(ROOT, 'dist', 'core', 'code', 'model', 'contrastive.js'));
const log = (...a) => console.error('train:', ...a);
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);

// ---------------------------------------------------------------------------------------------------
// Data, checked against the evaluation set

const pairsBytes = fs.readFileSync(PAIRS);
let all = gunzipSync(pairsBytes)
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .slice(0, LIMIT)
  .map((l) => JSON.parse(l));
const exclusion = loadExclusion(COSQA);
const leaks = { exact: 0, near: 0, query: 0 };
for (const p of all) {
  const why = exclusion.check(p.code, p.q);
  if (why) leaks[why]++;
}
if (leaks.exact + leaks.near + leaks.query > 0) {
  console.error(
    `train: refused: the pairs hold ${leaks.exact} exact and ${leaks.near} near duplicates of CoSQA bodies and ` +
      `${leaks.query} CoSQA queries; mine again with scripts/code-model/mine.mjs`,
  );
  process.exit(2);
}
log(
  `${all.length} pairs, none from CoSQA (checked against ${exclusion.bodies} bodies, ${exclusion.queries} queries) [${seconds()} s]`,
);

const perQuestion = new Map();
const kept = all.filter((p) => {
  const key = p.q.toLowerCase();
  const n = (perQuestion.get(key) ?? 0) + 1;
  perQuestion.set(key, n);
  return n <= SAME_QUESTION;
});
log(`${all.length - kept.length} pairs left out: more than ${SAME_QUESTION} with the same question`);
all = kept;
const qTerms = all.map((p) => modelTerms(p.q, MAX_QUERY_TERMS));
const cTerms = all.map((p) => modelTerms(p.code, MAX_CODE_TERMS));
const df = new Map();
for (const list of [qTerms, cTerms]) for (const terms of list) for (const t of terms) df.set(t, (df.get(t) ?? 0) + 1);
const vocab = [...df.entries()]
  .filter(([, n]) => n >= MIN_COUNT)
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  .slice(0, VOCAB)
  .map(([t]) => t);
const row = new Map(vocab.map((t, i) => [t, i]));
const V = vocab.length;
const ids = (terms) => Int32Array.from(terms.flatMap((t) => (row.has(t) ? [row.get(t)] : [])));
const Q = qTerms.map(ids);
const C = cTerms.map(ids);
const usable = [];
for (let i = 0; i < all.length; i++) if (Q[i].length > 0 && C[i].length > 0) usable.push(i);
const val = usable.slice(usable.length - Math.min(VAL, Math.floor(usable.length / 5)));
const train = usable.slice(0, usable.length - val.length);
log(`vocabulary ${V} terms; ${train.length} training pairs, ${val.length} held out [${seconds()} s]`);

// ---------------------------------------------------------------------------------------------------
// The tables: equal at the start, each term's row of length ∝ its inverse document frequency

const random = rng(SEED);
const gauss = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
const docs = 2 * all.length;
const init = new Float32Array(V * DIMS);
for (let r = 0; r < V; r++) {
  const idf = Math.log(1 + docs / df.get(vocab[r]));
  let norm = 0;
  for (let d = 0; d < DIMS; d++) {
    const x = gauss();
    init[r * DIMS + d] = x;
    norm += x * x;
  }
  const s = idf / Math.sqrt(norm);
  for (let d = 0; d < DIMS; d++) init[r * DIMS + d] *= s;
}
const towers = Array.from({ length: TOWERS }, () => tower(init));
const qTower = towers[0];
const cTower = towers[TOWERS - 1];
const trainer = contrastive(qTower, cTower, { dims: DIMS, scale: SCALE, dropout: DROPOUT, random });
const pool = (t, texts, out) => trainer.pool(t, texts, out);
let step = 0;
/** One batch of pairs (indexes into Q and C); returns the loss. */
function trainBatch(batch, lr) {
  step++;
  return trainer.step(
    batch.map((i) => Q[i]),
    batch.map((i) => C[i]),
    lr,
  );
}

/** MRR of the held-out questions against the held-out code. */
function heldOutMrr() {
  const n = val.length;
  const qu = new Float32Array(n * DIMS);
  const cu = new Float32Array(n * DIMS);
  pool(
    qTower,
    val.map((i) => Q[i]),
    qu,
  );
  pool(
    cTower,
    val.map((i) => C[i]),
    cu,
  );
  let mrr = 0;
  for (let i = 0; i < n; i++) {
    let own = 0;
    for (let d = 0; d < DIMS; d++) own += qu[i * DIMS + d] * cu[i * DIMS + d];
    let rank = 1;
    for (let j = 0; j < n && rank <= 10; j++) {
      if (j === i) continue;
      let dot = 0;
      for (let d = 0; d < DIMS; d++) dot += qu[i * DIMS + d] * cu[j * DIMS + d];
      if (dot > own) rank++;
    }
    if (rank <= 10) mrr += 1 / rank;
  }
  return mrr / n;
}

log(`held-out MRR@10 before training ${heldOutMrr().toFixed(3)} [${seconds()} s]`);
const order = Int32Array.from(train);
const batches = Math.ceil(order.length / BATCH);
const total = EPOCHS * batches;
const history = [];
for (let epoch = 1; epoch <= EPOCHS; epoch++) {
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  let lossSum = 0;
  for (let b = 0; b < batches; b++) {
    const lr = LR * Math.max(0.05, 1 - step / total); // linear decay
    lossSum += trainBatch(Array.from(order.subarray(b * BATCH, (b + 1) * BATCH)), lr);
    if ((b + 1) % 100 === 0)
      log(`epoch ${epoch} batch ${b + 1}/${batches} loss ${(lossSum / (b + 1)).toFixed(3)} [${seconds()} s]`);
  }
  const mrr = heldOutMrr();
  history.push({ epoch, loss: Number((lossSum / batches).toFixed(4)), heldOutMrr10: Number(mrr.toFixed(4)) });
  log(`epoch ${epoch}: loss ${(lossSum / batches).toFixed(3)}, held-out MRR@10 ${mrr.toFixed(3)} [${seconds()} s]`);
}

const header = {
  format: 'trawl-code-model',
  dims: DIMS,
  vocab: V,
  towers: TOWERS,
  maxTerms: MAX_CODE_TERMS,
  training: {
    pairs: train.length,
    heldOut: val.length,
    pairsSha256: createHash('sha256').update(pairsBytes).digest('hex'),
    seed: SEED,
    epochs: EPOCHS,
    batch: BATCH,
    lr: LR,
    scale: SCALE,
    minCount: MIN_COUNT,
    dropout: DROPOUT,
    sameQuestion: SAME_QUESTION,
    history,
  },
};
const bytes = serializeCodeModel(
  header,
  vocab,
  towers.map((t) => t.w),
);
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, bytes);
const model = parseCodeModel(bytes);
const summary = {
  version: model.version,
  bytes: bytes.length,
  sha256: createHash('sha256').update(bytes).digest('hex'),
  seconds: Number(seconds()),
  ...header,
};
fs.writeFileSync(`${OUT}.json`, JSON.stringify(summary, null, 1) + '\n');
log(
  `wrote ${path.relative(process.cwd(), OUT)} (${(bytes.length / 2 ** 20).toFixed(1)} MiB, ${model.version}) in ${seconds()} s`,
);
