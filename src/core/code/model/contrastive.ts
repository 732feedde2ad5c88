/**
 * The code model's training step, shared by the trainer (scripts/code-model/train.mjs, the shipped
 * model) and the adaptation experiment (scripts/code-model/adapt.mjs, refined on an index's own docs): two
 * tables of term rows (questions, code), a text's vector the sum of its rows normalised, and a
 * symmetric in-batch contrastive loss (InfoNCE: each question against every code of the batch, and
 * back), with lazy Adam on the rows a batch touched. Plain loops over typed arrays, one thread.
 */

/** A table of term rows and its optimiser state. */
export interface Tower {
  /** Rows × dims weights. */
  w: Float32Array;
  g: Float32Array;
  m: Float32Array;
  v: Float32Array;
  touched: Uint8Array;
  list: number[];
}

/** A table around `weights` (copied), with zeroed optimiser state. */
export function tower(weights: Float32Array): Tower {
  const n = weights.length;
  return {
    w: Float32Array.from(weights),
    g: new Float32Array(n),
    m: new Float32Array(n),
    v: new Float32Array(n),
    touched: new Uint8Array(n),
    list: [],
  };
}

export interface ContrastiveOptions {
  dims: number;
  /** Similarities are multiplied by this before the softmax (1 / temperature). */
  scale: number;
  /** Share of a question's terms left out at random in each batch (at least one kept). */
  dropout: number;
  random: () => number;
}

/**
 * Cross-entropy of each line of the n × n similarities `S` against its diagonal element (line `a`'s
 * element `b` at `a * lineStride + b * stride`), its gradient added into `G` (averaged over the batch
 * and the two directions); returns the summed loss.
 */
function softmaxLoss(S: Float32Array, G: Float32Array, n: number, lineStride: number, stride: number): number {
  let loss = 0;
  for (let a = 0; a < n; a++) {
    const base = a * lineStride;
    let max = -Infinity;
    for (let b = 0; b < n; b++) max = Math.max(max, S[base + b * stride]!);
    let sum = 0;
    for (let b = 0; b < n; b++) sum += Math.exp(S[base + b * stride]! - max);
    loss += Math.log(sum) + max - S[a * n + a]!;
    for (let b = 0; b < n; b++)
      G[base + b * stride]! += (Math.exp(S[base + b * stride]! - max) / sum - (a === b ? 1 : 0)) / (2 * n);
  }
  return loss;
}

const B1 = 0.9;
const B2 = 0.999;

/** A trainer over a question table and a code table (the same object for one shared table). */
export function contrastive(q: Tower, c: Tower, options: ContrastiveOptions) {
  const { dims, scale, dropout, random } = options;
  let step = 0;

  /** Sums each text's rows into `out` (texts × dims), normalised; returns the norms. */
  const pool = (t: Tower, texts: Int32Array[], out: Float32Array): Float32Array => {
    const norms = new Float32Array(texts.length);
    out.fill(0);
    texts.forEach((terms, b) => {
      const o = b * dims;
      for (const r of terms) {
        const base = r * dims;
        for (let d = 0; d < dims; d++) out[o + d]! += t.w[base + d]!;
      }
      let n = 0;
      for (let d = 0; d < dims; d++) n += out[o + d]! * out[o + d]!;
      n = Math.sqrt(n) || 1;
      norms[b] = n;
      for (let d = 0; d < dims; d++) out[o + d]! /= n;
    });
    return norms;
  };

  /** Back through the normalisation into each text's rows: d(row) += d(unit)·(I − uuᵀ)/‖x‖. */
  const scatter = (t: Tower, texts: Int32Array[], unit: Float32Array, dUnit: Float32Array, norms: Float32Array) => {
    const dx = new Float32Array(dims);
    texts.forEach((terms, b) => {
      const o = b * dims;
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += unit[o + d]! * dUnit[o + d]!;
      for (let d = 0; d < dims; d++) dx[d] = (dUnit[o + d]! - unit[o + d]! * dot) / norms[b]!;
      for (const r of terms) {
        if (!t.touched[r]) {
          t.touched[r] = 1;
          t.list.push(r);
        }
        const base = r * dims;
        for (let d = 0; d < dims; d++) t.g[base + d]! += dx[d]!;
      }
    });
  };

  const adam = (t: Tower, lr: number) => {
    const c1 = 1 - B1 ** step;
    const c2 = 1 - B2 ** step;
    for (const r of t.list) {
      const base = r * dims;
      for (let d = 0; d < dims; d++) {
        const i = base + d;
        const g = t.g[i]!;
        t.m[i] = B1 * t.m[i]! + (1 - B1) * g;
        t.v[i] = B2 * t.v[i]! + (1 - B2) * g * g;
        t.w[i]! -= (lr * (t.m[i]! / c1)) / (Math.sqrt(t.v[i]! / c2) + 1e-8);
        t.g[i] = 0;
      }
      t.touched[r] = 0;
    }
    t.list = [];
  };

  const drop = (terms: Int32Array): Int32Array => {
    if (dropout <= 0 || terms.length <= 1) return terms;
    const out = terms.filter(() => random() >= dropout);
    return out.length > 0 ? out : terms.subarray(0, 1);
  };

  return {
    pool,
    /** One batch of (question, code) pairs; returns the mean loss. */
    step(questions: Int32Array[], codes: Int32Array[], lr: number): number {
      const n = questions.length;
      const qTexts = questions.map(drop);
      const qu = new Float32Array(n * dims);
      const cu = new Float32Array(n * dims);
      const qn = pool(q, qTexts, qu);
      const cn = pool(c, codes, cu);
      const S = new Float32Array(n * n);
      for (let i = 0; i < n; i++) {
        const a = i * dims;
        for (let j = 0; j < n; j++) {
          const b = j * dims;
          let dot = 0;
          for (let d = 0; d < dims; d++) dot += qu[a + d]! * cu[b + d]!;
          S[i * n + j] = scale * dot;
        }
      }
      // dL/dS, rows (question → code) and columns (code → question), each averaged over the batch
      const G = new Float32Array(n * n);
      let loss = 0;
      loss += softmaxLoss(S, G, n, n, 1); // each row: a question against every code
      loss += softmaxLoss(S, G, n, 1, n); // each column: a code against every question
      const dq = new Float32Array(n * dims);
      const dc = new Float32Array(n * dims);
      for (let i = 0; i < n; i++) {
        const a = i * dims;
        for (let j = 0; j < n; j++) {
          const g = scale * G[i * n + j]!;
          if (g === 0) continue;
          const b = j * dims;
          for (let d = 0; d < dims; d++) {
            dq[a + d]! += g * cu[b + d]!;
            dc[b + d]! += g * qu[a + d]!;
          }
        }
      }
      scatter(q, qTexts, qu, dq, qn);
      scatter(c, codes, cu, dc, cn);
      step++;
      adam(q, lr);
      if (c !== q) adam(c, lr);
      return loss / (2 * n);
    },
  };
}
