/**
 * Code examples of stored pages: each fenced block of a documentation or Q&A page's Markdown, with the
 * prose paragraph before it as its explanation, goes into the code index (source `web`, path = the
 * page's URL) whenever the page is stored, in the same transaction, so /context can answer from docs
 * Trawl has read.
 */
import { writeTransaction, type Db } from '../../../store/sqlite/database.js';
import type { DocumentsRepo, SqliteDocumentsRepo, StoredPage } from '../../../store/contracts/documents.js';
import { chunkFile } from '../chunk/chunk.js';
import type { ChunkRecord, CodeIndex } from './code-index.js';

/** The source name of examples from stored pages. */
export const WEB_SOURCE = 'web';
/** Examples shorter than this many non-blank lines are not worth a snippet (`npm i x`, one identifier). */
const MIN_LINES = 2;
/** Page kinds whose text is Markdown with fences. */
const MARKDOWN_KINDS = new Set(['html', 'markdown', 'text']);

/** A document as it is written, with a fetched page's Markdown (for its examples; not stored itself). */
export type { StoredPage };

/**
 * Where pages are written, as the pages and import services see it: a page or a batch at a time; a
 * store on this machine also takes a batch in two steps (analyzed off the writing thread, then written
 * in one synchronous transaction), which an import uses to overlap the two. A replica on PostgreSQL
 * (core/search/replica-documents.ts) has no synchronous write.
 */
export type PageStore = DocumentsRepo & {
  upsert(doc: StoredPage, now: string): Promise<void>;
  upsertMany(docs: StoredPage[], now: string): Promise<void>;
} & Partial<Pick<PageDocuments, 'prepare' | 'writeNow'>>;

/** The documents repository whose writes take a page's Markdown too (for its code examples). */
export interface PageDocuments extends SqliteDocumentsRepo {
  upsert(doc: StoredPage, now: string): Promise<void>;
  upsertMany(docs: StoredPage[], now: string): Promise<void>;
  writeNow(docs: StoredPage[], now: string): void;
}

/** The fenced examples of a stored page, fences taken off; none for other kinds or pages without any. */
export function examplesOf(doc: Pick<StoredPage, 'url' | 'title' | 'text' | 'kind' | 'markdown'>): ChunkRecord[] {
  const markdown = doc.markdown ?? doc.text;
  if (!MARKDOWN_KINDS.has(doc.kind) || !markdown.includes('```')) return [];
  return chunkFile(doc.url, markdown, 'markdown')
    .filter((c) => c.kind === 'example')
    .map((c) => ({ ...c, code: unfence(c.code) }))
    .filter((c) => c.code.split('\n').filter((l) => l.trim()).length >= MIN_LINES)
    .map((c) => ({
      source: WEB_SOURCE,
      path: doc.url,
      startLine: c.startLine,
      endLine: c.endLine,
      language: c.language,
      kind: 'example',
      symbol: c.symbol ?? (doc.title || null),
      doc: c.doc,
      code: c.code,
    }));
}

/** The code inside a fenced block. */
function unfence(code: string): string {
  const lines = code.split('\n');
  if (/^\s*(`{3,}|~{3,})/.test(lines[0] ?? '')) lines.shift();
  if (/^\s*(`{3,}|~{3,})\s*$/.test(lines.at(-1) ?? '')) lines.pop();
  return lines.join('\n');
}

/**
 * The documents repository with each stored page's examples kept in the code index, in the write's
 * transaction: a page re-stored with other examples replaces them; one without has them removed.
 */
export function withCodeExamples(db: Db, documents: SqliteDocumentsRepo, code: CodeIndex): PageDocuments {
  const write = writeTransaction(db, (pages: StoredPage[], now: string) => {
    const docs = pages.map(({ markdown: _markdown, ...doc }) => doc);
    documents.writeNow(docs, now);
    const files = pages.map((d) => ({ path: d.url, chunks: examplesOf(d), hash: d.contentHash }));
    code.replaceFiles(WEB_SOURCE, files, Date.parse(now) || Date.now());
  });
  const writeNow = (pages: StoredPage[], now: string) => {
    write(pages, now);
    if (db.inTransaction) return;
    documents.settle?.();
    code.index.settle();
  };
  const prepare = async (pages: StoredPage[]) =>
    documents.prepare?.(pages.map(({ markdown: _markdown, ...doc }) => doc));
  return {
    ...documents,
    writeNow,
    prepare,
    upsert: async (doc, now) => writeNow([doc], now),
    async upsertMany(docs, now) {
      await prepare(docs);
      writeNow(docs, now);
    },
  };
}
