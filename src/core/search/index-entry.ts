/**
 * A stored document → its search index entry: analyzed fields (title, headings, body, URL words), the
 * positions the proximity re-rank reads, and the filter facts (dates, categories, safety, country).
 */
import type { DocumentRecord } from '../../store/contracts/documents.js';
import { encodeAllPositions } from '../../store/search-index/postings.codec.js';
import type { IndexedDoc } from '../../store/search-index/search-index.types.js';
import { analyzePacked, termEpoch, type PackedAnalysis } from './analyzer.js';
import { CATEGORIES, classifyDocument, type DocumentCategory } from './classify/index.js';
import { createTermCounter } from './term-counts.js';

/** Words of the text that `excludeText` looks at (the spec: "checked in the first 1000 words"). */
export const HEAD_WORDS = 1000;
/** Positions of the body kept for proximity; a long page's later words rank by BM25 alone. */
const STREAM_POSITIONS = 5000;

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
  return countryOfHost(hostOf(url), language);
}

/** `countryOf` for a host already read from the URL. */
function countryOfHost(host: string, language: unknown): string | null {
  const tld = host.split('.').at(-1) ?? '';
  if (/^[a-z]{2}$/.test(tld) && !GENERIC_CC.has(tld)) return TLD_COUNTRY[tld] ?? tld.toUpperCase();
  const region = typeof language === 'string' ? /^[a-z]{2,3}[-_]([a-z]{2})\b/i.exec(language)?.[1] : undefined;
  return region ? region.toUpperCase() : null;
}

/** Markdown link and image targets are URLs, not words of the text. */
export function stripLinkTargets(text: string): string {
  return text.replace(/\]\((?:[^()\s]|\([^()\s]*\))+(?:\s+"[^"]*")?\)/g, ']');
}

function headingsOf(markdown: string): string {
  if (!markdown.includes('#')) return '';
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
  let path = u.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape ("/100%-cotton"): the path's words as they are
  }
  return `${u.hostname.replace(/^www\./, '')} ${path.replace(/\.(?:html?|php|aspx?)$/, '')}`;
}

/** Title positions kept for proximity. */
const TITLE_POSITIONS = 200;

/** The first term at each position, '' where a stopword stands: what proximity reads. */
function firstTerms(field: PackedAnalysis, limit: number): string[] {
  const words = new Array<string>(Math.min(field.positions, limit)).fill('');
  field.terms.forEach(({ term }, i) => {
    const pos = field.pos[i]!;
    if (pos < words.length && !words[pos]) words[pos] = term;
  });
  return words;
}

/**
 * The proximity stream of a document: its title's and body's first terms by position, space-separated,
 * a line each. Feedback reads it; the index stores it as positions (`streamPositions`).
 */
export function streamOf(title: string, text: string): string {
  const fields = [analyzePacked(title), analyzePacked(stripLinkTargets(text))];
  return `${firstTerms(fields[0]!, TITLE_POSITIONS).join(' ')}\n${firstTerms(fields[1]!, STREAM_POSITIONS).join(' ')}`;
}

/** The packed terms of a document: distinct terms, their counts per field, their encoded positions. */
type PackedTerms = Pick<IndexedDoc, 'terms' | 'freqs' | 'positions' | 'positionEnds'>;

/**
 * Counts each term per field (capped at 255) and collects where it stands first in the title and body
 * (the first term at each position, as `firstTerms` reads it), in one pass over the fields' terms. A
 * term's index in the document is kept on its `IndexTerm`; a map of the strings serves when the terms
 * were made anew while the fields were analyzed (`sameEpoch` false).
 */
function packTerms(fields: PackedAnalysis[], sameEpoch: boolean): PackedTerms {
  const counter = createTermCounter(sameEpoch);
  const title: number[][] = [];
  const body: number[][] = [];
  for (let f = 0; f < fields.length; f++) {
    const field = fields[f]!;
    const firsts = f === 0 ? title : f === 2 ? body : null;
    const limit = f === 0 ? TITLE_POSITIONS : STREAM_POSITIONS;
    let filled = -1; // the last position whose first term is taken: positions ascend
    for (let k = 0; k < field.terms.length; k++) {
      const t = field.terms[k]!;
      const i = counter.add(t, f);
      const pos = field.pos[k]!;
      if (firsts && pos !== filled && pos < limit && t.term) {
        filled = pos;
        (firsts[i] ??= []).push(pos);
      }
    }
  }
  const { terms, freqs } = counter.result();
  const { bytes, ends } = encodeAllPositions(terms.length, title, body);
  return { terms, freqs, positions: bytes, positionEnds: ends };
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

/** What decides whether a re-written document needs re-indexing: its text, title and date. */
export function entryHash(doc: Pick<DocumentRecord, 'contentHash' | 'title' | 'publishedDate'>): string {
  return shortHash(`${doc.contentHash}|${doc.title}|${doc.publishedDate ?? ''}`);
}

/** Builds the index entry of a stored document. */
export function toIndexEntry(doc: DocumentRecord): IndexedDoc {
  const body = stripLinkTargets(doc.text);
  const host = hostOf(doc.url);
  const epoch = termEpoch();
  const fields = [doc.title, headingsOf(doc.text), body, urlWords(doc.url)].map(analyzePacked);
  const sameEpoch = termEpoch() === epoch;
  const verdict = classifyDocument(doc);
  const categories = verdict.categories.reduce((bits, c) => bits | categoryBit(c), 0);
  return {
    url: doc.url,
    host,
    ...packTerms(fields, sameEpoch),
    lengths: fields.map((f) => f.length),
    publishedAt: toTime(doc.publishedDate),
    crawledAt: toTime(doc.fetchedAt) ?? 0,
    categories,
    unsafe: verdict.unsafe,
    country: countryOfHost(host, doc.metadata.language),
    entities: verdict.entities.length > 0 ? JSON.stringify(verdict.entities) : null,
    contentHash: entryHash(doc),
  };
}
