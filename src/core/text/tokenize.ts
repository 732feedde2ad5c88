/**
 * The tokenizer shared by highlights, summaries and (later) the search index: Unicode words, lower
 * case, identifiers split into their parts as well as kept whole, stopwords dropped, Porter stems.
 */
import { stemmer } from 'stemmer';
import { isStopword } from './stopwords.js';

// A word: letters, marks, digits and underscores, with inner apostrophes ("don't", "o'neill").
const WORD = /[\p{L}\p{M}\p{N}_]+(?:['’][\p{L}\p{M}]+)*/gu;
// Scripts written without spaces between words: indexed as overlapping character bigrams.
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
// Longer runs are hashes, base64 or minified code: noise for matching.
const MAX_TOKEN_LENGTH = 40;

/**
 * Splits an identifier into its parts: `getHTTPResponse` → get, HTTP, Response; `snake_case` → snake,
 * case. Returns the single part when there is nothing to split.
 */
export function splitIdentifier(word: string): string[] {
  return word
    .split(/_+/)
    .flatMap((chunk) => chunk.split(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u))
    .filter((part) => part.length > 0);
}

function keep(token: string): boolean {
  if (token.length > MAX_TOKEN_LENGTH || isStopword(token)) return false;
  // Single letters are initials or list markers; single digits and CJK characters still mean something.
  return token.length > 1 || /[\p{N}\p{Script=Han}]/u.test(token);
}

function cjkBigrams(run: string, out: string[]): void {
  const chars = [...run];
  if (chars.length === 1) out.push(chars[0]!);
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
}

// Most words are plain lower-case ASCII: nothing to split or normalise.
const PLAIN = /^[a-z0-9]+$/;

function wordTokens(raw: string, out: string[]): void {
  if (PLAIN.test(raw)) {
    if (keep(raw)) out.push(raw);
    return;
  }
  const word = raw.replace(/’/g, "'");
  const lower = word.toLowerCase();
  if (isStopword(lower)) return;
  const whole = lower.replace(/'s$/, '').replace(/'/g, '');
  if (keep(whole)) out.push(whole);
  // Only identifiers (inner capitals, underscores) have parts.
  if (!/_|.\p{Lu}/u.test(word)) return;
  const parts = splitIdentifier(word);
  if (parts.length < 2) return;
  for (const part of parts) {
    const token = part.toLowerCase().replace(/'/g, '');
    if (token !== whole && keep(token)) out.push(token);
  }
}

/**
 * Lower-cased tokens of `text` in order, stopwords dropped. An identifier yields itself and its parts
 * (`parseJsonBody` → parsejsonbody, parse, json, body); CJK text yields character bigrams. Not stemmed.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const raw = match[0];
    if (!HAS_CJK.test(raw)) {
      wordTokens(raw, out);
      continue;
    }
    let last = 0;
    for (const run of raw.matchAll(CJK_RUN)) {
      if (run.index > last) wordTokens(raw.slice(last, run.index), out);
      cjkBigrams(run[0], out);
      last = run.index + run[0].length;
    }
    if (last < raw.length) wordTokens(raw.slice(last), out);
  }
  return out;
}

const stemCache = new Map<string, string>();

/** The Porter stem of a lower-case token; tokens other than plain ASCII words are returned as they are. */
export function stem(token: string): string {
  if (!/^[a-z]{3,}$/.test(token)) return token;
  let stemmed = stemCache.get(token);
  if (stemmed === undefined) {
    stemmed = stemmer(token);
    // Bounded: a long-running server sees an open vocabulary.
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(token, stemmed);
  }
  return stemmed;
}

/** The index terms of `text`: `tokenize` then `stem`. This is what the lexical model counts. */
export function terms(text: string): string[] {
  return tokenize(text).map(stem);
}

// The classes of `WORD`, per code point: 1 = a word character ([\p{L}\p{M}\p{N}_]), 2 = a letter or mark
// (what may follow an inner apostrophe); 4 = computed. ASCII is filled in; the rest is filled as met.
const WORD_CHAR = 1;
const LETTER_OR_MARK = 2;
const KNOWN = 4;
const bmpClasses = new Uint8Array(0x10000);
const astralClasses = new Map<number, number>();

function classify(char: string): number {
  return (
    KNOWN | (/^[\p{L}\p{M}\p{N}_]$/u.test(char) ? WORD_CHAR : 0) | (/^[\p{L}\p{M}]$/u.test(char) ? LETTER_OR_MARK : 0)
  );
}
for (let c = 0; c < 128; c++) bmpClasses[c] = classify(String.fromCharCode(c));

/** 1 for the ASCII characters of a word (letters, digits, `_`), by char code: a scanner's fast path. */
export const ASCII_WORD_CHAR = Uint8Array.from({ length: 128 }, (_, c) => bmpClasses[c]! & WORD_CHAR);

/** The class of the code point at `i` (a surrogate pair is one code point; a lone surrogate is neither class). */
function classAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if ((c & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
    const cp = text.codePointAt(i)!;
    let cls = astralClasses.get(cp);
    if (cls === undefined) {
      cls = classify(String.fromCodePoint(cp));
      if (astralClasses.size > 10_000) astralClasses.clear();
      astralClasses.set(cp, cls);
    }
    return cls;
  }
  let cls = bmpClasses[c]!;
  if (cls === 0) bmpClasses[c] = cls = classify(String.fromCharCode(c));
  return cls;
}

/** UTF-16 units of the code point at `i`. */
const widthAt = (text: string, i: number) => ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1); // prettier-ignore

/**
 * Where the next word of `text` at or after `from` starts, or -1: the global matches of `WORD` (letters,
 * marks, digits and underscores, with inner apostrophes), found without a match object per word.
 */
export function nextWordStart(text: string, from: number): number {
  for (let i = from; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if ((bmpClasses[c]! & WORD_CHAR) !== 0) return i;
      i++;
    } else if ((classAt(text, i) & WORD_CHAR) !== 0) return i;
    else i += widthAt(text, i);
  }
  return -1;
}

/** Where the word that starts at `start` (see `nextWordStart`) ends. */
export function wordEnd(text: string, start: number): number {
  const n = text.length;
  let i = start;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if ((bmpClasses[c]! & WORD_CHAR) === 0) break;
      i++;
    } else if ((classAt(text, i) & WORD_CHAR) !== 0) i += widthAt(text, i);
    else break;
  }
  // inner apostrophes: ' or ’ followed by letters or marks
  while (i + 1 < n) {
    const c = text.charCodeAt(i);
    if ((c !== 39 && c !== 0x2019) || (classAt(text, i + 1) & LETTER_OR_MARK) === 0) break;
    i++;
    while (i < n && (classAt(text, i) & LETTER_OR_MARK) !== 0) i += widthAt(text, i);
  }
  return i;
}

