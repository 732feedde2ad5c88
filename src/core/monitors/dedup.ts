/**
 * Near-duplicate detection for monitor runs: a result is dropped when it repeats a result of the last
 * runs (or an earlier result of the same run), judged by page address, title and text.
 *
 * Rules, in the order they are tried:
 * - Same page: equal URL keys. The key is `normalizeUrl`'s form (tracking parameters and fragment dropped,
 *   query sorted) without the scheme (http and https are one page), without a leading `www.`, without a
 *   trailing `/index.html`, `/index.htm` or `/index.php`, and without trailing slashes. The page cache
 *   keeps those apart because a server may answer them differently; for "have we shown this already" a
 *   rare false merge costs less than a repeat.
 * - Near-duplicate title: titles are normalized (Unicode compatibility form, accents, case, punctuation
 *   and whitespace). Up to two site suffixes (" | Site Name", " - Site Name", " — ", " · ", " » ", " :: ")
 *   are stripped first, each only when the remaining part has at least 3 words and the suffix looks like
 *   a name: at most 5 words, and after a dash every word capitalised (besides of/the/and/for/on/in/at/&),
 *   a domain, or a single word, so "Rust 1.80 released - here is what changed" keeps its tail. Two titles
 *   match when both have at least 4 words (short titles such as "Home" or "Page not found" never match)
 *   and they are equal or their word sets have a Jaccard similarity of at least `titleSimilarity`
 *   (default 0.8). A title that is a URL (the fallback when a page has none) is ignored. A title match is
 *   overruled when both results have comparable texts (next rule) sharing less than 20% of the smaller
 *   one's shingles: one recurring title ("Daily market update") over different stories is news.
 * - Near-duplicate text: the text, else the summary, else the highlights joined. Its words (lower case,
 *   stopwords kept, each CJK character a word) form 5-shingles, hashed to 32 bits (FNV-1a per word,
 *   mixed per shingle); a bottom-256 MinHash sketch (the 256 smallest distinct shingle hashes, the whole
 *   set when smaller) estimates their Jaccard similarity, exactly when both sets fit. Texts match when both
 *   have at least 20 words and the similarity is at least `textSimilarity` (default 0.7). A syndicated
 *   copy with one sentence edited or a different header stays above 0.7; two articles on one topic share
 *   almost no 5-shingles.
 *
 * Pure: no I/O, no clock. Each check is linear in what is remembered: one map lookup for the page, then
 * a word-set comparison per title and a merge of two sorted sketches per text, cut short once it cannot
 * match; 100 results against 500 take tens of milliseconds.
 */
import { normalizeUrl } from '../contents/url.js';

/** What dedup reads of a result (a search result object of a run's output). */
export interface SeenResult {
  url: string;
  title?: string | null;
  text?: string | null;
  highlights?: string[] | null;
  summary?: string | null;
}

/** Similarity thresholds, each a Jaccard similarity between 0 and 1 (1: only identical sets match). */
export interface DedupOptions {
  /** Word-set similarity from which two titles of at least 4 words are one; default 0.8. */
  titleSimilarity?: number;
  /** Shingle-set similarity from which two texts of at least 20 words are one; default 0.7. */
  textSimilarity?: number;
}

/** Which rule matched, and the URL of the result (as it was given) that this one repeats. */
export type DuplicateReason = { kind: 'url' | 'title' | 'text'; of: string };

export interface Deduplicator {
  /**
   * Why `result` repeats something already seen (earlier runs, or earlier in this run), or undefined
   * when it is new; a new result is remembered.
   */
  check(result: SeenResult): DuplicateReason | undefined;
}

export const DEFAULT_TITLE_SIMILARITY = 0.8;
export const DEFAULT_TEXT_SIMILARITY = 0.7;
const MIN_TITLE_WORDS = 4;
const MIN_TEXT_WORDS = 20;
const SHINGLE = 5;
const SKETCH = 256;
// Below this share of the smaller text's shingles, equal titles head different stories.
const TEXT_DISAGREEMENT = 0.2;

/** The same-page key of a URL (rules in the header); a string that is no http(s) URL is its own key. */
function pageKey(input: string): string {
  const normalized = normalizeUrl(input);
  if (normalized === undefined) return input.trim();
  const url = new URL(normalized);
  const path = url.pathname.replace(/\/index\.(?:html?|php)$/i, '/').replace(/\/+$/, '');
  return url.host.replace(/^www\./, '') + path + url.search;
}

