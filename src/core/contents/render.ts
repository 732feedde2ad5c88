/**
 * Renders a Page's blocks as the `text` of a result. Verbosity picks which blocks are shown:
 *
 * - `compact` (default): the main content only — the blocks the extractor marked `main`.
 * - `standard`: the main content plus the rest of the page's body that is not chrome — blocks in the
 *   `body` and `metadata` sections (bylines, dates, tags, comments and answers, related text) — so
 *   everything except `header`, `navigation`, `banner`, `sidebar` and `footer` blocks.
 * - `full`: every block of the page, in document order.
 *
 * `includeSections`, when given, selects blocks from the whole page by section regardless of
 * verbosity; `excludeSections` then removes blocks by section. Output is Markdown (headings `#`,
 * lists, pipe tables, fenced code with its language) with blocks separated by one blank line;
 * `includeHtmlTags` joins the blocks' cleaned HTML instead.
 */
import type { Block, Page, SectionKind } from './page.js';

/** How much of the page `renderText` shows, and in which form. */
export interface RenderOptions {
  verbosity?: 'compact' | 'standard' | 'full';
  includeHtmlTags?: boolean;
  includeSections?: SectionKind[];
  excludeSections?: SectionKind[];
}

const STANDARD_SECTIONS = new Set<SectionKind>(['body', 'metadata']);

function visible(block: Block, options: RenderOptions): boolean {
  if (options.includeSections && options.includeSections.length > 0) {
    if (!options.includeSections.includes(block.section)) return false;
  } else {
    const verbosity = options.verbosity ?? 'compact';
    if (verbosity === 'compact' && !block.main) return false;
    if (verbosity === 'standard' && !block.main && !STANDARD_SECTIONS.has(block.section)) return false;
  }
  return !options.excludeSections?.includes(block.section);
}

/** Collapses runs of blank lines and trailing spaces (outside fenced code) and trims. */
function normalise(text: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  let blank = 0;
  for (const line of text.split('\n')) {
    const marker = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) fence = marker;
    else if (fence !== null && marker && line.trim() === fence) fence = null;
    if (fence === null && !line.trim()) {
      if (++blank > 1 || out.length === 0) continue;
      out.push('');
      continue;
    }
    blank = 0;
    out.push(fence === null ? line.trimEnd() : line);
  }
  return out.join('\n').trim();
}

/** The page's text per the spec's text options: Markdown (or cleaned HTML) of the selected blocks. */
export function renderText(page: Page, options: RenderOptions = {}): string {
  const blocks = page.blocks.filter((b) => visible(b, options));
  if (options.includeHtmlTags) return blocks.map((b) => b.html).join('\n');
  return normalise(blocks.map((b) => b.markdown).join('\n\n'));
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** The index of the title heading above the first paragraph (an `h1`, or the page's title), or -1. */
function titleHeading(blocks: Block[], title: string): number {
  const t = norm(title);
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    if (b.kind !== 'heading') {
      if (b.text.length >= 100) return -1;
      continue;
    }
    const h = norm(b.text);
    if (h && (b.level === 1 || (t && (t.includes(h) || h.includes(t))))) return i;
  }
  return -1;
}

/**
 * The main content as plain text (no Markdown markup), one block per paragraph, for indexing and
 * summaries. The title heading is left out: the page's `title` carries it (and a document stores it
 * in its own field). Falls back to the body text when no block was judged main.
 */
export function mainText(page: Page): string {
  const main = page.blocks.filter((b) => b.main && b.text);
  const blocks = main.length > 0 ? main : page.blocks.filter((b) => b.text && b.section === 'body');
  // ...unless the heading is all there is (a one-line note)
  const skip = blocks.length > 1 ? titleHeading(blocks, page.title) : -1;
  return normalise(
    blocks
      .filter((_, i) => i !== skip)
      .map((b) => b.text)
      .join('\n\n'),
  );
}
