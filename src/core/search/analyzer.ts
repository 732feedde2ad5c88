/**
 * The search analyzer: text → index terms with positions, the same for documents and queries, so a
 * query term matches exactly the document terms it should. Measured on BEIR SciFact (bench/retrieval.mjs).
 */
import { isStopword } from '../text/stopwords.js';
import { splitIdentifier, stem } from '../text/tokenize.js';

/** A term at a position of its field; extra forms of one word share the word's position. */
export interface Posting {
  term: string;
  pos: number;
}

/** An analyzed field: its postings, the number of positions (words, stopwords included) and of terms counted for length. */
export interface Analyzed {
  postings: Posting[];
  /** Words in the field, stopwords included: positions run from 0 to `positions - 1`. */
  positions: number;
  /** Words that count towards the field's length in BM25 (not stopwords). */
  length: number;
}

// A word: letters, marks, digits and underscores, with inner apostrophes ("don't", "o'neill").
const WORD = /[\p{L}\p{M}\p{N}_]+(?:['’][\p{L}\p{M}]+)*/gu;
// A compound written with hyphens or slashes: "il-6", "tcp/ip", "covid-19". Its joined form is a term too.
const COMPOUND = /[\p{L}\p{N}]+(?:[-/][\p{L}\p{N}]+)+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const MARKS = /\p{M}+/gu;
// Gene, protein and product names: "foxo3a", "dmrt1", "pge2", "gpt4" also match their letter stem.
const LETTERS_THEN_DIGITS = /^([a-z]{2,})\d+[a-z]?$/;
// Longer runs are hashes, base64 or minified code: noise for matching.
const MAX_TERM_LENGTH = 40;

/** Lower case without diacritics ("Café" → "cafe"), the form every term is built from. */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

function termOf(word: string): string {
  return /^[a-z]+$/.test(word) ? stem(word) : word;
}

/** The terms of one word (the word's own first), or null for a word that is not counted (a stopword, noise). */
function wordTerms(raw: string): string[] | null {
  const word = fold(raw).replace(/’/g, "'").replace(/'s$/, '').replace(/'/g, '');
  if (!word || isStopword(word) || word.length > MAX_TERM_LENGTH) return null;
  if (word.length === 1 && !/\p{N}/u.test(word)) return null;
  const terms = [termOf(word)];
  const prefix = LETTERS_THEN_DIGITS.exec(word)?.[1];
  if (prefix && !isStopword(prefix)) terms.push(termOf(prefix));
  // identifiers: parseJsonBody, snake_case → their parts at the same position
  if (/_|.\p{Lu}/u.test(raw)) {
    for (const part of splitIdentifier(raw)) {
      const p = fold(part);
      if (p !== word && p.length > 1 && !isStopword(p)) terms.push(termOf(p));
    }
  }
  return terms;
}

// Words repeat (a few thousand make most of any text): each is folded, checked and stemmed once.
const WORD_CACHE_SIZE = 200_000;
const wordCache = new Map<string, string[] | null>();

function addWord(raw: string, pos: number, out: Posting[]): boolean {
  let terms = wordCache.get(raw);
  if (terms === undefined) {
    terms = wordTerms(raw);
    if (wordCache.size >= WORD_CACHE_SIZE) wordCache.clear(); // bounded: an open vocabulary
    wordCache.set(raw, terms);
  }
  if (!terms) return false;
  for (const term of terms) out.push({ term, pos });
  return true;
}

function addCjk(run: string, pos: number, out: Posting[]): number {
  const chars = [...run];
  if (chars.length === 1) out.push({ term: chars[0]!, pos: pos++ });
  for (let i = 0; i + 1 < chars.length; i++) out.push({ term: chars[i]! + chars[i + 1]!, pos: pos++ });
  return pos;
}

/** Analyzes one field of text: terms in order with their positions; stopwords keep their position. */
export function analyze(text: string): Analyzed {
  const postings: Posting[] = [];
  let pos = 0;
  let length = 0;
  const starts: number[] = [];
  for (const match of text.matchAll(WORD)) {
    starts.push(match.index, pos);
    const raw = match[0];
    if (CJK.test(raw)) {
      const before = pos;
      pos = addCjk(raw, pos, postings);
      length += pos - before;
      continue;
    }
    if (addWord(raw, pos, postings)) length++;
    pos++;
  }
  if (addCompounds(text, starts, postings)) postings.sort((a, b) => a.pos - b.pos);
  return { postings, positions: pos, length };
}

/** Adds the joined form of each hyphen/slash compound at its first word's position; true when any was added. */
function addCompounds(text: string, starts: number[], out: Posting[]): boolean {
  if (!text.includes('-') && !text.includes('/')) return false;
  let added = false;
  for (const match of text.matchAll(COMPOUND)) {
    const joined = fold(match[0]).replace(/[-/]/g, '');
    if (joined.length > MAX_TERM_LENGTH) continue;
    out.push({ term: termOf(joined), pos: positionAt(starts, match.index) });
    added = true;
  }
  return added;
}

/** The position of the word starting at character `index` (`starts` holds index/position pairs). */
function positionAt(starts: number[], index: number): number {
  let lo = 0;
  let hi = starts.length / 2 - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid * 2]! <= index) lo = mid;
    else hi = mid - 1;
  }
  return starts[lo * 2 + 1] ?? 0;
}

/** A query: its distinct terms with their counts, and the term sequence (for proximity pairs). */
export interface AnalyzedQuery {
  /** term → occurrences in the query */
  terms: Map<string, number>;
  /** The first term of each word, in order: adjacent pairs of it are the proximity pairs. */
  sequence: string[];
}

/** Analyzes a natural-language query the way documents are analyzed. Never throws, whatever the input. */
export function analyzeQuery(query: string): AnalyzedQuery {
  const { postings } = analyze(query);
  const terms = new Map<string, number>();
  const sequence: string[] = [];
  let lastPos = -1;
  for (const p of postings) {
    terms.set(p.term, (terms.get(p.term) ?? 0) + 1);
    if (p.pos !== lastPos) sequence.push(p.term);
    lastPos = p.pos;
  }
  return { terms, sequence };
}
