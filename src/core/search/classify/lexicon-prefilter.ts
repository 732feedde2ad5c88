/**
 * A cheap, sound prefilter for the moderation lexicon: it passes every text that a lexicon term could
 * match at a word start, and rejects most others after looking at the first characters of each word.
 */

/** Characters compared after each word start (an ASCII window of this length is one integer key). */
const K = 4;
/** ASCII whitespace, `_` and `-` compare as this one code: a lexicon space matches any run of them. */
const SEP = 32;

/** ASCII char codes as the prefilter compares them: lower case, separators as `SEP`. */
const CANON = Uint8Array.from({ length: 128 }, (_, c) => {
  if (c >= 65 && c <= 90) return c + 32;
  return c === 95 || c === 45 || c === 32 || (c >= 9 && c <= 13) ? SEP : c;
});
/** 1 for ASCII letters and digits: a term cannot start right after one (the patterns' `(?<![\p{L}\p{N}])`). */
const ALNUM = Uint8Array.from({ length: 128 }, (_, c) => (/[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 1 : 0));

/** A char code as the prefilter compares it; -1 for non-ASCII. */
const canon = (c: number) => (c < 128 ? CANON[c]! : -1);

/** The first `K` canonical characters of the strings a node matches (shorter: the whole string). */
type Prefixes = Set<string>;

function concat(a: Prefixes, b: Prefixes): Prefixes {
  const out: Prefixes = new Set();
  for (const x of a) {
    if (x.length >= K) out.add(x);
    else for (const y of b) out.add((x + y).slice(0, K));
  }
  return out;
}

function repeat(a: Prefixes): Prefixes {
  let out = a;
  for (;;) {
    const next = new Set([...out, ...concat(out, a)]);
    if (next.size === out.size) return out;
    out = next;
  }
}

class Unsupported extends Error {}

/**
 * Parses a lexicon term (literal ASCII, `(?:…)`, `|`, `?`, and a space for a run of separators, as
 * moderation.ts reads it) into its prefixes; throws `Unsupported` for any other syntax.
 */
function prefixesOf(source: string): Prefixes {
  let i = 0;
  const alternation = (): Prefixes => {
    const out: Prefixes = new Set(sequence());
    while (source[i] === '|') {
      i++;
      for (const p of sequence()) out.add(p);
    }
    return out;
  };
  const sequence = (): Prefixes => {
    let out: Prefixes = new Set(['']);
    while (i < source.length && source[i] !== '|' && source[i] !== ')') {
      let atom = atomAt();
      if (source[i] === '?') {
        i++;
        atom = new Set([...atom, '']);
      }
      out = concat(out, atom);
    }
    return out;
  };
  const atomAt = (): Prefixes => {
    const ch = source[i]!;
    if (source.startsWith('(?:', i)) {
      i += 3;
      const inner = alternation();
      if (source[i] !== ')') throw new Unsupported(source);
      i++;
      return inner;
    }
    i++;
    if (ch === ' ') return repeat(new Set([String.fromCharCode(SEP)]));
    if (!/^[a-z0-9'-]$/i.test(ch)) throw new Unsupported(source);
    return new Set([String.fromCharCode(canon(ch.charCodeAt(0)))]);
  };
  const out = alternation();
  if (i !== source.length) throw new Unsupported(source);
  return out;
}

function keyOf(prefix: string): number {
  let key = 0;
  for (let j = 0; j < prefix.length; j++) key = key * 128 + prefix.charCodeAt(j);
  return key;
}

/**
 * A test that passes every text in which `exact` (the terms' alternation, flags `iuy`) matches at a
 * word start (position 0 or after a character that is not an ASCII letter or digit), and few others.
 * Null when a term uses syntax the prefix reading does not cover (the caller then scans as before).
 */
export function createLexiconPrefilter(terms: readonly string[], exact: RegExp): ((text: string) => boolean) | null {
  const full = new Set<number>();
  // the first two characters of the full-length prefixes, as a table: most word starts stop there
  const pairs = new Uint8Array(128 * 128);
  const short: string[][] = Array.from({ length: 128 }, () => []);
  try {
    for (const term of terms) {
      for (const p of prefixesOf(term)) {
        // an empty match would pass every text: no prefix can stand for it
        if (p.length === 0) return null;
        if (p.length < K) short[p.charCodeAt(0)]!.push(p);
        else {
          full.add(keyOf(p));
          pairs[p.charCodeAt(0) * 128 + p.charCodeAt(1)] = 1;
        }
      }
    }
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
  const hasShort = Uint8Array.from(short, (list) => (list.length > 0 ? 1 : 0));
  const tryAt = (text: string, i: number) => {
    exact.lastIndex = i;
    return exact.test(text);
  };
  /** Whether a term may start at `i`, a word start with an ASCII character `c0` (canonical). */
  const mayStartAt = (text: string, i: number, c0: number): boolean => {
    if (hasShort[c0] === 1 && startsWithShort(text, i, short[c0]!)) return true;
    if (i + K > text.length) return false;
    const c1 = canon(text.charCodeAt(i + 1));
    if (c1 < 0) return true;
    if (pairs[c0 * 128 + c1] === 0) return false;
    const c2 = canon(text.charCodeAt(i + 2));
    const c3 = canon(text.charCodeAt(i + 3));
    return c2 < 0 || c3 < 0 || full.has(((c0 * 128 + c1) * 128 + c2) * 128 + c3);
  };
  return (text: string) => {
    let inWord = false;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const start = !inWord;
      inWord = c < 128 && ALNUM[c] === 1;
      if (start && (c >= 128 || mayStartAt(text, i, CANON[c]!)) && tryAt(text, i)) return true;
    }
    return false;
  };
}

/** Whether one of `shorts` (canonical, shorter than `K`) is at `i` in the text. */
function startsWithShort(text: string, i: number, shorts: string[]): boolean {
  outer: for (const s of shorts) {
    if (i + s.length > text.length) continue;
    for (let j = 0; j < s.length; j++) if (canon(text.charCodeAt(i + j)) !== s.charCodeAt(j)) continue outer;
    return true;
  }
  return false;
}
