/**
 * A text answer without a language model: the sentences of the sources that share the most words with
 * the question, the best of each source first, quoted as they stand and cited. Honest and deterministic;
 * it selects what the sources say and writes nothing of its own.
 */
import { splitSentences } from '../text/sentences.js';
import { terms } from '../text/tokenize.js';
import type { Source } from './grounding.js';

/** Sentences an extractive answer quotes at most. */
export const EXTRACTIVE_SENTENCES = 3;
/** Characters an extractive answer holds at most. */
export const EXTRACTIVE_CHARACTERS = 700;

interface Scored {
  text: string;
  source: number;
  score: number;
  order: number;
}

/** The answer's sentences (each with the source number it came from), best first. */
export function extractiveAnswer(query: string, sources: readonly Source[]): { sentence: string; source: number }[] {
  const wanted = new Set(terms(query));
  if (wanted.size === 0) return [];
  const scored: Scored[] = [];
  for (const s of sources) {
    splitSentences(s.evidence).forEach((text, order) => {
      const words = new Set(terms(text));
      if (words.size < 3 || text.length < 25) return;
      const shared = [...wanted].filter((w) => words.has(w)).length;
      // the share of the question the sentence covers, tempered by its length
      if (shared > 0)
        scored.push({
          text: text.trim(),
          source: s.n,
          score: shared / wanted.size / Math.log2(2 + words.size / 12),
          order,
        });
    });
  }
  scored.sort((a, b) => b.score - a.score || a.source - b.source || a.order - b.order);
  // one sentence per source first (breadth), then the best remaining
  const bestPerSource = [...new Map([...scored].reverse().map((x) => [x.source, x])).values()].sort(
    (a, b) => b.score - a.score || a.source - b.source,
  );
  const picked: Scored[] = [];
  let length = 0;
  for (const x of [...bestPerSource, ...scored]) {
    if (picked.length === EXTRACTIVE_SENTENCES) break;
    if (picked.includes(x) || picked.some((p) => p.text === x.text)) continue;
    if (length + x.text.length > EXTRACTIVE_CHARACTERS && picked.length > 0) continue;
    picked.push(x);
    length += x.text.length + 1;
  }
  return picked.map((x) => ({ sentence: x.text, source: x.source }));
}
