/** Contents operation: /contents (MCP `get_contents`). */
import { defineOp, notBuilt } from './define-op.js';
import { renderResults } from './render.js';
import { ContentsRequest, ContentsResponse } from '../schemas/contents.schema.js';
import { dynamicHighlightsRule } from './betas.js';

export const contentsOp = defineOp({
  name: 'contents',
  tool: 'get_contents',
  title: 'Get page contents',
  description:
    'Fetch clean text, highlights, summaries, links and subpages for URLs (or ids from a search). ' +
    'Serves from cache when fresh enough (`maxAgeHours`), otherwise crawls live. Per-URL failures are ' +
    'reported in `statuses`, not as an error.',
  capability: 'contents',
  route: { method: 'POST', path: '/contents' },
  body: ContentsRequest,
  output: ContentsResponse,
  requestIdInBody: true,
  annotations: { readOnlyHint: true, openWorldHint: true },
  betas: [dynamicHighlightsRule('highlights.dynamic', (input: { highlights?: unknown }) => input.highlights)],
  render: (out) => {
    const failed = out.statuses.filter((s) => s.status === 'error');
    const tail = failed.length
      ? `\n\nFailed: ${failed.map((s) => `${s.id} (${s.error?.tag ?? 'error'})`).join(', ')}`
      : '';
    return renderResults(out.results, `${out.results.length} pages`) + tail;
  },
  run: notBuilt('contents'),
});