// Separators between a headline and a site or section name; spaces on both sides are required.
const SEPARATOR = /\s+(?:\||·|•|»|::|\/\/|-{1,2}|–|—)\s+/g;
const WORD = /[\p{L}\p{N}]+(?:[.'’][\p{L}\p{N}]+)*/gu;
const NAME_FILLER = new Set(['of', 'the', 'and', 'for', 'on', 'in', 'at', '&', 'a']);

function looksLikeSiteName(suffix: string, separator: string): boolean {
  const words = suffix.split(/\s+/).filter(Boolean);
  if (words.length === 0 || words.length > 5) return false;
  if (!/[-–—]/.test(separator) || words.length === 1 || /\w\.\w/.test(suffix)) return true;
  return words.every((w) => NAME_FILLER.has(w.toLowerCase()) || /^[\p{Lu}\p{N}]/u.test(w));
}

/** `title` without up to two trailing site names. */
function stripSiteSuffixes(title: string): string {
  let rest = title;
  for (let round = 0; round < 2; round++) {
    const last = [...rest.matchAll(SEPARATOR)].at(-1);
    if (!last) break;
    const head = rest.slice(0, last.index);
    if ((head.match(WORD) ?? []).length < 3) break;
    if (!looksLikeSiteName(rest.slice(last.index + last[0].length), last[0])) break;
    rest = head;
  }
  return rest;
}

interface TitleKey {
  normalized: string;
  words: ReadonlySet<string>;
}

/** The comparable form of a title, or undefined when it is missing, a URL, or too short to compare. */
function titleKey(title: string | null | undefined): TitleKey | undefined {
  const raw = title?.trim();
  if (!raw || /^[a-z][a-z0-9+.-]*:\/\/\S*$/i.test(raw)) return undefined;
  const folded = stripSiteSuffixes(raw)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const words = (folded.match(WORD) ?? []).map((w) => w.replace(/['’]/g, ''));
  if (words.length < MIN_TITLE_WORDS) return undefined;
  return { normalized: words.join(' '), words: new Set(words) };
}

function setJaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}

interface TextSketch {
  /** Distinct shingles in the text. */
  size: number;
  /** The smallest `SKETCH` distinct shingle hashes, ascending. */
  minima: Uint32Array;
}

function fnv1a(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

// MurmurHash3's finaliser: spreads every input bit over the output, so the minima are a fair sample.
function mix(hash: number): number {
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

// Words for shingles: stopwords kept, since they carry sentence order. CJK is written without spaces,
// so each of its characters is a word.
const TEXT_WORD = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}]+)*/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

function textWordHashes(text: string): number[] {
  const hashes: number[] = [];
  for (const [word] of text.matchAll(TEXT_WORD)) {
    if (!/[^\p{ASCII}]|'/u.test(word)) hashes.push(fnv1a(word.toLowerCase()));
    else if (CJK.test(word)) for (const char of word) hashes.push(fnv1a(char));
    else hashes.push(fnv1a(word.toLowerCase().replace(/['’]/g, '')));
  }
  return hashes;
}

function textOf(result: SeenResult): string {
  for (const candidate of [result.text, result.summary, result.highlights?.join(' ')]) {
    if (candidate?.trim()) return candidate;
  }
  return '';
}

/** The shingle sketch of a result's text, or undefined when it has fewer than `MIN_TEXT_WORDS` words. */
function textSketch(result: SeenResult): TextSketch | undefined {
  const words = textWordHashes(textOf(result));
  if (words.length < MIN_TEXT_WORDS) return undefined;
  const shingles = new Uint32Array(words.length - SHINGLE + 1);
  for (let i = 0; i < shingles.length; i++) {
    let hash = 0;
    for (let j = 0; j < SHINGLE; j++) hash = mix(Math.imul(hash, 31) + words[i + j]!);
    shingles[i] = hash;
  }
  shingles.sort();
  let size = 0;
  for (let i = 0; i < shingles.length; i++) {
    if (i === 0 || shingles[i] !== shingles[i - 1]) shingles[size++] = shingles[i]!;
  }
  return { size, minima: shingles.slice(0, Math.min(size, SKETCH)) };
}

/**
 * Estimated Jaccard similarity of two texts (exact when both sketches are whole sets): the share of the
 * union's smallest hashes that both hold. Answers 0 as soon as the result can no longer reach `atLeast`,
 * which is what makes comparing against hundreds of unrelated texts cheap.
 */
function sketchJaccard(a: TextSketch, b: TextSketch, atLeast = 0): number {
  const x = a.minima;
  const y = b.minima;
  const whole = a.size <= SKETCH && b.size <= SKETCH;
  // Whole sets: J = shared / (shared + mismatched) ≤ smaller / (smaller + mismatched). Sketches: the
  // union's SKETCH smallest decide, so J = 1 - mismatched / SKETCH.
  const smaller = Math.min(x.length, y.length);
  const allowed = atLeast <= 0 ? Infinity : whole ? (smaller * (1 - atLeast)) / atLeast : SKETCH * (1 - atLeast);
  const limit = whole ? Infinity : SKETCH;
  let i = 0;
  let j = 0;
  let taken = 0;
  let shared = 0;
  while (taken < limit && i < x.length && j < y.length) {
    const u = x[i]!;
    const v = y[j]!;
    taken++;
    if (u === v) {
      shared++;
      i++;
      j++;
      continue;
    }
    if (u < v) i++;
    else j++;
    if (taken - shared > allowed) return 0;
  }
  taken = Math.min(limit, taken + x.length - i + y.length - j);
  return taken === 0 ? 0 : shared / taken;
}

/** Whether two texts share less than `TEXT_DISAGREEMENT` of the smaller one's shingles. */
function textsDisagree(a: TextSketch | undefined, b: TextSketch | undefined): boolean {
  if (!a || !b) return false;
  const jaccard = sketchJaccard(a, b);
  const shared = (jaccard * (a.size + b.size)) / (1 + jaccard);
  return shared / Math.min(a.size, b.size) < TEXT_DISAGREEMENT;
}

interface Remembered {
  url: string;
  title: TitleKey | undefined;
  text: TextSketch | undefined;
}

/**
 * A deduplicator that remembers `previous` (the earlier runs' results, any order) and then every new
 * result it is asked about. A duplicate's URL is remembered too, as another address of what it repeats.
 */
export function createDeduplicator(previous: Iterable<SeenResult>, options: DedupOptions = {}): Deduplicator {
  const titleSimilarity = options.titleSimilarity ?? DEFAULT_TITLE_SIMILARITY;
  const textSimilarity = options.textSimilarity ?? DEFAULT_TEXT_SIMILARITY;
  const byPage = new Map<string, string>();
  const seen: Remembered[] = [];

  const remember = (key: string, entry: Remembered): void => {
    if (!byPage.has(key)) byPage.set(key, entry.url);
    seen.push(entry);
  };

  // Word sets whose sizes differ more than the threshold allows cannot match: no need to intersect them.
  const titlesMatch = (a: TitleKey, b: TitleKey): boolean =>
    a.normalized === b.normalized ||
    (Math.min(a.words.size, b.words.size) >= titleSimilarity * Math.max(a.words.size, b.words.size) &&
      setJaccard(a.words, b.words) >= titleSimilarity);

  const match = (entry: Remembered): DuplicateReason | undefined => {
    const { title, text } = entry;
    if (title) {
      const hit = seen.find((s) => s.title && titlesMatch(title, s.title) && !textsDisagree(text, s.text));
      if (hit) return { kind: 'title', of: hit.url };
    }
    if (text) {
      const hit = seen.find((s) => s.text && sketchJaccard(text, s.text, textSimilarity) >= textSimilarity);
      if (hit) return { kind: 'text', of: hit.url };
    }
    return undefined;
  };

  const toEntry = (result: SeenResult): Remembered => ({
    url: result.url,
    title: titleKey(result.title),
    text: textSketch(result),
  });

  for (const result of previous) remember(pageKey(result.url), toEntry(result));

  return {
    check(result) {
      const key = pageKey(result.url);
      const sameUrl = byPage.get(key);
      if (sameUrl !== undefined) return { kind: 'url', of: sameUrl };
      const entry = toEntry(result);
      const reason = match(entry);
      if (reason) byPage.set(key, reason.of);
      else remember(key, entry);
      return reason;
    },
  };
}
