/**
 * From a fetched (or imported) body to the page model: HTML goes through the main-content extractor,
 * every other kind through its format reader (PDFs in a worker thread, under the reader's limits).
 */
import type { ContentKind, RawResponse } from '../../fetch/types.js';
import { parseNonHtml } from './formats/index.js';
import type { PdfReader } from './formats/pdf-reader.js';
import { extractHtml } from './html/extract.js';
import type { Page } from './page.js';

export interface BodyInput {
  url: string;
  kind: ContentKind;
  /** Decoded text (text kinds). */
  text: string;
  /** Raw bytes (PDF). */
  bytes?: Uint8Array;
  /** Where PDFs are read (default: a process-wide reader with the default limits). */
  pdf?: PdfReader;
}

/**
 * Parses one body into a Page; throws `FetchError` for a PDF that is malformed or over a limit (the
 * caller reports it per URL).
 */
export async function parseBody(input: BodyInput): Promise<Page> {
  if (input.kind === 'html') return extractHtml(input.text, input.url);
  return parseNonHtml(input.kind, { url: input.url, text: input.text, bytes: input.bytes, pdf: input.pdf });
}

/** Parses a fetcher response (the final URL after redirects is the page's URL); PDFs go to `pdf`. */
export function parseRaw(raw: RawResponse, pdf?: PdfReader): Promise<Page> {
  return parseBody({
    url: raw.url,
    kind: raw.kind,
    text: raw.text,
    bytes: raw.bodyBase64 ? Buffer.from(raw.bodyBase64, 'base64') : undefined,
    pdf,
  });
}
