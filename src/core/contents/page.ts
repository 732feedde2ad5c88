/**
 * The extracted page: what every content kind (HTML, PDF, feed, text, ...) turns into, and what the
 * renderers, highlights, summaries and the document store read. Cached as JSON, so plain data only;
 * bump `PAGE_MODEL_VERSION` whenever the shape or the extractor's output changes.
 */

export const PAGE_MODEL_VERSION = 1;

/** The spec's section enum (best-effort classification of where a block sits on the page). */
export type SectionKind = 'header' | 'navigation' | 'banner' | 'body' | 'sidebar' | 'footer' | 'metadata';

export type BlockKind = 'heading' | 'paragraph' | 'list' | 'table' | 'code' | 'quote' | 'figure' | 'rule';

/** One block of the page in document order. */
export interface Block {
  kind: BlockKind;
  section: SectionKind;
  /** The extractor's verdict: part of the main content. */
  main: boolean;
  /** The block as Markdown: `## Heading`, `- item`, pipe tables, fenced code with its language. */
  markdown: string;
  /** The block as plain text (no markup): used for highlights, summaries and indexing. */
  text: string;
  /** The block's cleaned HTML (scripts, styles, event handlers and comments removed), for `includeHtmlTags`. */
  html: string;
  /** Heading level 1-6 (headings only). */
  level?: number;
  /** Code language when known (code blocks only). */
  language?: string;
}

export interface PageLink {
  url: string;
  text: string;
}

export interface PageImage {
  url: string;
  alt: string;
}

export interface PageCodeBlock {
  language: string | null;
  code: string;
}

export interface PageMetadata {
  title: string;
  author: string | null;
  /** ISO 8601 date-time, or null when the page gives none. */
  publishedDate: string | null;
  image?: string;
  favicon?: string;
  /** BCP 47 language of the page when declared. */
  language?: string;
  description?: string;
}

export interface Page extends PageMetadata {
  /** The final URL (after redirects). */
  url: string;
  kind: 'html' | 'text' | 'markdown' | 'json' | 'feed' | 'xml' | 'pdf';
  blocks: Block[];
  /** Absolute http(s) links of the page, main content first, deduplicated. */
  links: PageLink[];
  /** Absolute image URLs, main content first, deduplicated. */
  images: PageImage[];
  /** Code blocks of the main content, in order. */
  codeBlocks: PageCodeBlock[];
  /** True when the static HTML looked like a JavaScript shell with no real content. */
  needsBrowser?: boolean;
}
