/**
 * Wire building blocks shared by several endpoints: dates, domain lists, the search result object,
 * grounding, cost objects and the error envelopes. Names and limits follow the spec word for word.
 */
import { z } from 'zod';

/**
 * A request object that rejects keys it does not know, naming them, with a hint when the key is a known
 * mistake (a parameter that does not exist, or one nested at the wrong level).
 */
export function wireObject<T extends z.ZodRawShape>(shape: T, hints: Record<string, string> = {}) {
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      return issue.keys.map((key) => `${key}: ${hints[key] ?? 'unknown field'}`).join('; ');
    },
  });
}

/** A custom message for a bad value that still says "is required" when the value is missing. */
export function required(message: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message);
}

/** ISO 8601 date (`2025-01-31`) or date-time (`2025-01-31T12:00:00Z`). */
export const IsoDate = z
  .union([z.iso.datetime({ offset: true, local: true }), z.iso.date()], {
    error: 'must be an ISO 8601 date or date-time, e.g. 2025-01-31 or 2025-01-31T12:00:00Z',
  })
  .describe('ISO 8601 date or date-time.');

/** ISO 8601 date-time as the server writes it (`new Date().toISOString()`). */
export const Timestamp = z.string().describe('ISO 8601 date-time.');

export const DomainList = z
  .array(z.string().min(1).max(2048))
  .max(1200)
  .describe('Domains, path prefixes (`example.com/blog`) or subdomain wildcards (`*.example.com`); at most 1200.');

/** `includeText` / `excludeText`: currently one string of at most 5 words. */
export const TextFilter = z
  .array(
    z
      .string()
      .min(1)
      .refine((s) => s.trim().split(/\s+/).length <= 5, { message: 'must be at most 5 words' }),
  )
  .max(1, { message: 'only 1 string is supported' });

export const Category = z
  .enum(['company', 'people', 'publication', 'news', 'personal site', 'financial report'])
  .describe('Focus on a kind of page.');

export const NumResults = z.int().min(1).max(100).default(10).describe('Number of results, 1-100.');

export const Section = z.enum(['header', 'navigation', 'banner', 'body', 'sidebar', 'footer', 'metadata']);

export const Citation = z.object({ url: z.string(), title: z.string() });

/** Grounding entry of synthesized output: which output field is supported by which sources. */
export const Grounding = z.object({
  field: z.string().describe('Output field path, e.g. `content` or `content.items[0].name`.'),
  citations: z.array(Citation),
  confidence: z.enum(['low', 'medium', 'high']),
});

const SubpageResult = z
  .object({
    title: z.string(),
    url: z.string(),
    publishedDate: z.string().nullable().optional(),
    author: z.string().nullable().optional(),
    id: z.string().optional(),
    image: z.string().optional(),
    favicon: z.string().optional(),
    text: z.string().optional(),
    summary: z.string().optional(),
    highlights: z.array(z.string()).optional(),
    highlightScores: z.array(z.number()).optional(),
  })
  .loose();

const CompanyEntity = z
  .object({
    id: z.string(),
    type: z.literal('company'),
    version: z.int().min(1),
    properties: z
      .object({
        name: z.string().nullable(),
        foundedYear: z.int().nullable(),
        description: z.string().nullable(),
        workforce: z.object({ total: z.number().nullable() }).loose().nullable(),
        headquarters: z
          .object({
            address: z.string().nullable(),
            city: z.string().nullable(),
            postalCode: z.string().nullable(),
          })
          .loose()
          .nullable(),
      })
      .loose(),
  })
  .loose();

/** Search result object, returned by /search, /contents and /findSimilar. */
export const SearchResult = z
  .object({
    title: z.string(),
    url: z.string(),
    id: z.string().describe('Document id (the URL); usable in `ids` of /contents.'),
    publishedDate: z.string().nullable().optional(),
    author: z.string().nullable().optional(),
    image: z.string().optional(),
    favicon: z.string().optional(),
    text: z.string().optional(),
    highlights: z.array(z.string()).optional(),
    highlightScores: z.array(z.number()).optional(),
    summary: z.string().optional(),
    subpages: z.array(SubpageResult).optional(),
    extras: z
      .object({ links: z.array(z.string()).optional() })
      .loose()
      .optional(),
    entities: z.array(z.union([CompanyEntity, z.object({ type: z.string() }).loose()])).optional(),
  })
  .loose();
export type SearchResult = z.infer<typeof SearchResult>;

/** `costDollars` of /search and /contents. */
export const CostDollars = z.object({ total: z.number() }).loose();

/** The standard error envelope (search, contents, context and agent endpoints). */
export const ErrorEnvelope = z.object({
  requestId: z.string(),
  error: z.string().describe('Human-readable message saying what to change.'),
  tag: z.string().describe('Machine-readable tag; unknown tags are a generic error of the HTTP status.'),
});

/** The monitor endpoints' error body. */
export const SimpleError = z.object({ error: z.string() });

/** Cursor pagination query shared by the list endpoints. */
export const PageQuery = {
  cursor: z.string().min(1).max(512).optional().describe('`nextCursor` of the previous page.'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Page size, 1-100.'),
};
