/**
 * The extracted page: what every content kind (HTML, PDF, feed, text, ...) turns into, and what the
 * renderers, highlights, summaries and the document store read. Cached as JSON, so plain data only;
 * bump `PAGE_MODEL_VERSION` whenever the shape or the extractor's output changes.
 */

export const PAGE_MODEL_VERSION = 3;

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

/** An organisation's schema.org data (JSON-LD or microdata), trimmed to what a company entity needs. */
export interface OrganizationData {
  /** schema.org types, short names (`Organization`, `Corporation`, `Restaurant`, ...). */
  types: string[];
  /** True when the page is about the organisation; false when it only publishes the page. */
  subject: boolean;
  name?: string;
  url?: string;
  description?: string;
  foundingDate?: string;
  /** The organisation's `email` and `telephone`, as given. */
  email?: string;
  telephone?: string;
  /** A number or text as given, or a QuantitativeValue's `value`/`minValue`/`maxValue`. */
  numberOfEmployees?:
    string | number | { value?: string | number; minValue?: string | number; maxValue?: string | number };
  /** A PostalAddress's text fields, or the address as one string. */
  address?:
    | string
    | {
        streetAddress?: string;
        addressLocality?: string;
        addressRegion?: string;
        postalCode?: string;
        addressCountry?: string;
      };
}

/**
 * Structured-data evidence the search classifiers read (src/core/search/classify). Each field is set
 * only when the page has it, so pages without structured data keep the shape they always had.
 */
export interface PageEvidence {
  /** schema.org types found on the page (JSON-LD and microdata), short names, deduplicated. */
  ldTypes?: string[];
  /** The part of `ldTypes` describing the page's own subject, not its publisher, author or site. */
  ldSubjectTypes?: string[];
  /** The schema.org type of the page's publisher (the WebSite's or the article's), when declared. */
  publisherType?: string;
  /** Open Graph `og:type`, lower-cased. */
  ogType?: string;
  /** The `rating` meta tag, lower-cased (`adult`, `rta-5042-1996-1400-1577-rta`, `general`, ...). */
  rating?: string;
  /** Highwire Press `citation_*` meta tags (scholarly pages); present, possibly empty, when any is. */
  citation?: { journal?: string; doi?: string };
  organization?: OrganizationData;
  /** Email addresses and phone numbers the page links to (`mailto:`, `tel:`), as written there. */
  contacts?: { emails: string[]; phones: string[] };
}

const EVIDENCE_KEYS = [
  'ldTypes',
  'ldSubjectTypes',
  'publisherType',
  'ogType',
  'rating',
  'citation',
  'organization',
  'contacts',
] as const;

/** The evidence fields a page has, for a document's `metadata` (fields the page lacks are left out). */
export function evidenceOf(page: PageEvidence): PageEvidence {
  const out: Record<string, unknown> = {};
  for (const key of EVIDENCE_KEYS) if (page[key] !== undefined) out[key] = page[key];
  return out as PageEvidence;
}

export interface PageMetadata extends PageEvidence {
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
