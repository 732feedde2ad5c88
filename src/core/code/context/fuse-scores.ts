/**
 * The hybrid ranking of /context with Trawl's code model: the lexical list (BM25F) and the model's
 * nearest chunks fused by score, not by rank, so a clear lexical winner stays one and the model
 * decides among near ties and adds chunks that share no word with the question. docs/code-context.md.
 */

/** The weight of the model's cosine against the lexical score scaled to 1 (set on CoSQA's dev split). */
export const MODEL_WEIGHT = 1.25;

/**
 * The least cosine at which a chunk the lexical index did not find joins the answer: unrelated code sits
 * near 0 (a question about Kubernetes charts against an HTTP pool's method: 0.03), a chunk that answers
 * without sharing a word well above ("utc now" against `datetime.utcnow()`: 0.18). Below it, a question
 * nothing matches gets an empty answer, not the least bad chunk.
 */
export const MIN_DENSE_COSINE = 0.1;

/**
 * `lexicalScore / best lexical score + weight × cosine`, best first. A chunk missing from the dense list
 * gets its lowest cosine (it is at most that near); one missing from the lexical list gets 0 for its
 * lexical part, and joins only at a cosine of at least MIN_DENSE_COSINE.
 */
export function fuseScores<K>(
  lexical: readonly { key: K; score: number }[],
  dense: readonly { key: K; cosine: number }[],
  weight: number = MODEL_WEIGHT,
): { key: K; score: number }[] {
  const best = lexical.reduce((m, h) => Math.max(m, h.score), 0);
  const floor = dense.reduce((m, h) => Math.min(m, h.cosine), Infinity);
  const cosines = new Map(dense.map((h) => [h.key, h.cosine]));
  const fused = new Map<K, number>();
  for (const h of lexical) {
    fused.set(h.key, (best > 0 ? h.score / best : 0) + weight * (cosines.get(h.key) ?? (dense.length ? floor : 0)));
  }
  for (const h of dense) if (!fused.has(h.key) && h.cosine >= MIN_DENSE_COSINE) fused.set(h.key, weight * h.cosine);
  return [...fused].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score);
}
