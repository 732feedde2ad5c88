/**
 * A code chunk's index terms: its four fields (the symbol, the doc comment and comments, the identifiers,
 * the path words and string literals) analyzed, each term counted per field.
 */
import { FIELD_COUNT } from '../../../store/search-index/search-index.types.js';
import { analyzePacked, termEpoch } from '../../search/analyzer.js';

/** What the fields of a chunk are made of. */
export interface ChunkText {
  path: string;
  symbol: string | null;
  doc: string | null;
  code: string;
}

/** A chunk's distinct terms, their counts per field (`i * FIELD_COUNT + f`, capped at 255), and field lengths. */
export interface ChunkAnalysis {
  terms: string[];
  freqs: Uint8Array;
  lengths: number[];
}

const MAX_TF = 255;

const COMMENT = /(?:\/\/|#)[^\n]*|\/\*[\s\S]*?\*\//g;
const STRING = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g;
const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*/g;
const MAYBE_COMMENT = /[#/]/;
const MAYBE_STRING = /["'`]/;

/** The four fields of a chunk, as text. */
function fieldsOf(c: ChunkText): [string, string, string, string] {
  // most chunks lack one kind or the other: their regular expressions need not run
  const hasComments = MAYBE_COMMENT.test(c.code);
  const hasStrings = MAYBE_STRING.test(c.code);
  const comments = hasComments ? (c.code.match(COMMENT) ?? []).join('\n') : '';
  const strings = hasStrings ? (c.code.match(STRING) ?? []).join(' ') : '';
  let bare = hasComments ? c.code.replace(COMMENT, ' ') : c.code;
  if (hasStrings) bare = bare.replace(STRING, ' ');
  const identifiers = (bare.match(IDENTIFIER) ?? []).join(' ');
  const pathWords = c.path.replace(/\.[a-z0-9]+$/i, '').replace(/[/_.-]+/g, ' ');
  return [c.symbol ?? '', `${c.doc ?? ''}\n${comments}`, identifiers, `${pathWords} ${strings}`];
}

// Each entry counts its terms on the analyzer's term objects (their `doc` and `index` scratch), marked
// with numbers below -1: the page index marks them with numbers above 0, so the two never mistake a mark.
let entryMark = -1;

/** The terms of a chunk's four fields. */
export function analyzeChunk(c: ChunkText): ChunkAnalysis {
  const epoch = termEpoch();
  const fields = fieldsOf(c).map(analyzePacked);
  // the terms were made anew while the fields were analyzed: their objects may repeat a string
  const index = termEpoch() === epoch ? null : new Map<string, number>();
  const mark = --entryMark;
  const terms: string[] = [];
  let freqs = new Uint8Array(32 * FIELD_COUNT);
  for (let f = 0; f < fields.length; f++) {
    for (const t of fields[f]!.terms) {
      let i = index ? index.get(t.term) : t.doc === mark ? t.index : undefined;
      if (i === undefined) {
        i = terms.length;
        if (index) index.set(t.term, i);
        else {
          t.doc = mark;
          t.index = i;
        }
        terms.push(t.term);
        if (terms.length * FIELD_COUNT > freqs.length) {
          const grown = new Uint8Array(freqs.length * 2);
          grown.set(freqs);
          freqs = grown;
        }
      }
      const at = i * FIELD_COUNT + f;
      if (freqs[at]! < MAX_TF) freqs[at]!++;
    }
  }
  return { terms, freqs: freqs.slice(0, terms.length * FIELD_COUNT), lengths: fields.map((f) => f.length) };
}
