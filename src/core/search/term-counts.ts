/**
 * A text's distinct terms counted per field, for an index entry (a page's, a code chunk's). The counts
 * are kept on the analyzer's term objects (their `doc` and `index` scratch, marked with a number of this
 * entry's own) rather than in a map of the entry's; a map of the strings serves when the terms were made
 * anew while the fields were analyzed (`termEpoch()` changed), as two objects may then share a string.
 */
import { FIELD_COUNT } from '../../store/search-index/search-index.types.js';
import type { IndexTerm } from './analyzer.js';

/** A term's count in a field stops here (one byte). */
export const MAX_TF = 255;

export interface TermCounter {
  /** Counts `t` once more in field `f`; returns its index among the entry's distinct terms. */
  add(t: IndexTerm, f: number): number;
  /** The distinct terms in order of first meeting, and their counts per field (`i * FIELD_COUNT + f`). */
  result(): { terms: string[]; freqs: Uint8Array };
}

// every entry's mark is new: an object's scratch from an earlier entry is never mistaken for this one's
let lastMark = 0;

/** A counter for one entry; `sameEpoch`: the term objects were not made anew while its fields were analyzed. */
export function createTermCounter(sameEpoch: boolean, expectedTerms = 64): TermCounter {
  const mark = ++lastMark;
  const index = sameEpoch ? null : new Map<string, number>();
  const terms: string[] = [];
  let freqs = new Uint8Array(expectedTerms * FIELD_COUNT);
  return {
    add(t, f) {
      let i = index ? index.get(t.term) : t.doc === mark ? t.index : undefined;
      if (i === undefined) {
        i = terms.length;
        if (index) index.set(t.term, i);
        else {
          t.doc = mark;
          t.index = i;
        }
        terms.push(t.term);
        if ((i + 1) * FIELD_COUNT > freqs.length) {
          const grown = new Uint8Array(freqs.length * 2);
          grown.set(freqs);
          freqs = grown;
        }
      }
      const at = i * FIELD_COUNT + f;
      if (freqs[at]! < MAX_TF) freqs[at]!++;
      return i;
    },
    result: () => ({ terms, freqs: freqs.slice(0, terms.length * FIELD_COUNT) }),
  };
}
