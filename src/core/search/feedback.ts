/**
 * Query variations without a model: pseudo-relevance feedback. The terms that the best results share
 * and the rest of the index rarely has are added to the query, at a lower weight than its own terms.
 */
import type { AnalyzedQuery } from './analyzer.js';
import { idf } from './ranking/scored-postings.js';

/** Results read for feedback. */
const FEEDBACK_DOCS = 5;
/** Terms added to the query. */
const FEEDBACK_TERMS = 8;
/** Candidates whose document frequency is looked up (the most frequent in the feedback documents). */
const CANDIDATES = 40;
/** Weight of an added term against the query's own (1 each). */
const FEEDBACK_WEIGHT = 0.1;

export interface FeedbackSource {
  /** Proximity streams (the title and body terms) of documents. */
  streams(ids: number[]): Map<number, string>;
  /** Documents containing `term`. */
  docFrequency(term: string): number;
  /** Documents in the index. */
  count(): number;
}

/** The query plus the feedback terms of the documents `ids` (best first); the query itself when nothing is found. */
export function expandQuery(query: AnalyzedQuery, ids: number[], source: FeedbackSource): AnalyzedQuery {
  const top = ids.slice(0, FEEDBACK_DOCS);
  if (top.length < 2) return query;
  const counts = new Map<string, { tf: number; docs: number }>();
  for (const stream of source.streams(top).values()) {
    const seen = new Set<string>();
    for (const term of stream.split(/[ \n]/)) {
      if (!term || query.terms.has(term) || term.length < 3 || /^\d+$/.test(term)) continue;
      const c = counts.get(term) ?? { tf: 0, docs: 0 };
      c.tf++;
      if (!seen.has(term)) c.docs++;
      seen.add(term);
      counts.set(term, c);
    }
  }
  const n = source.count();
  const shared = [...counts].filter(([, c]) => c.docs >= 2).sort((a, b) => b[1].tf - a[1].tf);
  const scored = shared
    .slice(0, CANDIDATES)
    .map(([term, c]) => ({ term, score: c.docs * Math.log(1 + c.tf) * idf(n, source.docFrequency(term)) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, FEEDBACK_TERMS);
  if (scored.length === 0) return query;
  const terms = new Map(query.terms);
  for (const { term } of scored) terms.set(term, FEEDBACK_WEIGHT);
  return { terms, sequence: query.sequence };
}
