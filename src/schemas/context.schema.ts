/** POST /context: code snippets and examples for a query, as one string within a token budget. */
import { z } from 'zod';
import { wireObject } from './common.schema.js';

export const ContextRequest = wireObject({
  query: z.string().min(1).max(2000).describe('What the code context is for, 1-2000 characters.'),
  tokensNum: z
    .union([z.literal('dynamic'), z.int().min(50).max(100000)], {
      error: 'must be "dynamic" or an integer from 50 to 100000',
    })
    .default('dynamic')
    .describe('Token budget of the response: "dynamic" (chosen automatically) or 50-100000.'),
});
export type ContextRequest = z.infer<typeof ContextRequest>;

export const ContextResponse = z.object({
  requestId: z.string(),
  query: z.string(),
  response: z.string().describe('Formatted code snippets and examples.'),
  resultsCount: z.int(),
  costDollars: z.object({ total: z.number(), search: z.object({ neural: z.number() }) }),
  searchTime: z.number(),
  outputTokens: z.int(),
  sources: z
    .array(
      z.object({
        location: z.string().describe('`source/path:start-end`, or the page URL of a documentation example.'),
        symbol: z.string().nullable(),
        language: z.string(),
        lines: z.tuple([z.int(), z.int()]),
      }),
    )
    .optional()
    .describe("Trawl's addition: where each snippet of `response` comes from, in order."),
});
export type ContextResponse = z.infer<typeof ContextResponse>;
