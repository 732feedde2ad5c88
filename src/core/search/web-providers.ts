/**
 * The web-search providers of a /search: each asked for the query (and the caller's additional and
 * planned queries) in parallel under the type's budget, a failing or slow one left out with a warning;
 * and, for the deep types, the best provider pages read live so they are indexed and rank by their text.
 */
import type { WebSearchHit, WebSearchProvider } from '../../providers/search/types.js';
import type { DocumentsRepo } from '../../store/contracts/documents.js';
import type { ServiceContext } from '../context.js';
import type { ContentsService } from '../contents/contents.service.js';
import { normalizeUrl } from '../contents/url.js';
import { PROVIDER_FILTER_FIELDS } from './filters.js';
import { fuse } from './pipelines.js';
import { addWait } from '../contents/admission.js';
import type { WaitTally } from './results.js';
import type { SearchPlan } from './search.plan.js';

/** What asking the providers needs: them, and the operator's cap on any call. */
export interface ProviderDeps {
  providers: WebSearchProvider[];
  providerTimeoutMs: number;
}

/** What reading provider pages needs: the store (to skip known pages) and the contents service. */
export interface ProviderPageDeps {
  documents: DocumentsRepo;
  contents: ContentsService;
}

/** Every provider's hits for every query of the plan (a failed call is an empty list), and who failed. */
export async function askProviders(
  deps: ProviderDeps,
  plan: SearchPlan,
  ctx: ServiceContext,
): Promise<{ hits: WebSearchHit[][]; failed: string[] }> {
  const failed: string[] = [];
  const { pipeline } = plan;
  const timeoutMs = Math.min(pipeline.providerBudgetMs, deps.providerTimeoutMs);
  const queries = [plan.query, ...(pipeline.additionalQueries ? plan.additionalQueries : [])];
  const pushedDown = Object.fromEntries(PROVIDER_FILTER_FIELDS.map((f) => [f, plan.filters[f]]));
  const calls = deps.providers.flatMap((p) =>
    queries.map(async (query) => {
      try {
        return await p.search(
          { query, numResults: plan.numResults, ...pushedDown, userLocation: plan.userLocation, timeoutMs },
          ctx.signal,
        );
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        failed.push(p.name);
        ctx.logger.warn(
          { provider: p.name, reason: (err as Error).message },
          'web search provider failed; answering without it',
        );
        return [];
      }
    }),
  );
  return { hits: await Promise.all(calls), failed };
}

/**
 * Deep types read the best provider pages live, so they are indexed and rank by their own text; the
 * admission queue's wait is added to `wait`.
 */
export async function readProviderPages(
  deps: ProviderPageDeps,
  lists: WebSearchHit[][],
  n: number,
  ctx: ServiceContext,
  wait?: WaitTally,
): Promise<void> {
  const urls = fuse(lists.map((l) => l.map((h) => h.url)))
    .slice(0, n)
    .map((f) => f.key);
  // stored already? one lookup of their heads, not a full row per page
  const known = await deps.documents.heads(urls.map((u) => normalizeUrl(u) ?? u));
  const unknown = urls.filter((u) => !known.has(normalizeUrl(u) ?? u));
  if (unknown.length === 0) return;
  const plan = { targets: unknown, freshness: { mode: 'fallback' } as const, timeoutMs: 10_000, subpages: 0 };
  try {
    const out = await deps.contents.run(plan, ctx);
    if (wait) wait.queue = addWait(wait.queue, out.facts.queue);
  } catch (err) {
    ctx.logger.warn({ err }, 'reading provider pages failed');
  }
}
