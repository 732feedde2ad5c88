/** Code context operation: /context (MCP `get_code_context`). */
import { contextBound } from '../core/accounts/bounds.js';
import { plainAnswer } from './reply.js';
import { defineOp } from './define-op.js';
import { READS_INDEX, READS_WEB } from './families.js';
import { str } from './tool-text.js';
import { ContextRequest, ContextResponse } from '../schemas/context.schema.js';

export const contextOp = defineOp({
  ...READS_INDEX,
  name: 'context',
  tool: 'get_code_context',
  title: 'Get code context',
  description:
    'Code snippets and examples for a programming question, from open-source repositories, docs and ' +
    'Q&A posts, as one formatted string within a token budget (`tokensNum`). Use it before writing code ' +
    'against an unfamiliar library or API.',
  capability: 'context',
  route: { method: 'POST', path: '/context' },
  body: ContextRequest,
  output: ContextResponse,
  annotations: READS_WEB,
  toolText: {
    title: 'Code context',
    description: 'Code examples for a programming question from indexed repositories, packages and docs.',
    args: { query: str(), tokensNum: { type: ['string', 'integer'], description: '"dynamic" (default) or 50-100000.' } }, // prettier-ignore
    required: ['query'],
    fenced: true,
    paged: true,
  },
  // each snippet's header in the response names its location: `sources` would say it twice (docs/mcp.md)
  render: ({ response, sources: _sources, ...rest }) =>
    response
      ? {
          head: `Code context (${rest.resultsCount} snippets):`,
          blocks: [{ label: '', source: 'code index', content: response }],
          structured: rest,
        }
      : plainAnswer(
          'No code context found: the code index has nothing matching. Index code with `trawl index PATH` (docs/code-context.md).',
          rest,
        ),
  uses: ['context'],
  run: (services, input, ctx) => services.context.run(input, ctx),
  maxCost: contextBound,
});
