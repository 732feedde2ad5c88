/**
 * A code chunk's index terms: its four fields (the symbol, the doc comment and comments, the identifiers,
 * the path words and string literals) analyzed, each term counted per field.
 */
import { analyzePacked, termEpoch } from '../../search/analyzer.js';
import { createTermCounter } from '../../search/term-counts.js';

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

/** The terms of a chunk's four fields. */
export function analyzeChunk(c: ChunkText): ChunkAnalysis {
  const epoch = termEpoch();
  const fields = fieldsOf(c).map(analyzePacked);
  const counter = createTermCounter(termEpoch() === epoch, 32);
  for (let f = 0; f < fields.length; f++) for (const t of fields[f]!.terms) counter.add(t, f);
  return { ...counter.result(), lengths: fields.map((f) => f.length) };
}
