/** POST /search: request, response and stream chunk, with the spec's cross-field rules. */
import { z } from 'zod';
import {
  Category,
  CostDollars,
  DomainList,
  Grounding,
  IsoDate,
  NumResults,
  SearchResult,
  TextFilter,
  wireObject,
} from './common.schema.js';
import { SearchContents, refineContentOptions, refineHipaa } from './content-options.schema.js';
import { SearchOutputSchema } from './output-schema.schema.js';
import { WARNING_CODES } from '../core/warnings.js';

export const SearchType = z
  .enum(['auto', 'fast', 'instant', 'deep-lite', 'deep', 'deep-reasoning', 'neural', 'keyword', 'hybrid'])
  .describe(
    'Latency/depth trade-off: instant, fast, auto (default), deep-lite, deep, deep-reasoning. Older names: `neural` and `hybrid` run as auto, `keyword` as fast.',
  );

const NESTED_HINT = 'content options must be nested under "contents" on /search';

/** Keys callers often send that do not exist on /search, with what to use instead. */
export const SEARCH_KEY_HINTS: Record<string, string> = {
  includeUrls: 'does not exist; use includeDomains',
  excludeUrls: 'does not exist; use excludeDomains',
  tokensNum: 'does not exist on /search (it is a /context parameter); use contents.text.maxCharacters',
  text: NESTED_HINT,
  highlights: NESTED_HINT,
  summary: NESTED_HINT,
  livecrawl: NESTED_HINT,
  livecrawlTimeout: NESTED_HINT,
  maxAgeHours: NESTED_HINT,
  subpages: NESTED_HINT,
  subpageTarget: NESTED_HINT,
  extras: NESTED_HINT,
};

/** Filters that `category: company | people` does not support. */
const ENTITY_UNSUPPORTED = ['startPublishedDate', 'endPublishedDate', 'excludeDomains', 'includeText', 'excludeText'];

export const SearchRequestShape = {
  query: z.string().min(1).describe('Natural-language query.'),
  type: SearchType.default('auto'),
  stream: z.boolean().default(false).describe('Stream the synthesized answer as chat-completion chunks (SSE).'),
  numResults: NumResults,
  category: Category.optional(),
  userLocation: z
    .string()
    .regex(/^[A-Za-z]{2}$/, { message: 'must be a two-letter ISO country code, e.g. US' })
    .optional()
    .describe('Two-letter ISO country code of the user.'),
  includeDomains: DomainList.optional(),
  excludeDomains: DomainList.optional(),
  startPublishedDate: IsoDate.optional().describe('Only links published after this date.'),
  endPublishedDate: IsoDate.optional().describe('Only links published before this date.'),
  startCrawlDate: IsoDate.optional().describe('Only links first crawled after this date.'),
  endCrawlDate: IsoDate.optional().describe('Only links first crawled before this date.'),
  includeText: TextFilter.optional().describe('One string of up to 5 words that must appear in the page text.'),
  excludeText: TextFilter.optional().describe('One string of up to 5 words that must not appear in the page text.'),
  moderation: z.boolean().default(false).describe('Filter unsafe content.'),
  additionalQueries: z.array(z.string().min(1)).max(10).optional().describe('Extra query variations (deep types).'),
  systemPrompt: z.string().optional().describe('Guides synthesized output and deep planning.'),
  outputSchema: SearchOutputSchema.optional(),
  compliance: z.enum(['hipaa']).optional().describe('Enterprise only: cache-only retrieval, instant/fast types.'),
  contents: SearchContents.optional(),
  useAutoprompt: z.boolean().optional().describe('Deprecated; has no effect.'),
  filterEmptyResults: z
    .boolean()
    .optional()
    .describe('Drop results whose requested contents came back empty (exa-js sends it top-level).'),
};

type SearchLike = {
  category?: string | undefined;
  compliance?: string | undefined;
  type?: string;
  contents?: z.infer<typeof SearchContents> | undefined;
} & Record<string, unknown>;

/** Cross-field rules of /search (also used by monitor searches, which have no type or category). */
export function refineSearch(req: SearchLike, ctx: z.RefinementCtx): void {
  if (req.category === 'company' || req.category === 'people') {
    for (const field of ENTITY_UNSUPPORTED) {
      if (req[field] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `not supported with category "${req.category}"; remove it or choose another category`,
        });
      }
    }
  }
  if (req.contents) refineContentOptions(req.contents, ctx, ['contents']);
  if (req.compliance === 'hipaa') {
    if (req.type !== 'instant' && req.type !== 'fast') {
      ctx.addIssue({ code: 'custom', path: ['type'], message: 'compliance "hipaa" requires type "instant" or "fast"' });
    }
    if (req.contents) refineHipaa(req.contents, ctx, ['contents']);
  }
}

export const SearchRequest = wireObject(SearchRequestShape, SEARCH_KEY_HINTS).superRefine(refineSearch);
export type SearchRequest = z.infer<typeof SearchRequest>;

/** One warning of an empty or degraded answer: a code of the one list (src/core/warnings.ts) and what to do. */
export const AnswerWarning = z.object({
  code: z.enum(WARNING_CODES).describe('What happened (docs/search.md "Warnings").'),
  message: z.string().describe('What happened, and what to do about it (a command or the settings to set).'),
});

/** Trawl's `warnings` of /search and /findSimilar: absent when the answer is whole. */
export const AnswerWarnings = z
  .array(AnswerWarning)
  .optional()
  .describe(
    'Trawl: present only when the answer is empty or poorer than it could be (nothing to search, no provider to ask, a provider failed, no model for a summary or answer, a page refused by policy).',
  );

export const SearchResponse = z
  .object({
    requestId: z.string(),
    results: z.array(SearchResult),
    output: z
      .object({ content: z.union([z.string(), z.record(z.string(), z.unknown())]), grounding: z.array(Grounding) })
      .optional()
      .describe('Synthesized output; present when outputSchema was given.'),
    costDollars: CostDollars,
    warnings: AnswerWarnings,
  })
  .loose();
export type SearchResponse = z.infer<typeof SearchResponse>;

/** One `data:` frame of a streamed /search. */
export const SearchStreamChunk = z.object({
  id: z.string().optional(),
  object: z.literal('chat.completion.chunk'),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.object({
      index: z.int(),
      delta: z.object({ role: z.string().optional(), content: z.string().optional() }),
      finish_reason: z.string().nullable(),
    }),
  ),
});
