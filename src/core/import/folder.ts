/**
 * Folder imports: the HTML, Markdown and text files under a directory, each read, decoded and
 * extracted like a fetched page, stored under `import://<collection>/<relative path>`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ContentKind } from '../../fetch/types.js';
import { parseBody } from '../contents/parse.js';
import { pageDocumentFields } from '../contents/page-document.js';
import { mainText } from '../contents/render.js';
import type { StoredPage } from '../documents/documents.types.js';
import { importUrl, sha256 } from './records.js';

const KINDS: Record<string, ContentKind> = {
  '.html': 'html',
  '.htm': 'html',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
};

/** The content kind of a file by its extension, or undefined for files a folder import skips. */
export function kindOfFile(file: string): ContentKind | undefined {
  return KINDS[path.extname(file).toLowerCase()];
}

/** Why a folder import skips `file` (one `kindOfFile` does not know): what it reads instead. */
export function skipReason(file: string): string {
  const ext = path.extname(file);
  const what = ext ? `${ext} files are` : 'a file without an extension is';
  return `skipped: ${what} not imported (a folder import reads ${Object.keys(KINDS).join(', ')})`;
}

/**
 * Every regular file under `root` as a path relative to it (with `/`), sorted, depth first. Hidden
 * entries (`.git`, `.DS_Store`) and symbolic links are left out, so a link loop cannot trap the walk.
 */
export async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child);
      else if (e.isFile()) out.push(child);
    }
  };
  await walk('');
  return out;
}

/** Decodes a file: a BOM wins, then an HTML `<meta charset>` in the first 2 KB, else UTF-8. */
export function decodeFile(bytes: Uint8Array, kind: ContentKind): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return new TextDecoder('utf-8').decode(b.subarray(3));
  if (b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b.subarray(2));
  if (b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b.subarray(2));
  if (kind === 'html') {
    const head = b.subarray(0, 2048).toString('latin1');
    const label = /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head)?.[1];
    if (label) {
      try {
        return new TextDecoder(label).decode(b);
      } catch {
        // An unknown label: fall through to UTF-8, as browsers do.
      }
    }
  }
  return new TextDecoder('utf-8').decode(b);
}

/** Reads, extracts and turns one file into its document; throws when it cannot be read or has no text. */
export async function fileToDocument(root: string, rel: string, collection: string): Promise<StoredPage> {
  const kind = kindOfFile(rel);
  if (!kind) throw new Error('not an HTML, Markdown or text file');
  const file = path.join(root, rel);
  const [bytes, stat] = await Promise.all([fs.readFile(file), fs.stat(file)]);
  const url = importUrl(collection, rel);
  const page = await parseBody({ url, kind, text: decodeFile(bytes, kind) });
  const text = mainText(page);
  if (text.trim() === '') throw new Error('no text could be extracted');
  return {
    url,
    title: page.title || path.basename(rel),
    ...pageDocumentFields(page, text, {
      path: rel,
      ...(page.description ? { description: page.description } : {}),
      ...(page.language ? { language: page.language } : {}),
    }),
    origin: 'import',
    collection,
    contentHash: sha256(text),
    fetchedAt: stat.mtime.toISOString(),
  };
}