// A compound written with hyphens or slashes: "il-6", "tcp/ip", "covid-19" (the analyzer indexes its joined form too).
const COMPOUND_AT = /[\p{L}\p{N}]+(?:[-/][\p{L}\p{N}]+)+/uy;
const LETTER_OR_NUMBER = /^[\p{L}\p{N}]$/u;
const ASCII_LETTER_OR_NUMBER = Uint8Array.from({ length: 128 }, (_, c) => (LETTER_OR_NUMBER.test(String.fromCharCode(c)) ? 1 : 0)); // prettier-ignore

/** The code point ending at `end` as a letter or number: its width in UTF-16 units, or 0. */
function letterOrNumberBefore(text: string, end: number): number {
  const c = text.charCodeAt(end - 1);
  if (c < 128) return ASCII_LETTER_OR_NUMBER[c]!;
  const pair = c >= 0xdc00 && c <= 0xdfff && end >= 2 && (text.charCodeAt(end - 2) & 0xfc00) === 0xd800;
  const width = pair ? 2 : 1;
  return LETTER_OR_NUMBER.test(text.slice(end - width, end)) ? width : 0;
}

/**
 * The next compound at or after `from`, as a global scan of its pattern finds it, looking only at the '-'
 * and '/' of the text: a compound starts at the letters and numbers that run up to its first separator.
 * (The scan itself retries every character of every word: 11% of indexing time.)
 */
export function nextCompound(text: string, from: number): RegExpExecArray | null {
  let hyphen = text.indexOf('-', from);
  let slash = text.indexOf('/', from);
  while (hyphen >= 0 || slash >= 0) {
    const at = hyphen < 0 ? slash : slash < 0 ? hyphen : Math.min(hyphen, slash);
    let start = at;
    for (let width = 0; start > from && (width = letterOrNumberBefore(text, start)) > 0;) start -= width;
    if (start < at) {
      COMPOUND_AT.lastIndex = start;
      const match = COMPOUND_AT.exec(text);
      if (match) return match;
    }
    if (at === hyphen) hyphen = text.indexOf('-', at + 1);
    else slash = text.indexOf('/', at + 1);
  }
  return null;
}
