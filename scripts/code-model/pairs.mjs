// Question → code pairs from a source file, as the miner (mine.mjs) and index-time adaptation see them:
// a documented function, method or class of the project's own chunker (src/core/code/chunk) gives its
// doc's first paragraph as the question and its code with the doc taken out as the answer.
//
// The answer is cut by the model's own codeWithoutDoc (src/core/code/model/chunk-text.ts, from dist/), so
// training and search read code alike. Also the evaluation set's fingerprints (exclusion.mjs) normalise code with `bareCode` here, so that a
// mined body and a CoSQA body compare equal whatever their docstrings, comments and spacing.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'dist',
  'core',
  'code',
  'model',
  'chunk-text.js',
);
const { codeWithoutDoc } = await import(dist);

/** Kinds of chunk whose doc describes the code under it. */
export const DOCUMENTED_KINDS = new Set(['function', 'method', 'class']);
const MIN_QUESTION_WORDS = 3;
const MAX_QUESTION_WORDS = 48;
const MIN_CODE_LINES = 2;
const MAX_CODE_CHARS = 6000;

// Parameter sections and tags end the prose of a doc: `Args:`, `:param x:`, `@param`, `Parameters\n----`.
const DOC_SECTION =
  /^\s*(?:args|arguments|parameters|params|returns?|yields?|raises|throws|example|examples|notes?|see also|attributes|keyword arguments|other parameters|usage)\s*:?\s*$|^\s*(?::param|:type|:return|:rtype|:raises|@param|@returns?|@throws|@example|@see|@type|@typedef|@template|@deprecated|@internal|@private|@public|@since|>>>|-{3,}|={3,})/i;
const NOT_PROSE =
  /^(?:todo|fixme|xxx|hack|copyright|license|licensed|eslint|istanbul|@ts-|prettier)\b|SPDX-License-Identifier/i;

/** The question of a doc: its first paragraph of prose, at most 48 words; null when too short to mean much. */
export function questionOf(doc) {
  if (!doc) return null;
  const lines = [];
  for (const raw of doc.split('\n')) {
    const line = raw.trim();
    if (line === '') {
      if (lines.length > 0) break;
      continue;
    }
    if (DOC_SECTION.test(line)) break;
    lines.push(line);
  }
  const text = lines.join(' ').replace(/\s+/g, ' ').trim();
  if (NOT_PROSE.test(text)) return null;
  const words = text.split(' ');
  if (words.filter((w) => /[a-z]{2,}/i.test(w)).length < MIN_QUESTION_WORDS) return null;
  return words.slice(0, MAX_QUESTION_WORDS).join(' ');
}

/** The pairs of one file's chunks: `{q, code, symbol}` for each documented function, method or class. */
export function pairsOfChunks(chunks) {
  const out = [];
  for (const c of chunks) {
    if (!DOCUMENTED_KINDS.has(c.kind)) continue;
    const q = questionOf(c.doc);
    if (!q) continue;
    const code = codeWithoutDoc(c.code, c.language);
    if (code.length > MAX_CODE_CHARS || code.split('\n').length < MIN_CODE_LINES) continue;
    out.push({ q, code, symbol: c.symbol, lang: c.language });
  }
  return out;
}

const COMMENT_ANY = /(?:^|\s)#[^\n]*|\/\/[^\n]*|\/\*[\s\S]*?\*\//g;
const STRING_TRIPLE = /[rRuUbB]{0,2}("""|''')[\s\S]*?\1/g;

/** Code reduced to what makes it the same function: no docstrings, comments or spacing, lower case. */
export function bareCode(code) {
  return code.replace(STRING_TRIPLE, ' ').replace(COMMENT_ANY, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
}
