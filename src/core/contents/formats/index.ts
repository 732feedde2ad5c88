/**
 * The non-HTML readers behind one entry point: a fetched body of a given kind → Page. A feed that turns
 * out not to be RSS, RDF or Atom is read as plain XML.
 */
import type { Page } from '../page.js';
import { parseFeed } from './feed.js';
import { parseJson } from './json.js';
import { parseMarkdown } from './markdown.js';
import { parsePdf } from './pdf.js';
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
}

/** Reads a non-HTML body into a Page; throws `FetchError` for a PDF that cannot be read. */
export async function parseNonHtml(kind: NonHtmlKind, input: NonHtmlInput): Promise<Page> {
  switch (kind) {
    case 'pdf':
      return parsePdf(input.bytes ?? new TextEncoder().encode(input.text), input.url);
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

export { parseFeed, parseJson, parseMarkdown, parsePdf, parseText, parseXml };
