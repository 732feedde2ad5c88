/**
 * One imported JSONL record → one document: validation with a message per broken rule, and the
 * `import://<collection>/<_id>` address of records that have no URL of their own.
 */
import { createHash } from 'node:crypto';
import type { DocumentRecord } from '../../store/contracts/documents.js';
import { isImportUrl, normalizeUrl } from '../contents/url.js';

/** The address of a record or file without a URL: `import://<collection>/<id>`, the id kept verbatim. */
export function importUrl(collection: string, id: string): string {
  return `import://${collection}/${id}`;
}

/** A collection name is non-empty and has no `/` (it is the first segment of `import://` ids). */
export function checkCollection(name: string): string | undefined {
  if (name.trim() === '') return 'a collection name must not be empty';
  if (name.includes('/')) return `collection ${JSON.stringify(name)} must not contain "/"`;
  return undefined;
}

/** The hex SHA-256 of a text (a document's content hash). */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function optionalString(record: Record<string, unknown>, field: string): string | null | Error {
  const v = record[field];
  if (v === undefined || v === null) return null;
  return typeof v === 'string' ? v : new Error(`"${field}" must be a string`);
}

function addressOf(record: Record<string, unknown>, collection: string): string | Error {
  const { url, _id: id } = record;
  if (url !== undefined && url !== null) {
    if (typeof url === 'string' && isImportUrl(url)) return url;
    const normal = typeof url === 'string' ? normalizeUrl(url) : undefined;
    return normal ?? new Error('"url" must be an http(s) URL');
  }
  if (id === undefined || id === null) return new Error('a record needs "url" or "_id"');
  if ((typeof id !== 'string' && typeof id !== 'number') || String(id).trim() === '') {
    return new Error('"_id" must be a non-empty string or number');
  }
  return importUrl(collection, String(id));
}

function dateOf(record: Record<string, unknown>): string | null | Error {
  const v = optionalString(record, 'publishedDate');
  if (v === null || v instanceof Error) return v;
  const t = Date.parse(v);
  return Number.isNaN(t) ? new Error('"publishedDate" must be an ISO 8601 date') : new Date(t).toISOString();
}

/**
 * Validates one parsed JSONL value `{url?, _id?, title?, text, publishedDate?, author?}` and returns
 * its document, or an Error whose message says what is wrong. Other fields are ignored.
 */
export function recordToDocument(value: unknown, collection: string, fetchedAt: string): DocumentRecord | Error {
  if (!isObject(value)) return new Error('a record must be a JSON object');
  if (typeof value.text !== 'string' || value.text.trim() === '') {
    return new Error('"text" is missing or empty (a non-empty string is required)');
  }
  const url = addressOf(value, collection);
  const title = optionalString(value, 'title');
  const author = optionalString(value, 'author');
  const publishedDate = dateOf(value);
  for (const v of [url, title, author, publishedDate]) if (v instanceof Error) return v;
  const id = value._id === undefined || value._id === null ? undefined : String(value._id);
  return {
    url: url as string,
    title: (title as string | null) ?? '',
    text: value.text,
    author: author as string | null,
    publishedDate: publishedDate as string | null,
    kind: 'text',
    metadata: id !== undefined ? { id } : {},
    origin: 'import',
    collection,
    contentHash: sha256(value.text),
    fetchedAt,
  };
}
