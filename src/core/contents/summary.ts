/**
 * Extractive, query-focused summaries without a language model: sentences ranked by lexical cosine to
 * the query (or to the page's lead-weighted centroid) plus a position prior, near-duplicates dropped by
 * maximal marginal relevance, the chosen ones given back in document order. Deterministic.
 */
import { centroid, cosine, createLexicalModel, type SparseVector } from '../text/lexical.js';
import { splitSentences } from '../text/sentences.js';
import { terms } from '../text/tokenize.js';
import { contentBlocks, leadWeights } from './highlights.js';
import type { Page } from './page.js';

/** Characters of a summary when the caller sets none. */
export const DEFAULT_SUMMARY_CHARACTERS = 600;
/** Weight of the position prior: the first sentence gets +0.1, the last +0. */
export const POSITION_PRIOR = 0.1;
/** MMR trade-off: relevance weighs 0.7, redundancy with what is already chosen 0.3. */
export const MMR_LAMBDA = 0.7;
/** A sentence this similar (cosine) to a chosen one is a near-duplicate and never chosen. */
export const DUPLICATE_SIMILARITY = 0.7;

// Long pages: only the first sentences are ranked (summaries of the lead matter most, and it bounds work).
const MAX_SENTENCES = 400;
const MIN_SENTENCE_CHARACTERS = 25;
const MIN_SENTENCE_TERMS = 3;

export interface SummaryOptions {
  query?: string;
  maxCharacters?: number;
}

interface Sentence {
  text: string;
  vector: SparseVector;
  score: number;
}

interface Candidate {
  text: string;
  terms: string[];
}

/** The page's prose sentences; short or term-poor ones ("This works.") only when there is nothing else. */
function pageSentences(page: Page): Candidate[] {
  const prose = contentBlocks(page).filter(({ block }) => !['code', 'table', 'heading', 'rule'].includes(block.kind));
  const source = prose.length > 0 ? prose : contentBlocks(page);
  const all = source
    .flatMap(({ block }) => splitSentences(block.text))
    .slice(0, MAX_SENTENCES)
    .map((text) => ({ text, terms: terms(text) }));
  const full = all.filter((s) => s.text.length >= MIN_SENTENCE_CHARACTERS && s.terms.length >= MIN_SENTENCE_TERMS);
  return full.length > 0 ? full : all;
}

function rank(sentences: Candidate[], query: string | undefined): Sentence[] {
  const model = createLexicalModel(sentences.map((s) => s.terms));
  const vectors = sentences.map((s) => model.vectorize(s.terms));
  const queryTerms = query ? terms(query) : [];
  const target = queryTerms.length > 0 ? model.vectorize(queryTerms) : centroid(vectors, leadWeights(vectors.length));
  const n = sentences.length;
  return sentences.map(({ text }, i) => ({
    text,
    vector: vectors[i]!,
    score: cosine(target, vectors[i]!) + POSITION_PRIOR * (n > 1 ? 1 - i / (n - 1) : 1),
  }));
}

/** Maximal marginal relevance within the budget; returns chosen indexes. */
function choose(ranked: Sentence[], budget: number): number[] {
  const chosen: number[] = [];
  let left = budget;
  const open = new Set(ranked.map((_, i) => i));
  while (open.size > 0) {
    let best = -1;
    let bestValue = -Infinity;
    for (const i of open) {
      const redundancy = Math.max(0, ...chosen.map((j) => cosine(ranked[i]!.vector, ranked[j]!.vector)));
      const fits = ranked[i]!.text.length + (chosen.length > 0 ? 1 : 0) <= left;
      if (!fits || redundancy >= DUPLICATE_SIMILARITY) {
        open.delete(i);
        continue;
      }
      const value = MMR_LAMBDA * ranked[i]!.score - (1 - MMR_LAMBDA) * redundancy;
      if (value > bestValue) [best, bestValue] = [i, value];
    }
    if (best < 0) break;
    open.delete(best);
    left -= ranked[best]!.text.length + (chosen.length > 0 ? 1 : 0);
    chosen.push(best);
  }
  return chosen;
}

/**
 * An extractive summary of the page: whole sentences, most relevant to `query` (else most central),
 * without near-duplicates, in document order, within `maxCharacters` (default 600). When even the best
 * sentence is longer than that, it is cut at a word boundary. Empty only for a page without text.
 */
export function extractiveSummary(page: Page, options: SummaryOptions = {}): string {
  const budget = Math.max(1, Math.floor(options.maxCharacters ?? DEFAULT_SUMMARY_CHARACTERS));
  const sentences = pageSentences(page);
  if (sentences.length === 0) return '';
  const ranked = rank(sentences, options.query?.trim() || undefined);
  const chosen = choose(ranked, budget).sort((a, b) => a - b);
  if (chosen.length > 0) return chosen.map((i) => ranked[i]!.text).join(' ');
  const top = ranked.reduce((a, b) => (b.score > a.score ? b : a));
  const at = top.text.lastIndexOf(' ', budget - 1);
  return `${top.text.slice(0, at > budget / 2 ? at : budget - 1).trimEnd()}…`;
}
