/**
 * Dense-vector helpers for embeddings: cosine similarity and a weighted centroid, the dense
 * counterparts of the sparse functions in ./lexical.ts.
 */

/** Cosine similarity of two dense vectors (0 when either is all zeros or lengths differ). */
export function denseCosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  return Math.max(-1, Math.min(1, dot / Math.sqrt(na * nb)));
}

/** The weighted mean of unit-normalised dense vectors (equal weights when none are given). */
export function denseCentroid(vectors: readonly (readonly number[])[], weights?: readonly number[]): number[] {
  const dim = vectors[0]?.length ?? 0;
  const sum = new Array<number>(dim).fill(0);
  vectors.forEach((vector, i) => {
    let norm = 0;
    for (const x of vector) norm += x * x;
    if (norm === 0 || vector.length !== dim) return;
    const scale = (weights?.[i] ?? 1) / Math.sqrt(norm);
    for (let d = 0; d < dim; d++) sum[d]! += vector[d]! * scale;
  });
  return sum;
}
