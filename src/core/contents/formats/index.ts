/**
 * The non-HTML readers behind one entry point: a fetched body of a given kind → Page. A feed that turns
 * out not to be RSS, RDF or Atom is read as plain XML. PDFs go to a worker thread (pdf-reader.ts).
 */
import type { Page } from '../page.js';
import { parseFeed } from './feed.js';
import { parseJson } from './json.js';
import { parseMarkdown } from './markdown.js';
import { defaultPdfReader, type PdfReader } from './pdf-reader.js';
import { parseText } from './text.js';
import { parseXml } from './xml.js';

/** Every kind except HTML (the main-content extractor reads that). */
export type NonHtmlKind = Exclude<Page['kind'], 'html'>;

export interface NonHtmlInput {
  /** The page's final URL. */
  url: string;
  /** The decoded body (text kinds). */
  text: string;
  /** The raw body (PDF). */
  bytes?: Uint8Array;
  /** Where PDFs are read (the app's, under its limits); default: a process-wide reader with the default limits. */
  pdf?: PdfReader;
}

/** Reads a non-HTML body into a Page; throws `FetchError` for a PDF that cannot be read or is over a limit. */
export async function parseNonHtml(kind: NonHtmlKind, input: NonHtmlInput): Promise<Page> {
  switch (kind) {
    case 'pdf':
      return (input.pdf ?? defaultPdfReader()).read(input.bytes ?? new TextEncoder().encode(input.text), input.url);
    case 'feed':
      return parseFeed(input.text, input.url) ?? parseXml(input.text, input.url);
    case 'xml':
      return parseFeed(input.text, input.url) ?? parseXml(input.text, input.url);
    case 'markdown':
      return parseMarkdown(input.text, input.url);
    case 'json':
      return parseJson(input.text, input.url);
    case 'text':
      return parseText(input.text, input.url);
  }
}

export { parseFeed, parseJson, parseMarkdown, parseText, parseXml };
