/** Contents operation: /contents (MCP `get_contents`). */
import { z } from 'zod';
import type { ResponseNotes } from '../core/context.js';
import { contentsBound } from '../core/accounts/bounds.js';
import { defineOp } from './define-op.js';
import { renderResult } from './render.js';
import { ContentsRequest, ContentsResponse } from '../schemas/contents.schema.js';
import { dynamicHighlightsRule } from './betas.js';

/** The MCP tool's text budget over all pages when the caller sets none (about 10k tokens). */
const TOOL_TEXT_BUDGET = 40000;
const TOOL_MIN_PER_PAGE = 2000;

/** Hints per failure tag: what the agent can do about it. */
const HINTS: Record<string, string> = {
  CRAWL_NOT_FOUND: 'the page does not exist; check the URL',
  CRAWL_TIMEOUT: 'the site is slow; retry later or raise livecrawlTimeout',
  CRAWL_LIVECRAWL_TIMEOUT: 'raise livecrawlTimeout (up to 90000 ms) or retry',
  SOURCE_NOT_AVAILABLE: 'the site failed or nothing is cached; retry later, or drop maxAgeHours: -1',
  UNSUPPORTED_URL: 'only public http(s) URLs can be read',
  CRAWL_PRIVATE_ADDRESS: 'the address is on a private network, which this server refuses',
  CRAWL_ROBOTS_DISALLOWED: "the site's robots.txt forbids automated reading; open it in a browser instead",
  CRAWL_TOO_LARGE: 'the response is larger than this server reads',
  CRAWL_TOO_MANY_REDIRECTS: 'the URL redirects in a loop; use the final URL',
  CRAWL_UNSUPPORTED_CONTENT_TYPE: 'not a readable document (HTML, PDF, text, JSON, feed)',
  CRAWL_HTTP_ERROR: 'the site refused the request (e.g. login required)',
  CRAWL_NEEDS_BROWSER: 'the page needs JavaScript; the server has no browser configured',
};

/** Text for the agent: each page with its text window and how to read on, then the failures. */
function renderContents(out: ContentsResponse, input: Record<string, unknown>, notes: ResponseNotes): string {
  const offset = typeof input.offset === 'number' ? input.offset : 0;
  const blocks = out.results.map((r, i) => {
    let block = renderResult({ ...r, text: undefined }, i);
    if (typeof r.text === 'string') {
      const total = notes.textLengths?.get(r.url) ?? offset + r.text.length;
      const end = offset + r.text.length;
      block += `\nText (characters ${offset}-${end} of ${total}):\n${r.text}`;
      if (end < total) block += `\n[Truncated. Call get_contents again with offset: ${end} to continue.]`;
    }
    if (r.subpages?.length) block += `\nSubpages: ${r.subpages.map((s) => s.url).join(', ')}`;
    return block;
  });
  const failed = out.statuses.filter((s) => s.status === 'error');
  if (failed.length) {
    const lines = failed.map((s) => {
      const tag = s.error?.tag ?? 'CRAWL_UNKNOWN_ERROR';
      const http = s.error?.httpStatusCode ? ` (HTTP ${s.error.httpStatusCode})` : '';
      return `- ${s.id}: ${tag}${http}${HINTS[tag] ? ` — ${HINTS[tag]}` : ''}`;
    });
    blocks.push(`Could not read ${failed.length} of ${out.statuses.length}:\n${lines.join('\n')}`);
  }
  const heading = `${out.results.length} of ${out.statuses.length} pages read`;
  return [heading, ...blocks].join('\n\n');
}

export const contentsOp = defineOp({
  name: 'contents',
  tool: 'get_contents',
  title: 'Get page contents',
  description:
    'Read URLs (or ids from a search) as clean Markdown text, with optional highlights, summaries, links and ' +
    'subpages. Serves from cache when fresh enough (`maxAgeHours`), otherwise crawls live. Long pages come in ' +
    'parts: the text says where it stopped; call again with `offset` to continue. Per-URL failures are listed ' +
    'in `statuses`, not raised as an error.',
  capability: 'contents',
  route: { method: 'POST', path: '/contents' },
  body: ContentsRequest,
  output: ContentsResponse,
  requestIdInBody: true,
  annotations: { readOnlyHint: true, openWorldHint: true },
  betas: [dynamicHighlightsRule('highlights.dynamic', (input: { highlights?: unknown }) => input.highlights)],
  toolExtras: {
    offset: z
      .int()
      .min(0)
      .optional()
      .describe('Characters of each page text to skip: the `offset` a truncated answer names, to read on.'),
  },
  toolDefaults: (args) => {
    if (args.text || args.highlights || args.summary) return args;
    // An agent calling the tool wants to read: text by default, sized so all pages fit one answer.
    const n = (args.urls ?? args.ids ?? []).length || 1;
    const maxCharacters = Math.min(10000, Math.max(TOOL_MIN_PER_PAGE, Math.floor(TOOL_TEXT_BUDGET / n)));
    return { ...args, text: { maxCharacters, includeHtmlTags: false, verbosity: 'compact' as const } };
  },
  render: (out, { input, notes }) => renderContents(out, input, notes),
  run: async (services, input, ctx) => ({ requestId: ctx.requestId, ...(await services.contents.run(input, ctx)) }),
  maxCost: (input, pricing) => contentsBound(input as Parameters<typeof contentsBound>[0], pricing),
});
