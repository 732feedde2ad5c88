/** POST /findSimilar: request and response. */
import { z } from 'zod';
import { DomainList, IsoDate, SearchResult, TextFilter, required, wireObject } from './common.schema.js';
import { ContextOption, SearchContents, refineContentOptions } from './content-options.schema.js';
import { AnswerWarnings } from './search.schema.js';

const HttpUrl = z.url({ protocol: /^https?$/ });
const URL_RULE = 'must be an http(s) URL, or the URL of a document in the index (e.g. import://collection/id)';

/**
 * The source page: an http(s) URL (read from the cache or fetched), or a URL of any other scheme that
 * names a document of the index (an imported record's `import://…`); the service checks the index and
 * never fetches those.
 */
export const SimilarSourceUrl = z
  .string({ error: required(URL_RULE) })
  .max(2048)
  .refine((url) => (/^https?:/i.test(url) ? HttpUrl.safeParse(url).success : /^[a-z][a-z0-9+.-]*:\S/i.test(url)), {
    error: URL_RULE,
  })
  .describe('Find pages like this one: an http(s) URL, or the URL of a document in the index (any scheme).');

export const FindSimilarRequest = wireObject(
  {
    url: SimilarSourceUrl,
    numResults: z.int().min(1).max(100).default(10).describe('Number of results, at most 100.'),
    includeDomains: DomainList.optional(),
    excludeDomains: DomainList.optional(),
    excludeSourceDomain: z.boolean().optional().describe("Leave out pages from the source URL's own domain."),
    startCrawlDate: IsoDate.optional().describe('Only links discovered after this date.'),
    endCrawlDate: IsoDate.optional().describe('Only links discovered before this date.'),
    startPublishedDate: IsoDate.optional().describe('Only links published after this date.'),
    endPublishedDate: IsoDate.optional().describe('Only links published before this date.'),
    includeText: TextFilter.optional().describe('One string of up to 5 words that must appear in the page text.'),
    excludeText: TextFilter.optional().describe(
      'One string of up to 5 words that must not appear in the first 1000 words.',
    ),
    context: ContextOption.optional(),
    moderation: z.boolean().default(false).describe('Filter unsafe content.'),
    contents: SearchContents.optional(),
    filterEmptyResults: z.boolean().optional().describe('Drop results whose requested contents came back empty.'),
  },
  {
    includeUrls: 'does not exist; use includeDomains',
    excludeUrls: 'does not exist; use excludeDomains',
    query: '/findSimilar takes "url", not "query"',
  },
).superRefine((req, ctx) => {
  if (req.contents) refineContentOptions(req.contents, ctx, ['contents']);
});
export type FindSimilarRequest = z.infer<typeof FindSimilarRequest>;

const Breakdown = z.object({
  search: z.number(),
  contents: z.number(),
  breakdown: z.object({
    neuralSearch: z.number(),
    deepSearch: z.number(),
    contentText: z.number(),
    contentHighlight: z.number(),
    contentSummary: z.number(),
  }),
});

/** `costDollars` of /findSimilar, the most detailed of the cost objects. */
export const FindSimilarCost = z.object({
  total: z.number(),
  breakDown: z.array(Breakdown),
  perRequestPrices: z.object({
    neuralSearch_1_10_results: z.number(),
    neuralSearch_additional_result: z.number(),
    deepSearch: z.number(),
    deepReasoningSearch: z.number(),
  }),
  perPagePrices: z.object({ contentText: z.number(), contentHighlight: z.number(), contentSummary: z.number() }),
});

export const FindSimilarResponse = z
  .object({
    requestId: z.string(),
    context: z.string().optional().describe('Deprecated.'),
    results: z.array(SearchResult),
    costDollars: FindSimilarCost,
    warnings: AnswerWarnings,
  })
  .loose();
export type FindSimilarResponse = z.infer<typeof FindSimilarResponse>;
