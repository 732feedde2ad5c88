/** Search operations: /search and /findSimilar. */
import { searchBound, similarBound } from '../core/accounts/bounds.js';
import { defineOp } from './define-op.js';
import { renderResults } from './render.js';
import { SearchRequest, SearchResponse, SearchStreamChunk } from '../schemas/search.schema.js';
import { FindSimilarRequest, FindSimilarResponse } from '../schemas/find-similar.schema.js';
import { dynamicHighlightsRule } from './betas.js';
import { searchStreamFrames } from './search-stream.js';

/** The search tool's contents when the agent asks for none: short highlights on the query. */
const TOOL_CONTENTS = { highlights: { maxCharacters: 1000, dynamic: false }, livecrawlTimeout: 10000, subpages: 0 };

/** The answer first, then what backs each field: its sources and the confidence (docs/synthesis.md). */
function renderAnswer(output: NonNullable<SearchResponse['output']>): string {
  const content = typeof output.content === 'string' ? output.content : JSON.stringify(output.content, null, 2);
  const backing = output.grounding.map((g) => {
    const sources = g.citations.map((c) => `${c.title} <${c.url}>`).join('; ') || 'no source';
    return `- ${g.field} (${g.confidence}): ${sources}`;
  });
  return `Answer:\n${content}\n\nSources of the answer:\n${backing.join('\n')}\n\n`;
}

export const searchOp = defineOp({
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
  requestIdInBody: true,
  annotations: { readOnlyHint: true, openWorldHint: true },
  betas: [
    dynamicHighlightsRule(
      'contents.highlights.dynamic',
      (input: { contents?: { highlights?: unknown } }) => input.contents?.highlights,
    ),
  ],
  // an agent searching wants to see why each result matches: highlights unless it asked for other contents
  toolDefaults: (args) => (args.contents ? args : { ...args, contents: { ...TOOL_CONTENTS } }),
  render: (out) => (out.output ? renderAnswer(out.output) : '') + renderResults(out.results, `${out.results.length} results`), // prettier-ignore
  run: (services, input, ctx) => services.search.run(input, ctx),
  maxCost: searchBound,
  stream: {
    when: (input) => input.stream === true,
    frame: SearchStreamChunk,
    frames: (services, input, ctx) => searchStreamFrames(services.search.stream(input, ctx)),
  },
});

export const findSimilarOp = defineOp({
  name: 'findSimilar',
  tool: 'find_similar',
  title: 'Find similar pages',
  description: 'Find pages similar to a given URL (same topic, kind and audience). Optional contents as in search.',
  capability: 'search',
  route: { method: 'POST', path: '/findSimilar' },
  body: FindSimilarRequest,
  output: FindSimilarResponse,
  requestIdInBody: true,
  annotations: { readOnlyHint: true, openWorldHint: true },
  betas: [
    dynamicHighlightsRule(
      'contents.highlights.dynamic',
      (input: { contents?: { highlights?: unknown } }) => input.contents?.highlights,
    ),
  ],
  toolDefaults: (args) => (args.contents ? args : { ...args, contents: { ...TOOL_CONTENTS } }),
  render: (out) => renderResults(out.results, `${out.results.length} similar pages`),
  run: (services, input, ctx) => services.similar.run(input, ctx),
  maxCost: similarBound,
});
