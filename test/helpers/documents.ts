/** Test helper: a stored document record (as fetched pages are stored), with overridable fields. */
import type { DocumentRecord } from '../../src/store/contracts/documents.js';

export const FETCHED_AT = '2026-11-20T10:00:00.000Z';

/** A fetched page's document: its content hash follows its URL and text, so changed text re-indexes. */
export function storedDoc(
  url: string,
  title: string,
  text: string,
  extra: Partial<DocumentRecord> = {},
): DocumentRecord {
  return {
    url,
    title,
    text,
    author: null,
    publishedDate: null,
    kind: 'html',
    metadata: {},
    origin: 'fetch',
    collection: null,
    contentHash: `${url}:${title}:${text}`,
    fetchedAt: FETCHED_AT,
    ...extra,
  };
}
