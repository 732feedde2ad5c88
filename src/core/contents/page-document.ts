/**
 * What a stored document takes from its extracted page, however the page came (a live fetch, an
 * imported file): its text and Markdown, byline and kind, and, after the caller's own metadata, the
 * evidence the search classifiers read (src/core/search/classify).
 */
import type { StoredPage } from '../documents/documents.types.js';
import { evidenceOf, type Page } from './page.js';
import { renderText } from './render.js';

/** The document fields drawn from `page`, whose `mainText` is `text`; `metadata` is the caller's. */
export function pageDocumentFields(
  page: Page,
  text: string,
  metadata: Record<string, unknown>,
): Pick<StoredPage, 'text' | 'markdown' | 'author' | 'publishedDate' | 'kind' | 'metadata'> {
  return {
    text,
    // the Markdown keeps the fences of the page's code: its examples feed /context
    markdown: renderText(page),
    author: page.author,
    publishedDate: page.publishedDate,
    kind: page.kind,
    metadata: { ...metadata, ...evidenceOf(page) },
  };
}
