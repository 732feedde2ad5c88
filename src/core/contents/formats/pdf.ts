/**
 * PDF → Page with pdfjs-dist (legacy build, loaded on first use): text lines rebuilt from positioned
 * text items, grouped into paragraphs and headings by spacing and font size, hyphenation undone;
 * title, author and date from the Info dictionary, then XMP, then the first large line or the URL.
 * Runs in the PDF worker thread (pdf-worker.ts, under its limits); the app calls pdf-reader.ts.
 */
import type * as PdfJs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { FetchError } from '../../../fetch/types.js';
import { pdfDate, toIsoDate } from '../../text/dates.js';
import type { Block, Page } from '../page.js';
import { heading, linksInText, makePage, paragraph, titleFromUrl } from './blocks.js';

/** Pages beyond this are not read; text beyond MAX_CHARACTERS neither (a book is not a page). */
const MAX_PAGES = 500;
const MAX_CHARACTERS = 2_000_000;

interface Line {
  text: string;
  size: number;
  y: number;
}

interface Item {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

let pdfjs: Promise<typeof PdfJs> | undefined;

/** Lines of one page in content-stream order: a new line on an explicit EOL or a vertical move. */
function toLines(items: Item[]): Line[] {
  const lines: Line[] = [];
  let current: (Line & { endX: number }) | null = null;
  for (const item of items) {
    const size = Math.hypot(item.transform[2] ?? 0, item.transform[3] ?? 0) || item.height || 1;
    const [x, y] = [item.transform[4] ?? 0, item.transform[5] ?? 0];
    if (current && Math.abs(y - current.y) > size * 0.5) current = null;
    if (!current) {
      current = { text: '', size, y, endX: x };
      lines.push(current);
    }
    const gap = x - current.endX > size * 0.15 && !/\s$/.test(current.text) && !/^\s/.test(item.str);
    current.text += (gap ? ' ' : '') + item.str;
    current.size = Math.max(current.size, item.str.trim() ? size : 0);
    current.endX = x + item.width;
    if (item.hasEOL) current = null;
  }
  return lines
    .map((l) => ({ text: l.text.replace(/\s+/g, ' ').trim(), size: Math.round(l.size * 10) / 10, y: l.y }))
    .filter((l) => l.text && !/^(?:page\s+)?\d{1,4}(?:\s*(?:of|\/)\s*\d{1,4})?$/i.test(l.text));
}

/** Joins wrapped lines, undoing end-of-line hyphenation ("extrac-" + "tion" → "extraction"). */
export function joinLines(lines: string[]): string {
  return lines.reduce((acc, line) => {
    if (!acc) return line;
    if (/\p{L}-$/u.test(acc) && /^\p{Ll}/u.test(line)) return acc.slice(0, -1) + line;
    return `${acc} ${line}`;
  }, '');
}

function bodySize(lines: Line[]): number {
  const weight = new Map<number, number>();
  for (const l of lines) weight.set(l.size, (weight.get(l.size) ?? 0) + l.text.length);
  return [...weight].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 10;
}

function median(values: number[]): number {
  const sorted = values.filter((v) => v > 0).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Pages' lines → heading and paragraph blocks. */
function toBlocks(pages: Line[][]): Block[] {
  const all = pages.flat();
  const body = bodySize(all);
  const isHeading = (l: Line) => l.size >= body * 1.2 && l.text.length <= 150;
  const headingSizes = [...new Set(all.filter(isHeading).map((l) => l.size))].sort((a, b) => b - a);
  const blocks: Block[] = [];
  for (const lines of pages) {
    const spacing = median(lines.slice(1).map((l, i) => lines[i]!.y - l.y)) || body * 1.2;
    let para: string[] = [];
    const flush = () => {
      if (para.length > 0) blocks.push(paragraph(joinLines(para)));
      para = [];
    };
    lines.forEach((line, i) => {
      const prev = lines[i - 1];
      if (isHeading(line)) {
        flush();
        blocks.push(heading(line.text, Math.min(3, headingSizes.indexOf(line.size) + 1)));
        return;
      }
      const gap = prev ? prev.y - line.y : 0;
      if (prev && (gap > spacing * 1.5 || gap < 0 || Math.abs(line.size - prev.size) > body * 0.2)) flush();
      para.push(line.text);
    });
    flush();
  }
  return mergeHeadings(blocks);
}

/** A heading broken over two lines becomes one heading. */
function mergeHeadings(blocks: Block[]): Block[] {
  return blocks.reduce<Block[]>((acc, b) => {
    const prev = acc[acc.length - 1];
    if (prev?.kind === 'heading' && b.kind === 'heading' && prev.level === b.level && prev.text.length < 80) {
      acc[acc.length - 1] = heading(`${prev.text} ${b.text}`, b.level ?? 1);
    } else acc.push(b);
    return acc;
  }, []);
}

// Titles that name the authoring tool or file rather than the document.
const JUNK_TITLE =
  /^(?:untitled|microsoft (?:word|powerpoint)|document\d*$|slide \d+$)|\.(?:docx?|pptx?|pdf|tex|dvi|indd|qxd)$/i;

interface Info {
  Title?: unknown;
  Author?: unknown;
  CreationDate?: unknown;
}

function metaFields(info: Info, xmp: { get(name: string): unknown } | null) {
  const str = (v: unknown): string =>
    typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : Array.isArray(v) ? str(v[0]) : '';
  const title = [str(info.Title), str(xmp?.get('dc:title'))].find((t) => t && !JUNK_TITLE.test(t)) ?? '';
  const author = str(info.Author) || str(xmp?.get('dc:creator'));
  const date = pdfDate(str(info.CreationDate)) ?? toIsoDate(str(xmp?.get('xmp:createdate')));
  return { title, author: author || null, date };
}

/** pdf.js's kinds of failure in Trawl's words (its messages may quote the file). */
const PDF_FAILURES: Record<string, string> = {
  PasswordException: 'it is password-protected',
  InvalidPDFException: 'it is not a valid PDF',
  FormatError: 'it is malformed',
};

async function loadDocument(bytes: Uint8Array) {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  const lib = await pdfjs;
  // Node: no eval (untrusted input), no font loading or system fonts (text only), quiet; pdfjs runs its
  // worker code in-process. The bytes are copied because pdfjs takes ownership of the buffer it is given.
  const task = lib.getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    enableXfa: false,
    verbosity: 0,
  });
  try {
    return await task.promise;
  } catch (err) {
    await task.destroy();
    // pdf.js words its errors with names and values from the file: only its kind of error is said
    const reason = PDF_FAILURES[(err as { name?: string }).name ?? ''] ?? 'pdf.js could not parse it';
    throw new FetchError('CRAWL_UNKNOWN_ERROR', `the PDF could not be read: ${reason}`, null, { cause: err });
  }
}

