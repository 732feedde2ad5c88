/**
 * POST /answer: request, response and stream frame. Not in the spec: the hosted API's answer endpoint
 * as exa-js 2.x calls it (`answer()`, `streamAnswer()`); Trawl's choices are in docs/api.md.
 */
import { z } from 'zod';
import { CostDollars, wireObject } from './common.schema.js';
import { OutputSchema } from './output-schema.schema.js';
import { AnswerWarnings, SearchStreamChunk } from './search.schema.js';

/** The body exa-js's `answer()` and `streamAnswer()` send (`text`, `stream` and `model` always). */
export const AnswerRequest = wireObject(
  {
    query: z.string().min(1).describe('The question to answer.'),
    stream: z.boolean().default(false).describe('Stream the answer as chat-completion chunks (SSE).'),
    text: z.boolean().default(false).describe("Give each citation its page's text."),
    model: z
      .enum(['exa', 'exa-pro'])
      .default('exa')
      .describe("The hosted API's model names (exa-js sends `exa`); both answer with the operator's model."),
    systemPrompt: z.string().optional().describe('Instructions for how the answer is written.'),
    outputSchema: OutputSchema.optional().describe(
      'JSON Schema of a structured answer (`{type: "object", properties, …}`); `answer` is then an object.',
    ),
    userLocation: z
      .string()
      .regex(/^[A-Za-z]{2}$/, { message: 'must be a two-letter ISO country code, e.g. US' })
      .optional()
      .describe('Two-letter ISO country code of the user; results from that country rank higher.'),
  },
  {
    contents: '/answer has no contents; send text: true to give the citations their page text',
    numResults: '/answer reads the first 10 results of its search; it has no numResults',
  },
);
export type AnswerRequest = z.infer<typeof AnswerRequest>;

/** A source of the answer: a search result (its text when the request asked for `text`). */
export const AnswerCitation = z
  .object({
    id: z.string().describe('Document id (the URL); usable in `ids` of /contents.'),
    url: z.string(),
    title: z.string(),
    publishedDate: z.string().nullable().optional(),
    author: z.string().nullable().optional(),
    image: z.string().optional(),
    favicon: z.string().optional(),
    text: z.string().optional(),
  })
  .loose();

/** What exa-js's `answer()` reads: `answer`, `citations`, `requestId`, `costDollars` (and Trawl's `warnings`). */
export const AnswerResponse = z.object({
  requestId: z.string(),
  answer: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .describe('The answer: text, or an object following outputSchema.'),
  citations: z.array(AnswerCitation).describe('The search results the answer was written from, best first.'),
  costDollars: CostDollars,
  warnings: AnswerWarnings,
});
export type AnswerResponse = z.infer<typeof AnswerResponse>;

/**
 * One `data:` frame of a streamed /answer: the first carries `citations`, the next ones the text in
 * `choices[0].delta.content`, the last `finish_reason: "stop"`, `requestId` and `costDollars`.
 */
export const AnswerStreamChunk = SearchStreamChunk.extend({
  citations: z.array(AnswerCitation).optional(),
  requestId: z.string().optional(),
  costDollars: CostDollars.optional(),
  warnings: AnswerWarnings.describe(
    "Trawl's, on the last frame: what the answer lacks (MODEL_MISSING: extracted from the sources, not written).",
  ),
});
export type AnswerStreamChunk = z.infer<typeof AnswerStreamChunk>;
