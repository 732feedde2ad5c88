/**
 * What kind of document a response is: from its media type, from the first bytes when the type is
 * missing or generic (application/octet-stream), and for XML from its root element (feeds).
 */
import { quotedUrl, safeContentType } from '../lib/safe-text.js';
import { FetchError, type ContentKind } from './types.js';

export interface Classified {
  kind: ContentKind;
  /** The media type without parameters, lower-cased (sniffed types are reported as sniffed). */
  mediaType: string;
  /** The `charset` parameter, if any. */
  charset?: string;
}

const EXACT: Record<string, ContentKind> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'application/json': 'json',
  'text/json': 'json',
  'application/feed+json': 'feed',
  'application/rss+xml': 'feed',
  'application/atom+xml': 'feed',
  'application/rdf+xml': 'feed',
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
  // Source files and data that agents read as plain text.
  'application/javascript': 'text',
  'application/x-javascript': 'text',
  'application/ecmascript': 'text',
  'application/typescript': 'text',
  'application/yaml': 'text',
  'application/x-yaml': 'text',
  'application/toml': 'text',
  'application/x-sh': 'text',
};

/** Types that say nothing about the content: sniff instead. */
const GENERIC = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/unknown',
  'unknown/unknown',
]);

/** Splits a Content-Type header into its media type and charset parameter. */
export function parseContentType(header: string | undefined): { mediaType: string; charset?: string } {
  const [type = '', ...params] = (header ?? '').split(';');
  const charsetParam = params.map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(p)?.[1]).find(Boolean);
  return { mediaType: type.trim().toLowerCase(), ...(charsetParam ? { charset: charsetParam } : {}) };
}

/** The head of the body as Latin-1 text after a BOM and leading whitespace, lower-cased. */
function headText(bytes: Uint8Array, length = 2048): string {
  let start = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  return Buffer.from(bytes.subarray(start, start + length))
    .toString('latin1')
    .trimStart()
    .toLowerCase();
}

/** The name of the XML root element, past the declaration, comments, PIs and doctype. */
export function xmlRootName(bytes: Uint8Array): string | undefined {
  const text = headText(bytes, 4096).replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!doctype[^>[]*(\[[\s\S]*?\])?\s*>/g, '');
  return /^\s*<([a-z_][\w.:-]*)/.exec(text)?.[1];
}

function xmlKind(bytes: Uint8Array): ContentKind {
  const root = xmlRootName(bytes);
  if (root === 'rss' || root === 'feed' || root === 'rdf:rdf' || root === 'rdf') return 'feed';
  if (root === 'html') return 'html';
  return 'xml';
}

/** The kind the first bytes show, for untyped or generically typed bodies. */
export function sniffKind(bytes: Uint8Array): ContentKind | undefined {
  if (Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-')) return 'pdf';
  const head = headText(bytes);
  if (/^<!doctype html|^<html|^<head|^<body/.test(head)) return 'html';
  if (head.startsWith('<?xml') || head.startsWith('<rss') || head.startsWith('<feed')) return xmlKind(bytes);
  return undefined;
}

const isMarkdownPath = (url: URL) => /\.(md|markdown|mdx)$/i.test(url.pathname);

/** Plausibly text: no NUL and few control bytes in the head (for untyped bodies named like text). */
function looksTextual(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 1024);
  let control = 0;
  for (const b of head) {
    if (b === 0) return false;
    if (b < 9 || (b > 13 && b < 32)) control++;
  }
  return control <= head.length / 100;
}

function byExtension(url: URL, bytes: Uint8Array): ContentKind | undefined {
  if (!looksTextual(bytes)) return undefined;
  if (isMarkdownPath(url)) return 'markdown';
  if (/\.(txt|text|rst|csv|log)$/i.test(url.pathname)) return 'text';
  if (/\.json$/i.test(url.pathname)) return 'json';
  return undefined;
}

function byMediaType(mediaType: string, url: URL, bytes: Uint8Array): ContentKind | undefined {
  const exact = EXACT[mediaType];
  if (exact === 'text' && mediaType === 'text/plain' && isMarkdownPath(url)) return 'markdown';
  if (exact) return exact;
  if (mediaType.endsWith('+json')) return 'json';
  if (mediaType === 'text/xml' || mediaType === 'application/xml' || mediaType.endsWith('+xml')) return xmlKind(bytes);
  if (mediaType.startsWith('text/')) return 'text';
  return undefined;
}

/**
 * Classifies a response; throws `CRAWL_UNSUPPORTED_CONTENT_TYPE` for anything Trawl cannot read (images,
 * archives, audio, video, fonts, ...), naming the type only in its safe form (the site chose it).
 */
export function classifyContent(contentType: string | undefined, url: URL, bytes: Uint8Array): Classified {
  const { mediaType, charset } = parseContentType(contentType);
  const withCharset = (kind: ContentKind, type: string): Classified => ({
    kind,
    mediaType: type,
    ...(charset ? { charset } : {}),
  });
  if (GENERIC.has(mediaType)) {
    const sniffed = sniffKind(bytes) ?? byExtension(url, bytes);
    if (sniffed) return withCharset(sniffed, SNIFFED_TYPES[sniffed]);
  } else {
    const kind = byMediaType(mediaType, url, bytes);
    if (kind) return withCharset(kind, mediaType);
  }
  const named = mediaType ? safeContentType(mediaType) : 'an unknown type';
  throw new FetchError('CRAWL_UNSUPPORTED_CONTENT_TYPE', `${quotedUrl(url)} is ${named}, which Trawl cannot read`);
}

const SNIFFED_TYPES: Record<ContentKind, string> = {
  html: 'text/html',
  text: 'text/plain',
  markdown: 'text/markdown',
  json: 'application/json',
  feed: 'application/xml',
  xml: 'application/xml',
  pdf: 'application/pdf',
};
