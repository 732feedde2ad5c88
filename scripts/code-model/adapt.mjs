// Adapting the code model to the code being indexed (issue 33, item 2), as a measured experiment: the
// index's own documented functions give question → code pairs (a doc's first paragraph → the code without
// it, as the shipped model was trained), the index's new terms get rows of their own, and a few passes of
// the trainer's contrastive step (src/core/code/model/contrastive.ts) refine the table for this index.
// bench/code-adapt.mjs measures it on CoSQA (the corpus's docstrings as "your code", never the queries);
// docs/code-context.md#adapting-to-your-code says why Trawl does not run it at index time.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = (p) => path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', p);
const { contrastive, tower } = await import(dist('core/code/model/contrastive.js'));
const { modelOf, modelTerms } = await import(dist('core/code/model/code-model.js'));
const { seededRandom } = await import(dist('lib/seeded-random.js'));

/** The model refined on `pairs` ({q, code}); the base is left as it was; its version names the base and the pairs. */
export function adaptModel(base, pairs, { epochs = 2, lr = 0.001, batch = 256, seed = 1, minCount = 2 } = {}) {
  const { dims } = base;
  const random = seededRandom(seed);
  const qTerms = pairs.map((p) => modelTerms(p.q, 64));
  const cTerms = pairs.map((p) => modelTerms(p.code, base.header.maxTerms));
  // the index's own words: a row each, starting equal in both tables (a term matches itself)
  const known = new Map(base.terms.map((t, i) => [t, i]));
  const df = new Map();
  for (const list of [qTerms, cTerms])
    for (const terms of list) for (const t of terms) if (!known.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const added = [...df.entries()]
    .filter(([, n]) => n >= minCount)
    .map(([t]) => t)
    .sort();
  const terms = [...base.terms, ...added];
  added.forEach((t, i) => known.set(t, base.terms.length + i));
  const baseTables = base.floatTables();
  const typical = meanRowNorm(baseTables.at(-1), dims);
  const fresh = new Float32Array(added.length * dims);
  for (let r = 0; r < added.length; r++) {
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      const x = random() - 0.5;
      fresh[r * dims + d] = x;
      norm += x * x;
    }
    for (let d = 0; d < dims; d++) fresh[r * dims + d] *= typical / Math.sqrt(norm || 1);
  }
  const towers = baseTables.map((t) => {
    const grown = new Float32Array(terms.length * dims);
    grown.set(t);
    grown.set(fresh, t.length);
    return tower(grown);
  });
  const trainer = contrastive(towers[0], towers.at(-1), { dims, scale: 20, dropout: 0, random });
  const ids = (list) => Int32Array.from(list.flatMap((t) => (known.has(t) ? [known.get(t)] : [])));
  const Q = qTerms.map(ids);
  const C = cTerms.map(ids);
  const usable = pairs.map((_, i) => i).filter((i) => Q[i].length > 0 && C[i].length > 0);
  const total = epochs * Math.ceil(usable.length / batch);
  let step = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = usable.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [usable[i], usable[j]] = [usable[j], usable[i]];
    }
    for (let at = 0; at + 1 < usable.length; at += batch) {
      const part = usable.slice(at, at + batch);
      trainer.step(part.map((i) => Q[i]), part.map((i) => C[i]), lr * Math.max(0.1, 1 - step++ / total)); // prettier-ignore
    }
  }
  const digest = createHash('sha256');
  for (const p of pairs) digest.update(p.q).update('\u0000').update(p.code).update('\u0001');
  const version = `${base.version}+${digest.digest('hex').slice(0, 8)}`;
  return modelOf({ ...base.header, vocab: terms.length }, terms, towers.map((t) => t.w), version); // prettier-ignore
}

function meanRowNorm(table, dims) {
  const rows = table.length / dims;
  let sum = 0;
  for (let r = 0; r < rows; r++) {
    let n = 0;
    for (let d = 0; d < dims; d++) n += table[r * dims + d] ** 2;
    sum += Math.sqrt(n);
  }
  return sum / (rows || 1);
}
