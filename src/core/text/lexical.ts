/**
 * The lexical vector model: how Trawl scores text against text when no embedding provider is set.
 *
 * - Terms: `terms(text)` from ./tokenize.ts (Unicode words, lower case, identifiers kept whole and split
 *   into parts, English stopwords dropped, Porter stems; CJK as character bigrams).
 * - Collection: the N passages of the page at hand (not a global corpus), so a term is weighed by how
 *   specific it is to a part of this page. df(t) = number of passages containing t.
 * - idf(t) = ln((1 + N) / (1 + df(t))) + 1 (smoothed: never zero, and a query term absent from the page
 *   gets the largest weight, ln(1 + N) + 1, which lowers every score of a page that lacks it).
 * - Weight of term t in text x: w(t, x) = (1 + ln tf(t, x)) · idf(t) when tf > 0 (sublinear tf).
 * - Vectors are L2-normalised; similarity is their cosine (the dot product), in [0, 1] because every
 *   weight is non-negative. Queries are vectorised with the same idf.
 */

/** A sparse term → weight vector; those made here are L2-normalised. */
export type SparseVector = ReadonlyMap<string, number>;

export interface LexicalModel {
  /** Number of passages the idf was computed over. */
  readonly size: number;
  /** The smoothed idf of a term: ln((1 + N) / (1 + df)) + 1. */
  idf(term: string): number;
  /** The L2-normalised TF-IDF vector of a term list (sublinear tf). Empty map for no terms. */
  vectorize(termList: readonly string[]): SparseVector;
}

/** Term → count. */
export function termFrequencies(termList: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of termList) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** Scales a vector to unit length (returns it unchanged when it is all zeros). */
export function normalize(vector: Map<string, number>): Map<string, number> {
  let sum = 0;
  for (const w of vector.values()) sum += w * w;
  if (sum === 0) return vector;
  const norm = Math.sqrt(sum);
  for (const [term, w] of vector) vector.set(term, w / norm);
  return vector;
}

/** Builds the model over the term lists of the page's passages. */
export function createLexicalModel(passages: readonly (readonly string[])[]): LexicalModel {
  const df = new Map<string, number>();
  for (const passage of passages) {
    for (const term of new Set(passage)) df.set(term, (df.get(term) ?? 0) + 1);
  }
  const n = passages.length;
  const idf = (term: string) => Math.log((1 + n) / (1 + (df.get(term) ?? 0))) + 1;
  return {
    size: n,
    idf,
    vectorize(termList) {
      const vector = new Map<string, number>();
      for (const [term, tf] of termFrequencies(termList)) vector.set(term, (1 + Math.log(tf)) * idf(term));
      return normalize(vector);
    },
  };
}

/** Cosine similarity of two sparse vectors (any length; 0 when either is empty). */
export function cosine(a: SparseVector, b: SparseVector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [term, w] of small) {
    const other = large.get(term);
    if (other !== undefined) dot += w * other;
  }
  for (const w of a.values()) na += w * w;
  for (const w of b.values()) nb += w * w;
  if (na === 0 || nb === 0) return 0;
  return Math.min(1, Math.max(0, dot / Math.sqrt(na * nb)));
}

/** The normalised weighted mean of vectors (equal weights when none are given): the "topic" of a set. */
export function centroid(vectors: readonly SparseVector[], weights?: readonly number[]): SparseVector {
  const sum = new Map<string, number>();
  vectors.forEach((vector, i) => {
    const weight = weights?.[i] ?? 1;
    for (const [term, w] of vector) sum.set(term, (sum.get(term) ?? 0) + w * weight);
  });
  return normalize(sum);
}
