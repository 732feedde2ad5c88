/**
 * Content options: what to return for each page (text, highlights, summary, extras, subpages) and how
 * fresh it must be. /contents takes them top-level and nullable; /search, /findSimilar and monitor
 * searches nest them under `contents`.
 */
import { z } from 'zod';
import { checkJsonSchema } from './json-schema.js';
import { Section, wireObject } from './common.schema.js';

const maxCharacters = z.int().min(1).max(10000);

export const Verbosity = z.enum(['compact', 'standard', 'full']);

export const TextOptions = wireObject({
  maxCharacters: maxCharacters.optional().describe('Cap on characters of text per page, 1-10000.'),
  includeHtmlTags: z.boolean().default(false).describe('Keep HTML tags in the text.'),
  verbosity: Verbosity.default('compact').describe('How much of the page: compact (default), standard, full.'),
  includeSections: z.array(Section).optional().describe('Only these page sections (best effort).'),
  excludeSections: z.array(Section).optional().describe('Drop these page sections (best effort).'),
});

/** Highlights as /search and monitors take them. */
export const HighlightsOptions = wireObject({
  query: z.string().min(1).optional().describe('What the highlights should be about; default: the search query.'),
  dynamic: z
    .boolean()
    .default(false)
    .describe('Beta (`Svc-Beta: dynamic-highlights-2026-08-28`): choose highlight length per page.'),
  maxCharacters: maxCharacters.optional().describe('Characters of highlights per URL, 1-10000; not with dynamic.'),
});

/**
 * Highlights as /contents, /search and /findSimilar take them: adds the deprecated `numSentences` and
 * `highlightsPerUrl`, which the spec lists among deprecated fields without limiting them to one endpoint.
 */
export const ContentsHighlightsOptions = wireObject({
  ...HighlightsOptions.shape,
  numSentences: z
    .int()
    .min(1)
    .optional()
    .describe('Deprecated: about 1333 characters per sentence; use maxCharacters.'),
  highlightsPerUrl: z.int().min(1).optional().describe('Deprecated and ignored.'),
});

export const SummaryOptions = wireObject({
  query: z.string().min(1).optional().describe('What the summary should focus on.'),
  schema: z
    .record(z.string(), z.unknown())
    .superRefine(checkJsonSchema)
    .optional()
    .describe('JSON Schema the summary must follow (returned as a JSON string).'),
});

const extraCount = z.int().min(0).max(1000).default(0);

export const ContentsExtras = wireObject({
  links: extraCount.describe('Links to extract per page, 0-1000.'),
  imageLinks: extraCount.describe('Image links to extract per page, 0-1000.'),
  richImageLinks: extraCount.describe('Image links with alt text, 0-1000.'),
  richLinks: extraCount.describe('Links with anchor text, 0-1000.'),
  codeBlocks: extraCount.describe('Code blocks to extract per page, 0-1000.'),
});

export const SearchExtras = wireObject({
  links: extraCount.describe('Links to extract per page, 0-1000.'),
  imageLinks: extraCount.describe('Image links to extract per page, 0-1000.'),
});

export const Livecrawl = z
  .enum(['never', 'always', 'fallback', 'preferred'])
  .describe('Deprecated: use maxAgeHours. Must not be sent with maxAgeHours.');

export const SubpageTarget = z
  .union([z.string().min(1).max(100), z.array(z.string().min(1).max(100)).min(1).max(100)])
  .describe('Keywords that pick which subpages to return: a string or up to 100 strings, 1-100 characters each.');

export const Subpages = z.int().min(0).max(100).describe('Subpages per result, 0-100.');

export const MaxAgeHours = z
  .int()
  .min(-1)
  .max(720)
  .describe('Cache age allowed: positive uses cache younger than this; 0 always fetches fresh; -1 cache only.');

export const LivecrawlTimeout = z.int().min(1).max(90000).describe('Live-fetch timeout in ms, up to 90000.');

export const ContextOption = z
  .union([z.boolean(), wireObject({ maxCharacters: maxCharacters.optional() })])
  .describe('Deprecated: use highlights or text. All results rendered into one string.');

/** `contents` nested in /search and /findSimilar. */
export const SearchContents = wireObject(
  {
    text: z.union([z.boolean(), TextOptions]).optional().describe('Return page text; `true` or options.'),
    highlights: z
      .union([z.boolean(), ContentsHighlightsOptions])
      .optional()
      .describe('Return excerpts relevant to a query.'),
    summary: z.union([z.boolean(), SummaryOptions]).optional().describe('Return a summary per page.'),
    livecrawlTimeout: LivecrawlTimeout.default(10000),
    maxAgeHours: MaxAgeHours.optional(),
    livecrawl: Livecrawl.optional(),
    subpages: Subpages.default(0),
    subpageTarget: SubpageTarget.optional(),
    extras: SearchExtras.optional(),
    context: ContextOption.optional(),
    filterEmptyResults: z.boolean().optional().describe('Drop results whose requested contents came back empty.'),
  },
  { numSentences: 'not a contents option; use highlights.maxCharacters' },
);
export type SearchContents = z.infer<typeof SearchContents>;

/** Beta rule input: does any highlights option in this value ask for dynamic highlights? */
export function wantsDynamicHighlights(highlights: unknown): boolean {
  return (
    typeof highlights === 'object' && highlights !== null && (highlights as { dynamic?: unknown }).dynamic === true
  );
}

/**
 * `compliance: "hipaa"` is cache-only: no summaries (a model would read the page) and no live crawling
 * (`livecrawl` other than `never`, `maxAgeHours` other than -1). `path` leads to the content options.
 */
export function refineHipaa(
  c: { summary?: unknown; livecrawl?: string | null; maxAgeHours?: number | null },
  ctx: z.RefinementCtx,
  path: (string | number)[] = [],
): void {
  if (c.summary) {
    ctx.addIssue({
      code: 'custom',
      path: [...path, 'summary'],
      message: 'summaries are not supported with compliance "hipaa"',
    });
  }
  const live = c.livecrawl != null && c.livecrawl !== 'never';
  if (live || (c.maxAgeHours != null && c.maxAgeHours !== -1)) {
    ctx.addIssue({
      code: 'custom',
      path: [...path, live ? 'livecrawl' : 'maxAgeHours'],
      message: 'compliance "hipaa" is cache-only; livecrawl is not supported (use maxAgeHours -1 or omit it)',
    });
  }
}

/** Cross-field rules shared by every place content options appear. */
export function refineContentOptions(
  value: { highlights?: unknown; livecrawl?: unknown; maxAgeHours?: unknown },
  ctx: z.RefinementCtx,
  prefix: (string | number)[] = [],
): void {
  const h = value.highlights;
  if (wantsDynamicHighlights(h) && (h as { maxCharacters?: unknown }).maxCharacters != null) {
    ctx.addIssue({
      code: 'custom',
      path: [...prefix, 'highlights', 'maxCharacters'],
      message: 'maxCharacters cannot be combined with dynamic: true; drop one of them',
    });
  }
  if (value.livecrawl != null && value.maxAgeHours != null) {
    ctx.addIssue({
      code: 'custom',
      path: [...prefix, 'livecrawl'],
      message: 'livecrawl is deprecated and must not be sent with maxAgeHours; send only maxAgeHours',
    });
  }
}
