/** Contents operation: /contents (MCP `get_contents`). */
import { z } from 'zod';
import { contentsBound } from '../core/accounts/bounds.js';
import { fetchPlanOf } from '../core/contents/fetch.plan.js';
import { defineOp, oncePerInput } from './define-op.js';
import { READS_INDEX, READS_WEB } from './families.js';
import type { Answer } from './reply.js';
import { resultBlock } from './render.js';
import { ContentsRequest, ContentsResponse } from '../schemas/contents.schema.js';
import { dynamicHighlightsRule } from './betas.js';
import { strings } from './tool-text.js';
import { notesOf, replyOf, withNotes, type ReplyNotes } from './reply-notes.js';

/** Hints per failure tag: what the agent can do about it (failureHint picks by the cause where one tag has two). */
const HINTS: Record<string, string> = {
  CRAWL_NOT_FOUND: 'the page does not exist; check the URL',
  CRAWL_TIMEOUT: 'the site is slow; retry later or raise livecrawlTimeout',
  CRAWL_LIVECRAWL_TIMEOUT: 'raise livecrawlTimeout (up to 90000 ms) or retry',
  SOURCE_NOT_AVAILABLE: 'the site failed or nothing is cached; retry later, or drop maxAgeHours: -1',
  UNSUPPORTED_URL: 'only public http(s) URLs can be read',
  CRAWL_PRIVATE_ADDRESS: 'the server refuses private-network addresses; its operator can allow them',
  CRAWL_ROBOTS_DISALLOWED: "the site's robots.txt forbids automated reading; open it in a browser instead",
  CRAWL_TOO_LARGE: 'the response is larger than this server reads',
  CRAWL_TOO_MANY_REDIRECTS: 'the URL redirects in a loop; use the final URL',
  CRAWL_UNSUPPORTED_CONTENT_TYPE: 'not a readable document (HTML, PDF, text, JSON, feed)',
  CRAWL_HTTP_ERROR: 'the site refused the request (e.g. login required)',
  CRAWL_NEEDS_BROWSER: 'the page needs JavaScript; the server has no browser configured',
  CRAWL_UNKNOWN_ERROR: 'the site or its certificate is at fault; the same request will fail again',
};

/**
 * Each page as a block (its text window said, and how to read on when `offset` paging is used), then
 * the failures with what to do about each.
 */
function contentsAnswer(out: ContentsResponse, input: Record<string, unknown>, notes: ReplyNotes): Answer {
  const offset = typeof input.offset === 'number' ? input.offset : 0;
  const blocks = out.results.map((r, i) => {
    const block = resultBlock(r, i);
    const total = notes.textLengths?.get(r.url);
    if (typeof r.text === 'string' && total !== undefined && offset + r.text.length < total) {
      const end = offset + r.text.length;
      const more = `[Text of [${i + 1}] is characters ${offset}-${end} of ${total}. Call get_contents again with offset: ${end} to read on.]`;
      block.after = block.after ? `${block.after}\n${more}` : more;
    }
    return block;
  });
  const { results: _results, ...rest } = out;
  const tail = [failures(out.statuses), degraded(out.statuses)].filter(Boolean).join('\n');
  return {
    head: `${out.results.length} of ${out.statuses.length} pages read`,
    blocks,
    ...(tail ? { tail } : {}),
    structured: rest,
    entriesKey: 'results',
  };
}

/** One line per failed target: its tag and status, the cause (the status `message`), what to do. */
/** A host name that did not resolve: a typo, or this server cannot resolve any name at all. */
const UNRESOLVED_HINT =
  'the host name did not resolve: check its spelling; if every site fails so, this server has no working DNS (offline, or behind a firewall)';

/**
 * What the agent can do about a failed page, from its cause: CRAWL_NOT_FOUND is the site's answer (HTTP
 * 404 or 410: the page does not exist) or a name that did not resolve (no HTTP status: the host may be
 * misspelled, or the server offline), and the two call for different actions.
 */
function failureHint(status: ContentsResponse['statuses'][number]): string | undefined {
  const tag = status.error?.tag ?? 'CRAWL_UNKNOWN_ERROR';
  if (tag === 'CRAWL_NOT_FOUND' && !status.error?.httpStatusCode) return UNRESOLVED_HINT;
  return HINTS[tag];
}

function failures(statuses: ContentsResponse['statuses']): string {
  const failed = statuses.filter((s) => s.status === 'error');
  if (failed.length === 0) return '';
  const lines = failed.map((s) => {
    const tag = s.error?.tag ?? 'CRAWL_UNKNOWN_ERROR';
    const http = s.error?.httpStatusCode ? ` (HTTP ${s.error.httpStatusCode})` : '';
    const why = s.message ? `: ${s.message}` : '';
    const hint = failureHint(s);
    return `- ${s.id}: ${tag}${http}${why}${hint ? ` — ${hint}` : ''}`;
  });
  return `Could not read ${failed.length} of ${statuses.length}:\n${lines.join('\n')}`;
}

/** Pages read but poorer than asked (a stale copy, failed subpages, an extractive summary), each note once. */
function degraded(statuses: ContentsResponse['statuses']): string {
  const pages = new Map<string, string[]>();
  for (const s of statuses)
    if (s.status === 'success' && s.message) pages.set(s.message, [...(pages.get(s.message) ?? []), s.id]);
  return pages.size ? `Notes:\n${[...pages].map(([note, ids]) => `- ${ids.join(', ')}: ${note}`).join('\n')}` : '';
}

/** The fetch plan of a request (freshness, options, targets), built once for its bound and its run. */
const planOf = oncePerInput(fetchPlanOf);

export const contentsOp = defineOp({
  ...READS_INDEX,
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
  annotations: READS_WEB,
  toolText: {
    title: 'Read pages',
    description: 'Read pages (urls, or ids from search) as clean Markdown, whole; long pages come in parts.',
    args: {
      urls: { ...strings(), maxItems: 100 },
      maxAgeHours: { type: 'integer', description: 'Oldest cached copy to accept; 0 fetches live.' },
    },
    fenced: true,
    paged: true,
    task: true,
  },
  betas: [dynamicHighlightsRule('highlights.dynamic', (input: { highlights?: unknown }) => input.highlights)],
  toolExtras: {
    offset: z
      .int()
      .min(0)
      .optional()
      .describe('Characters of each page text to skip: the `offset` a truncated answer names, to read on.'),
  },
  toolDefaults: (args) =>
    // an agent calling the tool wants to read: the whole text, which the door pages within its budget
    args.text || args.highlights || args.summary
      ? args
      : { ...args, text: { includeHtmlTags: false, verbosity: 'compact' as const } },
  render: (out, { input, notes }) => contentsAnswer(out, input, notes),
  uses: ['contents'],
  run: async (services, input, ctx) => {
    const reply = replyOf(await services.contents.run(planOf(input), ctx));
    return withNotes({ requestId: ctx.requestId, ...reply }, notesOf(reply));
  },
  maxCost: (input, pricing) => contentsBound(planOf(input), pricing),
});
