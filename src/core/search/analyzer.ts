/**
 * The search analyzer: text → index terms with positions, the same for documents and queries, so a
 * query term matches exactly the document terms it should. Measured on BEIR SciFact (bench/retrieval.mjs).
 */
import { isStopword } from '../text/stopwords.js';
import { ASCII_WORD_CHAR, nextCompound, nextWordStart, splitIdentifier, stem, wordEnd } from '../text/tokenize.js';
import { createWordTable, hashOf } from './word-table.js';

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

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
// Every Han, Hiragana and Katakana code point is at U+2E80 or above (astral ones are surrogate pairs): a
// text with no such unit has no CJK, and the range is cheaper to look for than the scripts.
const MAYBE_CJK = /[\u2e80-\uffff]/;
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

/**
 * A distinct term, one object per term string (while `termEpoch()` stays the same), so the indexer
 * counts a document's terms on the objects instead of in a map of its own.
 */
export interface IndexTerm {
  readonly term: string;
  /** The indexer's scratch: the document it last met this term in, and the term's index there. */
  doc: number;
  index: number;
}

// bounded: renewed (with the word cache) between fields once it holds this many terms
const TERM_LIMIT = 400_000;
let termTable = new Map<string, IndexTerm>();
let epoch = 0;

/** Changes when the terms are made anew (a bounded table): two `IndexTerm`s of one string then may meet. */
export function termEpoch(): number {
  return epoch;
}

function internTerm(term: string): IndexTerm {
  let t = termTable.get(term);
  if (t === undefined) {
    t = { term, doc: -1, index: 0 };
    termTable.set(term, t);
  }
  return t;
}

// Words repeat (a few thousand make most of any text): each is folded, checked and stemmed once.
const WORD_CACHE_SIZE = 200_000;
/** A word's terms: most words have one, kept as itself (no array to reach it through); null: not counted. */
type WordForms = IndexTerm | IndexTerm[] | null;
const formsOf = (raw: string): WordForms => {
  const forms = wordTerms(raw);
  if (forms === null) return null;
  return forms.length === 1 ? internTerm(forms[0]!) : forms.map(internTerm);
};
const words = createWordTable<WordForms>(formsOf, WORD_CACHE_SIZE);

function clearWordCache(): void {
  words.clear();
  compoundCache = new Map();
}

/** Bounds the terms' table, between fields (an entry of the word cache never holds terms of two epochs). */
function boundTerms(): void {
  if (termTable.size < TERM_LIMIT) return;
  clearWordCache();
  termTable = new Map();
  epoch++;
}

/**
 * An analyzed field as parallel arrays, the indexer's form of `Analyzed` (no object per posting):
 * `terms[i]` stands at position `pos[i]`, in order of position; at one position the word's own terms
 * come first, then the joined forms of compounds that start at it.
 */
export interface PackedAnalysis {
  terms: IndexTerm[];
  pos: number[];
  /** Words in the field, stopwords included. */
  positions: number;
  /** Words that count towards the field's length in BM25 (not stopwords). */
  length: number;
}

function addCjk(run: string, pos: number, out: PackedAnalysis): number {
  const chars = [...run];
  if (chars.length === 1) {
    out.terms.push(internTerm(chars[0]!));
    out.pos.push(pos++);
  }
  for (let i = 0; i + 1 < chars.length; i++) {
    out.terms.push(internTerm(chars[i]! + chars[i + 1]!));
    out.pos.push(pos++);
  }
  return pos;
}

