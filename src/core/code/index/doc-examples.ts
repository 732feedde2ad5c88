/**
 * Code examples of stored pages: each fenced block of a documentation or Q&A page's Markdown, with the
 * prose paragraph before it as its explanation, goes into the code index (source `web`, path = the
 * page's URL) whenever the page is stored, in the same transaction (step 3 of the documents' write
 * path, core/documents/write-path.ts), so /context can answer from docs Trawl has read.
 */
import type { ExamplesStage } from '../../documents/write-path.js';
import type { StoredPage } from '../../documents/documents.types.js';
import { chunkFile } from '../chunk/chunk.js';
import type { ChunkRecord, CodeIndex } from './code-index.js';

/** The source name of examples from stored pages. */
export const WEB_SOURCE = 'web';
/** Examples shorter than this many non-blank lines are not worth a snippet (`npm i x`, one identifier). */
const MIN_LINES = 2;
/** Page kinds whose text is Markdown with fences. */
const MARKDOWN_KINDS = new Set(['html', 'markdown', 'text']);

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
 * Step 3 of the documents' write path (core/documents/write-path.ts): each stored page's examples kept in
 * the code index, in the write's transaction; a page re-stored with other examples replaces them, one
 * without has them removed.
 */
export function codeExamples(code: CodeIndex): ExamplesStage {
  return {
    replace(pages, now) {
      const files = pages.map((d) => ({ path: d.url, chunks: examplesOf(d), hash: d.contentHash }));
      code.replaceFiles(WEB_SOURCE, files, Date.parse(now) || Date.now());
    },
    noteWrite: () => code.index.noteWrite(),
    settle: () => code.index.settle(),
  };
}
