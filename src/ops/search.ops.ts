/** Search operations: /search and /findSimilar. */
import { searchBound, similarBound } from '../core/accounts/bounds.js';
import { searchPlanOf } from '../core/search/search.plan.js';
import { defineOp, oncePerInput } from './define-op.js';
import { READS_INDEX, READS_WEB } from './families.js';
import type { Answer } from './reply.js';
import { resultsAnswer } from './render.js';
import { SearchRequest, SearchResponse, SearchStreamChunk } from '../schemas/search.schema.js';
import { FindSimilarRequest, FindSimilarResponse } from '../schemas/find-similar.schema.js';
import { dynamicHighlightsRule } from './betas.js';
import { replyOf } from './reply-notes.js';
import { searchStreamFrames } from './search-stream.js';
import { CONTENTS_ARG, int, str, strings } from './tool-text.js';

/**
 * The search tool's contents when the agent asks for none: the start of each page's text, enough to
 * judge and often to answer (ten results fit the default answer budget); get_contents reads on.
 */
const TOOL_CONTENTS = {
  text: { maxCharacters: 1500, includeHtmlTags: false, verbosity: 'compact' as const },
  livecrawlTimeout: 10000,
  subpages: 0,
};

/**
 * What both search operations share about each result's `contents`: dynamic highlights are a beta, and
 * an agent searching wants to read what each result says (TOOL_CONTENTS unless it asked for other contents).
 */
const RESULT_CONTENTS = {
  betas: [
    dynamicHighlightsRule(
      'contents.highlights.dynamic',
      (input: { contents?: { highlights?: unknown } }) => input.contents?.highlights,
    ),
  ],
  toolDefaults: <A extends { contents?: unknown }>(args: A) =>
    args.contents ? args : { ...args, contents: { ...TOOL_CONTENTS } },
};

/** The plan of a request, built once per validated input (its price bound and its run share it). */
const planOf = oncePerInput(searchPlanOf);

/**
 * Results (and the synthesized answer first, with what backs each field: sources and confidence,
 * docs/synthesis.md). The answer is a model's words: an untrusted block like the pages.
 */
function searchAnswer(out: SearchResponse | FindSimilarResponse, heading: string): Answer {
  // `context` (deprecated) repeats the results' texts: the blocks carry them
  const { results, output, context: _context, ...rest } = out as SearchResponse & { context?: string };
  const answer = resultsAnswer(results, heading, rest);
  if (output) {
    const content = typeof output.content === 'string' ? output.content : JSON.stringify(output.content, null, 2);
    const backing = output.grounding.map((g) => {
      const sources = g.citations.map((c) => `${c.title} <${c.url}>`).join('; ') || 'no source';
      return `- ${g.field} (${g.confidence}): ${sources}`;
    });
    const text = `${content}\n\nSources of the answer:\n${backing.join('\n')}`;
    answer.blocks.unshift({ label: 'Answer:', source: 'model', content: text });
  }
  return answer;
}

export const searchOp = defineOp({
  ...READS_INDEX,
  name: 'search',
  tool: 'search',
  title: 'Web search',
  description:
    'Search the web (and the local index) with a natural-language query. Returns ranked results with ' +
    'optional page text, highlights and summaries (`contents`), and a synthesized answer with citations ' +
    'when `outputSchema` is given. Prefer `type: "fast"` for quick lookups, `"deep"` for research.',
  capability: 'search',
  route: { method: 'POST', path: '/search' },
  body: SearchRequest,
  output: SearchResponse,
  annotations: READS_WEB,
  toolText: {
    title: 'Web search',
    description: 'Search the web and the local index. Returns ranked results with page text.',
    args: {
      query: str(),
      numResults: int(1, 100),
      type: { enum: ['auto', 'fast', 'instant', 'deep-lite', 'deep', 'deep-reasoning'], description: 'fast for lookups, deep for research.' }, // prettier-ignore
      includeDomains: strings(),
      excludeDomains: strings(),
      startPublishedDate: str('ISO 8601 date.'),
      contents: CONTENTS_ARG,
    },
    required: ['query'],
    fenced: true,
    paged: true,
    task: true,
  },
  ...RESULT_CONTENTS,
  render: (out) => searchAnswer(out, `${out.results.length} results`),
  uses: ['search'],
  run: async (services, input, ctx) => replyOf(await services.search.run(planOf(input), ctx)),
  maxCost: (input, pricing) => searchBound(planOf(input), pricing),
  stream: {
    when: (input) => input.stream === true,
    frame: SearchStreamChunk,
    frames: (services, input, ctx) => searchStreamFrames(services.search.stream(planOf(input), ctx)),
  },
});

export const findSimilarOp = defineOp({
  ...READS_INDEX,
  name: 'findSimilar',
  tool: 'find_similar',
  title: 'Find similar pages',
  description: 'Find pages similar to a given URL (same topic, kind and audience). Optional contents as in search.',
  capability: 'search',
  route: { method: 'POST', path: '/findSimilar' },
  body: FindSimilarRequest,
  output: FindSimilarResponse,
  annotations: READS_WEB,
  toolText: {
    title: 'Find similar pages',
    description: 'Pages like a given URL (same topic, kind, audience).',
    args: { url: str(), numResults: int(1, 100), includeDomains: strings(), excludeDomains: strings(), contents: CONTENTS_ARG }, // prettier-ignore
    required: ['url'],
    fenced: true,
    paged: true,
  },
  ...RESULT_CONTENTS,
  render: (out) => searchAnswer(out, `${out.results.length} similar pages`),
  uses: ['similar'],
  run: async (services, input, ctx) => replyOf(await services.similar.run(input, ctx)),
  maxCost: similarBound,
});