/** Analyzes one field of text into parallel arrays: what `analyze` returns, without a `Posting` per term. */
export function analyzePacked(text: string): PackedAnalysis {
  boundTerms();
  const out: PackedAnalysis = { terms: [], pos: [], positions: 0, length: 0 };
  const { terms, pos: at } = out;
  // CJK, compounds: looked for once per text; most texts have no CJK, many no '-' or '/'
  const cjk = MAYBE_CJK.test(text) && CJK.test(text);
  const separators = text.includes('-') || text.includes('/');
  // A compound's terms go after those of the word it starts in: found first, they are added in the
  // same pass, except beside CJK (a word of several positions), where they are merged in afterwards.
  const compounds = separators && !cjk ? compoundsOf(text) : null;
  const starts: number[] | null = separators && cjk ? [] : null;
  let next = 0;
  let pos = 0;
  let length = 0;
  const n = text.length;
  for (let start = nextWordStart(text, 0), end = 0; start >= 0; start = nextWordStart(text, end)) {
    // the word's end and hash in one pass while it is ASCII (most words); else as wordEnd finds it
    let hash = 0x811c9dc5;
    let c = 0;
    for (end = start; end < n; end++) {
      c = text.charCodeAt(end);
      if (c >= 128 || ASCII_WORD_CHAR[c] === 0) break;
      hash = Math.imul(hash ^ c, 0x01000193);
    }
    if (end < n && (c >= 128 || c === 39)) {
      end = wordEnd(text, start);
      hash = hashOf(text, start, end);
    }
    starts?.push(start, pos);
    if (cjk) {
      const raw = text.slice(start, end);
      if (CJK.test(raw)) {
        const before = pos;
        pos = addCjk(raw, pos, out);
        length += pos - before;
        continue;
      }
    }
    const forms = words.get(text, start, end, hash);
    if (forms !== null) {
      if (Array.isArray(forms)) {
        for (let k = 0; k < forms.length; k++) {
          terms.push(forms[k]!);
          at.push(pos);
        }
      } else {
        terms.push(forms);
        at.push(pos);
      }
      length++;
    }
    for (; compounds && next < compounds.at.length && compounds.at[next]! < end; next++) {
      terms.push(compounds.terms[next]!);
      at.push(pos);
    }
    pos++;
  }
  out.positions = pos;
  out.length = length;
  if (starts) addCompounds(text, starts, out);
  return out;
}

/** Analyzes one field of text: terms in order with their positions; stopwords keep their position. */
export function analyze(text: string): Analyzed {
  const { terms, pos, positions, length } = analyzePacked(text);
  const postings = terms.map((t, i): Posting => ({ term: t.term, pos: pos[i]! }));
  return { postings, positions, length };
}

/** The terms of the text's hyphen/slash compounds (their joined forms, unless too long) and where each starts. */
function compoundsOf(text: string): { terms: IndexTerm[]; at: number[] } {
  const terms: IndexTerm[] = [];
  const at: number[] = [];
  for (let match = nextCompound(text, 0); match !== null; match = nextCompound(text, match.index + match[0].length)) {
    const term = compoundTerm(match[0]);
    if (!term) continue;
    terms.push(term);
    at.push(match.index);
  }
  return { terms, at };
}

/** Adds the joined form of each compound after the terms at its first word's position (`starts`: index/position pairs). */
function addCompounds(text: string, starts: number[], out: PackedAnalysis): void {
  const { terms, at } = compoundsOf(text);
  if (terms.length > 0)
    mergeCompounds(
      out,
      terms,
      at.map((index) => positionAt(starts, index)),
    );
}

// Compounds repeat within a text and across texts ("IL-6"): each is folded and stemmed once.
let compoundCache = new Map<string, IndexTerm | null>();

/** The joined form of a compound as a term, or null when it is too long. */
function compoundTerm(compound: string): IndexTerm | null {
  let term = compoundCache.get(compound);
  if (term === undefined) {
    const joined = fold(compound).replace(/[-/]/g, '');
    term = joined.length > MAX_TERM_LENGTH ? null : internTerm(termOf(joined));
    if (compoundCache.size >= WORD_CACHE_SIZE) compoundCache = new Map(); // bounded: an open vocabulary
    compoundCache.set(compound, term);
  }
  return term;
}

/** Merges the compounds into the field's terms: both ascend by position, a word's terms first at one position. */
function mergeCompounds(out: PackedAnalysis, joinedTerms: IndexTerm[], joinedPos: number[]): void {
  const { terms, pos } = out;
  const n = terms.length;
  const mergedTerms: IndexTerm[] = [];
  const mergedPos: number[] = [];
  let i = 0;
  for (let j = 0; j < joinedTerms.length; j++) {
    const p = joinedPos[j]!;
    for (; i < n && pos[i]! <= p; i++) {
      mergedTerms.push(terms[i]!);
      mergedPos.push(pos[i]!);
    }
    mergedTerms.push(joinedTerms[j]!);
    mergedPos.push(p);
  }
  for (; i < n; i++) {
    mergedTerms.push(terms[i]!);
    mergedPos.push(pos[i]!);
  }
  out.terms = mergedTerms;
  out.pos = mergedPos;
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
