/**
 * The web-search providers of a /search: each asked for the query (and the caller's additional and
 * planned queries) in parallel under the type's budget, a failing or slow one left out with a warning;
 * and, for the deep types, the best provider pages read live so they are indexed and rank by their text.
 */
import type { WebSearchHit } from '../../providers/search/types.js';
import type { ServiceContext } from '../context.js';
import { normalizeUrl } from '../contents/url.js';
import { fuse, type Pipeline } from './pipelines.js';
import type { SearchDeps, SearchInput } from './search.service.js';

/** Every provider's hits for every query of the request; a failed call is an empty list. */
export async function askProviders(
  deps: SearchDeps,
  input: SearchInput,
  pipeline: Pipeline,
  ctx: ServiceContext,
): Promise<WebSearchHit[][]> {
  const timeoutMs = Math.min(pipeline.providerBudgetMs, deps.providerTimeoutMs);
  const queries = [input.query, ...(pipeline.additionalQueries ? (input.additionalQueries ?? []) : [])];
  const calls = deps.providers.flatMap((p) =>
    queries.map(async (query) => {
      try {
        return await p.search(
          {
            query,
            numResults: input.numResults,
            includeDomains: input.includeDomains,
            excludeDomains: input.excludeDomains,
            startPublishedDate: input.startPublishedDate,
            endPublishedDate: input.endPublishedDate,
            userLocation: input.userLocation,
            category: input.category,
            timeoutMs,
          },
          ctx.signal,
        );
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        if (ctx.notes) (ctx.notes.providerFailures ??= []).push(p.name);
        ctx.logger.warn(
          { provider: p.name, reason: (err as Error).message },
          'web search provider failed; answering without it',
        );
        return [];
      }
    }),
  );
  return Promise.all(calls);
}

/** Deep types read the best provider pages live, so they are indexed and rank by their own text. */
export async function readProviderPages(deps: SearchDeps, lists: WebSearchHit[][], n: number, ctx: ServiceContext) {
  const urls = fuse(lists.map((l) => l.map((h) => h.url)))
    .slice(0, n)
    .map((f) => f.key);
  // stored already? one lookup of their heads, not a full row per page
  const known = deps.documents.heads(urls.map((u) => normalizeUrl(u) ?? u));
  const unknown = urls.filter((u) => !known.has(normalizeUrl(u) ?? u));
  if (unknown.length === 0) return;
  await deps.contents.run({ urls: unknown, livecrawlTimeout: 10000, subpages: 0 }, ctx).catch((err: unknown) => {
    ctx.logger.warn({ err }, 'reading provider pages failed');
  });
}
