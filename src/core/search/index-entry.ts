/**
 * A stored document → its search index entry: analyzed fields (title, headings, body, URL words), the
 * positions the proximity re-rank reads, and the filter facts (dates, categories, safety, country).
 */
import type { DocumentRecord } from '../../store/documents.repo.js';
import { encodePositions } from '../../store/postings.codec.js';
import { FIELD_COUNT, type IndexedDoc } from '../../store/search-index.types.js';
import { analyze, type Analyzed } from './analyzer.js';
import { CATEGORIES, classifyDocument, type DocumentCategory } from './classify/index.js';

/** Words of the text that `excludeText` looks at (the spec: "checked in the first 1000 words"). */
export const HEAD_WORDS = 1000;
/** Positions of the body kept for proximity; a long page's later words rank by BM25 alone. */
const STREAM_POSITIONS = 5000;
const MAX_TF = 255;

/** The category's bit in `IndexedDoc.categories`. */
export function categoryBit(category: DocumentCategory): number {
  return 1 << CATEGORIES.indexOf(category);
}

/** Host without `www.`, lower case; '' for a URL that does not parse (import:// ids parse). */
export function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).hostname.toLowerCase().replace(/^www\./, '') : '';
}

// country-code TLDs that name a country other than their code, and generic second levels
const TLD_COUNTRY: Record<string, string> = { uk: 'GB', su: 'RU' };
const GENERIC_CC = new Set(['io', 'ai', 'co', 'me', 'tv', 'fm', 'ly', 'gg', 'sh', 'to', 'ws', 'cc', 'app', 'dev']);

/**
 * The country a document is from, for the `userLocation` preference: its host's country-code TLD
 * (`.de` → DE, `.co.uk` → GB; `.io`, `.ai`, `.co` and the like are read as generic), else the region of
 * its declared language (`en-GB` → GB), else null.
 */
export function countryOf(url: string, language: unknown): string | null {
  const tld = hostOf(url).split('.').at(-1) ?? '';
  if (/^[a-z]{2}$/.test(tld) && !GENERIC_CC.has(tld)) return TLD_COUNTRY[tld] ?? tld.toUpperCase();
  const region = typeof language === 'string' ? /^[a-z]{2,3}[-_]([a-z]{2})\b/i.exec(language)?.[1] : undefined;
  return region ? region.toUpperCase() : null;
}

/** Markdown link and image targets are URLs, not words of the text. */
export function stripLinkTargets(text: string): string {
  return text.replace(/\]\((?:[^()\s]|\([^()\s]*\))+(?:\s+"[^"]*")?\)/g, ']');
}

function headingsOf(markdown: string): string {
  return markdown
    .split('\n')
    .filter((line) => /^#{1,6}\s/.test(line))
    .map((line) => line.replace(/^#+\s*/, ''))
    .join('\n');
}

/** The URL's words: host labels and path segments ("docs.python.org/3/library/asyncio" → docs python ...). */
function urlWords(url: string): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  return `${u.hostname.replace(/^www\./, '')} ${decodeURIComponent(u.pathname).replace(/\.(?:html?|php|aspx?)$/, '')}`;
}

function countTerms(fields: Analyzed[]): Map<string, Uint8Array> {
  const terms = new Map<string, Uint8Array>();
  fields.forEach((field, f) => {
    for (const { term } of field.postings) {
      let freq = terms.get(term);
      if (!freq) terms.set(term, (freq = new Uint8Array(FIELD_COUNT)));
      if (freq[f]! < MAX_TF) freq[f]!++;
    }
  });
  return terms;
}

/** Title positions kept for proximity. */
const TITLE_POSITIONS = 200;

/** The first term at each position, '' where a stopword stands: what proximity reads. */
function firstTerms(field: Analyzed, limit: number): string[] {
  const words = new Array<string>(Math.min(field.positions, limit)).fill('');
  for (const { term, pos } of field.postings) if (pos < words.length && !words[pos]) words[pos] = term;
  return words;
}

/**
 * The proximity stream of a document: its title's and body's first terms by position, space-separated,
 * a line each. Feedback reads it; the index stores it as positions (`streamPositions`).
 */
export function streamOf(title: string, text: string): string {
  const fields = [analyze(title), analyze(stripLinkTargets(text))];
  return `${firstTerms(fields[0]!, TITLE_POSITIONS).join(' ')}\n${firstTerms(fields[1]!, STREAM_POSITIONS).join(' ')}`;
}

/** Each term's positions in the title and body streams, encoded for the postings (`encodePositions`). */
function streamPositions(title: Analyzed, body: Analyzed): Map<string, Uint8Array> {
  const at = new Map<string, { title: number[]; body: number[] }>();
  const add = (words: string[], key: 'title' | 'body') =>
    words.forEach((term, pos) => {
      if (!term) return;
      let entry = at.get(term);
      if (!entry) at.set(term, (entry = { title: [], body: [] }));
      entry[key].push(pos);
    });
  add(firstTerms(title, TITLE_POSITIONS), 'title');
  add(firstTerms(body, STREAM_POSITIONS), 'body');
  const out = new Map<string, Uint8Array>();
  for (const [term, p] of at) out.set(term, encodePositions(p.title, p.body));
  return out;
}

/** A 53-bit hash of `s` as hex (cyrb53): short, and collisions are negligible for telling changed documents. */
export function shortHash(s: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16);
}

const toTime = (iso: string | null | undefined) => {
  const t = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(t) ? t : null;
};

/** Builds the index entry of a stored document. */
export function toIndexEntry(doc: DocumentRecord): IndexedDoc {
  const body = stripLinkTargets(doc.text);
  const fields = [analyze(doc.title), analyze(headingsOf(doc.text)), analyze(body), analyze(urlWords(doc.url))];
  const verdict = classifyDocument(doc);
  const categories = verdict.categories.reduce((bits, c) => bits | categoryBit(c), 0);
  return {
    url: doc.url,
    host: hostOf(doc.url),
    title: doc.title,
    terms: countTerms(fields),
    lengths: fields.map((f) => f.length),
    positions: streamPositions(fields[0]!, fields[2]!),
    publishedAt: toTime(doc.publishedDate),
    crawledAt: toTime(doc.fetchedAt) ?? 0,
    categories,
    unsafe: verdict.unsafe,
    country: countryOf(doc.url, doc.metadata.language),
    entities: verdict.entities.length > 0 ? JSON.stringify(verdict.entities) : null,
    // what decides whether a re-fetched document needs re-indexing
    contentHash: shortHash(`${doc.contentHash}|${doc.title}|${doc.publishedDate ?? ''}`),
  };
}
