/** POST /contents: request (content options top-level, every option nullable) and response. */
import { z } from 'zod';
import { CostDollars, SearchResult, wireObject } from './common.schema.js';
import {
  ContentsExtras,
  ContentsHighlightsOptions,
  ContextOption,
  Livecrawl,
  MaxAgeHours,
  Subpages,
  SubpageTarget,
  SummaryOptions,
  TextOptions,
  refineContentOptions,
  refineHipaa,
} from './content-options.schema.js';

const Target = z.string().min(1).max(2048);
const Targets = z.array(Target).min(1).max(100);

export const ContentsRequest = wireObject(
  {
    ids: Targets.optional().describe('Document ids from a search, 1-100. Exactly one of ids or urls.'),
    urls: Targets.optional().describe('URLs, 1-100, each up to 2048 characters. Exactly one of ids or urls.'),
    compliance: z.enum(['hipaa']).nullish().describe('Enterprise only: cache-only retrieval.'),
    text: z.union([z.boolean(), TextOptions]).nullish().describe('Return page text; `true` or options.'),
    highlights: z.union([z.boolean(), ContentsHighlightsOptions]).nullish().describe('Return excerpts.'),
    summary: z.union([z.boolean(), SummaryOptions]).nullish().describe('Return a summary per page.'),
    extras: ContentsExtras.nullish(),
    context: ContextOption.nullish(),
    livecrawl: Livecrawl.nullish(),
    livecrawlTimeout: z
      .int()
      .min(1)
      .max(90000)
      .nullish()
      .transform((v) => v ?? 10000)
      .describe('Live-fetch timeout in ms, 1-90000; default 10000.'),
    maxAgeHours: MaxAgeHours.nullish(),
    subpages: Subpages.nullish().transform((v) => v ?? 0),
    subpageTarget: SubpageTarget.nullish(),
    filterEmptyResults: z.boolean().nullish().describe('Drop results whose requested contents came back empty.'),
  },
  { query: '/contents takes urls or ids; use /search for a query', contents: 'options are top-level on /contents' },
).superRefine((req, ctx) => {
  const hasIds = req.ids != null;
  const hasUrls = req.urls != null;
  if (hasIds === hasUrls) {
    ctx.addIssue({
      code: 'custom',
      path: [hasIds ? 'ids' : 'urls'],
      message: hasIds ? 'send exactly one of ids or urls, not both' : 'one of ids or urls is required',
    });
  }
  refineContentOptions(req, ctx);
  if (req.compliance === 'hipaa') refineHipaa(req, ctx);
});
export type ContentsRequest = z.infer<typeof ContentsRequest>;

export const ContentStatus = z.strictObject({
  id: z.string(),
  status: z.enum(['success', 'error']),
  source: z.enum(['cached', 'crawled']).optional(),
  error: z
    .strictObject({ tag: z.string(), httpStatusCode: z.int().min(100).max(599).nullable() })
    .nullable()
    .optional(),
  message: z
    .string()
    .optional()
    .describe(
      'Trawl: on an error, the cause in words (DNS, connection refused, TLS, which time-out, size cap, policy, robots.txt, HTTP status); on a success, how the page is poorer than asked. Absent when there is nothing to say.',
    ),
});

export const ContentsResponse = z.strictObject({
  requestId: z.string(),
  results: z.array(SearchResult),
  context: z.string().optional().describe('Deprecated.'),
  statuses: z.array(ContentStatus),
  costDollars: CostDollars,
  searchTime: z.number().describe('Milliseconds of server-side processing.'),
});
export type ContentsResponse = z.infer<typeof ContentsResponse>;
