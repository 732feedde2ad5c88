#!/usr/bin/env node
// Trains Trawl's code retrieval model (src/core/code/model/code-model.ts) on mined question → code pairs
// (mine.mjs): static term embeddings, summed and normalised, with a question table and a code table that
// start equal (so training starts from bag-of-words matching, each term weighted by its rarity) and learn
// with a symmetric in-batch contrastive loss (InfoNCE), lazy Adam on the rows a batch touches. Seeded:
// the same data and options give the same file. CPU only, one thread, TypeScript-free plain JS loops.
//
// Before anything, every pair is checked against CoSQA (exclusion.mjs): one exact or near-duplicate
// body, or one CoSQA query, fails the run.
//
// Usage: npm run build && node scripts/code-model/train.mjs [--pairs FILE] [--out FILE] [--dims N]
//   [--vocab N] [--epochs N] [--batch N] [--lr X] [--towers 1|2] [--limit N] [--seed N] [--val N]
// Prints the held-out pairs' MRR after each epoch; writes the model and OUT.json (its training summary).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
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
const VOCAB = Number(opt(args, '--vocab', 50_000));
const MIN_COUNT = Number(opt(args, '--min-count', 3));
const EPOCHS = Number(opt(args, '--epochs', 3));
const BATCH = Number(opt(args, '--batch', 512));
const LR = Number(opt(args, '--lr', 0.003));
const TOWERS = Number(opt(args, '--towers', 2));
const LIMIT = Number(opt(args, '--limit', 0)) || Infinity;
const SEED = Number(opt(args, '--seed', 1));
const VAL = Number(opt(args, '--val', 2000));
const SCALE = Number(opt(args, '--scale', 20));
const MAX_QUERY_TERMS = 64;
const MAX_CODE_TERMS = Number(opt(args, '--max-terms', 256));
const COSQA = path.resolve(ROOT, '..', 'shared', 'data', 'cosqa');

const distModel = path.join(ROOT, 'dist', 'core', 'code', 'model', 'code-model.js');
if (!fs.existsSync(distModel)) {
  console.error('train: dist/ not found; run `npm run build` first');
  process.exit(1);
}
const { modelTerms, serializeCodeModel, parseCodeModel } = await import(distModel);
const log = (...a) => console.error('train:', ...a);
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);

// ---------------------------------------------------------------------------------------------------
// Data, checked against the evaluation set

const pairsBytes = fs.readFileSync(PAIRS);
const all = gunzipSync(pairsBytes)
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
const towers = Array.from({ length: TOWERS }, () => ({
  w: Float32Array.from(init),
  g: new Float32Array(V * DIMS),
  m: new Float32Array(V * DIMS),
  v: new Float32Array(V * DIMS),
  touched: new Uint8Array(V),
  list: [],
}));
const qTower = towers[0];
const cTower = towers[TOWERS - 1];

/** Sums the rows of each text into `out` (B × DIMS) and returns the norms. */
function pool(tower, texts, out) {
  const norms = new Float32Array(texts.length);
  out.fill(0);
  texts.forEach((terms, b) => {
    const o = b * DIMS;
    for (const r of terms) {
      const base = r * DIMS;
      for (let d = 0; d < DIMS; d++) out[o + d] += tower.w[base + d];
    }
    let n = 0;
    for (let d = 0; d < DIMS; d++) n += out[o + d] * out[o + d];
    n = Math.sqrt(n) || 1;
    norms[b] = n;
    for (let d = 0; d < DIMS; d++) out[o + d] /= n;
  });
  return norms;
}

/** Back through the normalisation into the rows of each text: dRow += d(unit)·(I − uuᵀ)/‖x‖. */
function scatter(tower, texts, unit, dUnit, norms) {
  const dx = new Float32Array(DIMS);
  texts.forEach((terms, b) => {
    const o = b * DIMS;
    let dot = 0;
    for (let d = 0; d < DIMS; d++) dot += unit[o + d] * dUnit[o + d];
    for (let d = 0; d < DIMS; d++) dx[d] = (dUnit[o + d] - unit[o + d] * dot) / norms[b];
    for (const r of terms) {
      if (!tower.touched[r]) {
        tower.touched[r] = 1;
        tower.list.push(r);
      }
      const base = r * DIMS;
      for (let d = 0; d < DIMS; d++) tower.g[base + d] += dx[d];
    }
  });
}

let step = 0;
const B1 = 0.9;
const B2 = 0.999;
function adam(tower, lr) {
  const c1 = 1 - B1 ** step;
  const c2 = 1 - B2 ** step;
  for (const r of tower.list) {
    const base = r * DIMS;
    for (let d = 0; d < DIMS; d++) {
      const i = base + d;
      const g = tower.g[i];
      tower.m[i] = B1 * tower.m[i] + (1 - B1) * g;
      tower.v[i] = B2 * tower.v[i] + (1 - B2) * g * g;
      tower.w[i] -= (lr * (tower.m[i] / c1)) / (Math.sqrt(tower.v[i] / c2) + 1e-8);
      tower.g[i] = 0;
    }
    tower.touched[r] = 0;
  }
  tower.list = [];
}

/** One batch: symmetric InfoNCE over the in-batch similarities; returns the loss. */
function trainBatch(batch, lr) {
  const n = batch.length;
  const qu = new Float32Array(n * DIMS);
  const cu = new Float32Array(n * DIMS);
  const qTexts = batch.map((i) => Q[i]);
  const cTexts = batch.map((i) => C[i]);
  const qn = pool(qTower, qTexts, qu);
  const cn = pool(cTower, cTexts, cu);
  const S = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let dot = 0;
      const a = i * DIMS;
      const b = j * DIMS;
      for (let d = 0; d < DIMS; d++) dot += qu[a + d] * cu[b + d];
      S[i * n + j] = SCALE * dot;
    }
  }
  // dL/dS for rows (question → code) and columns (code → question), each averaged over the batch
  const G = new Float32Array(n * n);
  let loss = 0;
  for (let i = 0; i < n; i++) {
    let max = -Infinity;
    for (let j = 0; j < n; j++) max = Math.max(max, S[i * n + j]);
    let sum = 0;
    for (let j = 0; j < n; j++) sum += Math.exp(S[i * n + j] - max);
    loss += Math.log(sum) + max - S[i * n + i];
    for (let j = 0; j < n; j++) G[i * n + j] += (Math.exp(S[i * n + j] - max) / sum - (i === j ? 1 : 0)) / (2 * n);
  }
  for (let j = 0; j < n; j++) {
    let max = -Infinity;
    for (let i = 0; i < n; i++) max = Math.max(max, S[i * n + j]);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += Math.exp(S[i * n + j] - max);
    loss += Math.log(sum) + max - S[j * n + j];
    for (let i = 0; i < n; i++) G[i * n + j] += (Math.exp(S[i * n + j] - max) / sum - (i === j ? 1 : 0)) / (2 * n);
  }
  const dq = new Float32Array(n * DIMS);
  const dc = new Float32Array(n * DIMS);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const g = SCALE * G[i * n + j];
      if (g === 0) continue;
      const a = i * DIMS;
      const b = j * DIMS;
      for (let d = 0; d < DIMS; d++) {
        dq[a + d] += g * cu[b + d];
        dc[b + d] += g * qu[a + d];
      }
    }
  }
  scatter(qTower, qTexts, qu, dq, qn);
  scatter(cTower, cTexts, cu, dc, cn);
  step++;
  for (const t of towers) adam(t, lr);
  return loss / (2 * n);
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
