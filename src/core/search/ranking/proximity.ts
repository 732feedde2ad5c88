/**
 * The proximity re-rank: the best candidates gain a BM25-saturated bonus for each pair of the query's
 * adjacent words that stand at most `NEAR` apart in their title or body.
 */
import type { DocTable } from '../doc-table.js';
import { B, K1, type PositionsReader, type QueryTerm } from './scored-postings.js';
import type { Hit } from './top-k.js';

/** Weight of the proximity bonus against a term's BM25 contribution. */
const PROXIMITY_WEIGHT = 0.5;
/** Words at most this far apart count as near. */
const NEAR = 2;

/** Re-ranks `hits` by the proximity bonus of the query's adjacent terms (`sequence`). */
export function proximityRerank(
  hits: Hit[],
  terms: QueryTerm[],
  sequence: string[],
  table: DocTable,
  positions: PositionsReader,
  weights: readonly number[],
): Hit[] {
  const byTerm = new Map(terms.map((t) => [t.term, t]));
  const pairs: [QueryTerm, QueryTerm, number][] = [];
  for (let i = 0; i + 1 < sequence.length; i++) {
    const a = byTerm.get(sequence[i]!);
    const b = byTerm.get(sequence[i + 1]!);
    if (a && b && a !== b) pairs.push([a, b, Math.min(a.idf, b.idf)]);
  }
  if (pairs.length === 0) return hits;
  const avg = table.avgLengths;
  return hits
    .map((hit) => {
      let bonus = 0;
      const at = new Map<QueryTerm, { title: number[]; body: number[] } | undefined>();
      const of = (t: QueryTerm) => {
        if (!at.has(t)) at.set(t, positions(t.postings, hit.id));
        return at.get(t);
      };
      // title (field 0) and body (field 2) positions
      for (const [f, key] of [
        [0, 'title'],
        [2, 'body'],
      ] as const) {
        const norm = avg[f]! > 0 ? 1 - B + (B * table.length(hit.id, f)) / avg[f]! : 1;
        for (const [a, b, pairIdf] of pairs) {
          const pa = of(a)?.[key];
          const pb = pa?.length ? of(b)?.[key] : undefined;
          const cnt = pa && pb ? nearPositions(pa, pb) : 0;
          if (cnt > 0) bonus += (PROXIMITY_WEIGHT * weights[f]! * pairIdf * cnt * (K1 + 1)) / (cnt + K1 * norm);
        }
      }
      return { id: hit.id, score: hit.score + bonus };
    })
    .sort((x, y) => y.score - x.score || x.id - y.id);
}

/** Position pairs (one from each ascending list) at most `NEAR` apart, in either order. */
export function nearPositions(a: readonly number[], b: readonly number[]): number {
  let count = 0;
  let lo = 0;
  for (const i of a) {
    while (lo < b.length && b[lo]! < i - NEAR) lo++;
    for (let j = lo; j < b.length && b[j]! <= i + NEAR; j++) if (b[j] !== i) count++;
  }
  return count;
}