export interface ParsePdfOptions {
  /** Called after each page and after the metadata: throws to stop reading (a limit was reached). */
  checkpoint?: () => void;
}

/**
 * Reads a PDF in this thread; throws `FetchError` (`CRAWL_UNKNOWN_ERROR`) when the file is not a readable
 * PDF, or what `checkpoint` throws. Unbounded by itself: the app reads PDFs through pdf-reader.ts.
 */
export async function parsePdf(bytes: Uint8Array, url: string, options: ParsePdfOptions = {}): Promise<Page> {
  const checkpoint = options.checkpoint ?? (() => undefined);
  const doc = await loadDocument(bytes);
  try {
    const pages: Line[][] = [];
    let characters = 0;
    for (let n = 1; n <= Math.min(doc.numPages, MAX_PAGES) && characters < MAX_CHARACTERS; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const lines = toLines(content.items.filter((i): i is Item & typeof i => 'str' in i) as Item[]);
      characters += lines.reduce((sum, l) => sum + l.text.length, 0);
      pages.push(lines);
      page.cleanup();
      checkpoint();
    }
    const { info, metadata } = await doc.getMetadata();
    checkpoint();
    const meta = metaFields(info as Info, metadata);
    const blocks = toBlocks(pages);
    const firstHeading = blocks.find((b) => b.kind === 'heading')?.text;
    const text = blocks.map((b) => b.text).join('\n');
    return makePage({
      url,
      kind: 'pdf',
      title: meta.title || firstHeading || titleFromUrl(url),
      author: meta.author,
      publishedDate: meta.date,
      blocks,
      links: linksInText(text, url),
    });
  } finally {
    await doc.destroy();
  }
}
