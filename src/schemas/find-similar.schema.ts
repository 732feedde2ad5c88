/** POST /findSimilar: request and response. */
import { z } from 'zod';
import { DomainList, IsoDate, SearchResult, TextFilter, required, wireObject } from './common.schema.js';
import { ContextOption, SearchContents, refineContentOptions } from './content-options.schema.js';

export const FindSimilarRequest = wireObject(
  {
    url: z
      .url({ protocol: /^https?$/, error: required('must be an http(s) URL') })
      .max(2048)
      .describe('Find pages like this one.'),
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
  })
  .loose();
export type FindSimilarResponse = z.infer<typeof FindSimilarResponse>;
