/**
 * Adapting the code model to the code being indexed: the index's own documented functions give
 * question → code pairs (a doc's first paragraph → the code without it, as the shipped model was
 * trained), the index's new terms get rows of their own, and a few contrastive passes over those pairs
 * refine both tables for this index. What no hosted service can do: learn the words of your code base.
 * docs/code-context.md#adapting-to-your-code.
 */
import { createHash } from 'node:crypto';
import { contrastive, tower } from './contrastive.js';
import { modelOf, modelTerms, type CodeModel } from './code-model.js';
import { seededRandom } from '../../../lib/seeded-random.js';

/** A documented piece of the indexed code: its doc's first paragraph and its code without the doc. */
export interface AdaptPair {
  q: string;
  code: string;
}

export interface AdaptOptions {
  epochs?: number;
  lr?: number;
  batch?: number;
  seed?: number;
  /** A new term gets a row when this many pairs hold it. */
  minCount?: number;
}

/** The model refined on `pairs` (the base is left as it was); its version names the base and the pairs. */
export function adaptModel(base: CodeModel, pairs: AdaptPair[], options: AdaptOptions = {}): CodeModel {
  const { epochs = 2, lr = 0.001, batch = 256, seed = 1, minCount = 2 } = options;
  const { dims } = base;
  const random = seededRandom(seed);
  const maxTerms = base.header.maxTerms;
  const qTerms = pairs.map((p) => modelTerms(p.q, 64));
  const cTerms = pairs.map((p) => modelTerms(p.code, maxTerms));
  // the index's own words: a row each, starting equal in both tables (a term matches itself)
  const known = new Map(base.terms.map((t, i) => [t, i]));
  const df = new Map<string, number>();
  for (const list of [qTerms, cTerms]) for (const terms of list) for (const t of terms) if (!known.has(t)) df.set(t, (df.get(t) ?? 0) + 1); // prettier-ignore
  const added = [...df.entries()].filter(([, n]) => n >= minCount).map(([t]) => t).sort(); // prettier-ignore
  const terms = [...base.terms, ...added];
  added.forEach((t, i) => known.set(t, base.terms.length + i));
  const rows = terms.length;
  const baseTables = base.floatTables();
  const typicalNorm = meanRowNorm(baseTables[baseTables.length - 1]!, dims);
  const fresh = new Float32Array(added.length * dims);
  for (let r = 0; r < added.length; r++) {
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      const x = random() - 0.5;
      fresh[r * dims + d] = x;
      norm += x * x;
    }
    const s = typicalNorm / Math.sqrt(norm || 1);
    for (let d = 0; d < dims; d++) fresh[r * dims + d]! *= s;
  }
  const grown = baseTables.map((t) => {
    const out = new Float32Array(rows * dims);
    out.set(t);
    out.set(fresh, t.length);
    return out;
  });
  const towers = grown.map(tower);
  const trainer = contrastive(towers[0]!, towers[towers.length - 1]!, { dims, scale: 20, dropout: 0.25, random });
  const ids = (list: string[]) => Int32Array.from(list.flatMap((t) => (known.has(t) ? [known.get(t)!] : [])));
  const Q = qTerms.map(ids);
  const C = cTerms.map(ids);
  const usable = pairs.map((_, i) => i).filter((i) => Q[i]!.length > 0 && C[i]!.length > 0);
  const total = epochs * Math.ceil(usable.length / batch);
  let step = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = usable.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [usable[i], usable[j]] = [usable[j]!, usable[i]!];
    }
    for (let at = 0; at + 1 < usable.length; at += batch) {
      const part = usable.slice(at, at + batch);
      trainer.step(
        part.map((i) => Q[i]!),
        part.map((i) => C[i]!),
        lr * Math.max(0.1, 1 - step++ / total),
      );
    }
  }
  const digest = createHash('sha256');
  for (const p of pairs) digest.update(p.q).update('\u0000').update(p.code).update('\u0001');
  const version = `${base.version}+${digest.digest('hex').slice(0, 8)}`;
  return modelOf(
    { ...base.header, vocab: rows },
    terms,
    towers.map((t) => t.w),
    version,
  );
}

function meanRowNorm(table: Float32Array, dims: number): number {
  const rows = table.length / dims;
  let sum = 0;
  for (let r = 0; r < rows; r++) {
    let n = 0;
    for (let d = 0; d < dims; d++) n += table[r * dims + d]! ** 2;
    sum += Math.sqrt(n);
  }
  return sum / (rows || 1);
}
