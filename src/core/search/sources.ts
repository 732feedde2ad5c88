/**
 * What synthesis reads of a search: the first results as numbered sources, each with query-focused
 * highlights from the contents pipeline (never whole pages: a 10-source answer sends about 2,850 prompt
 * tokens), and the answer shape a request's `outputSchema` asks for.
 */
import type { ServiceContext } from '../context.js';
import type { ContentsService } from '../contents/contents.service.js';
import { DEFAULT_TIMEOUT_MS } from '../contents/fetch.plan.js';
import type { Freshness } from '../contents/freshness.js';
import type { Source } from '../synthesis/grounding.js';
import type { AnswerShape } from '../synthesis/prompt.js';
import { addWait } from '../contents/admission.js';
import type { ResultObject, WaitTally } from './results.js';

/** Results an answer is written from at most. */
export const MAX_SOURCES = 10;
/** Characters of highlights read per source. */
export const EVIDENCE_CHARACTERS = 1200;

/** The answer shape of `outputSchema` (plain text when none is given, as for `stream` alone). */
export function answerShape(outputSchema: unknown): AnswerShape {
  const schema = (outputSchema ?? { type: 'text' }) as AnswerShape;
  return schema.type === 'object' ? schema : { type: 'text', description: schema.description };
}

/**
 * The first `MAX_SOURCES` results as sources, their evidence read by `freshness` (`cache-only` when the
 * pages were just found, so they are stored); a page whose contents fail is still a source, by its title.
 * The admission queue's wait is added to `wait`.
 */
export async function sourcesOf(
  contents: ContentsService,
  results: readonly ResultObject[],
  query: string,
  freshness: Freshness,
  ctx: ServiceContext,
  wait?: WaitTally,
): Promise<Source[]> {
  const top = results.slice(0, MAX_SOURCES);
  if (top.length === 0) return [];
  const evidence = new Map<string, string>();
  try {
    const out = await contents.run(
      {
        targets: top.map((r) => r.url),
        highlights: { query, maxCharacters: EVIDENCE_CHARACTERS },
        freshness,
        timeoutMs: DEFAULT_TIMEOUT_MS,
        subpages: 0,
        searchQuery: query,
        filterEmptyResults: false,
      },
      ctx,
    );
    if (wait) wait.queue = addWait(wait.queue, out.facts.queue);
    for (const r of out.results) {
      const highlights = (r as { highlights?: unknown }).highlights;
      if (Array.isArray(highlights)) evidence.set(r.url, highlights.map(String).join('\n…\n'));
    }
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.logger.warn({ err }, 'reading the sources of an answer failed; answering from titles');
  }
  return top.map((r, i) => ({
    n: i + 1,
    url: r.url,
    title: r.title,
    publishedDate: typeof r.publishedDate === 'string' ? r.publishedDate : null,
    evidence: evidence.get(r.url) ?? '',
  }));
}
