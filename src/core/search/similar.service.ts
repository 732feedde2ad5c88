/**
 * /findSimilar: pages like a given URL. The page is read (cache first), its distinctive terms become
 * the query, and the local index ranks the rest, without the page itself (and its site on request),
 * under the endpoint's filters; with an embeddings provider its nearest pages are fused in too.
 */
import { ServiceError } from '../../errors.js';
import { quotedUrl } from '../../lib/safe-text.js';
import { FetchError } from '../../fetch/types.js';
import type { DocumentsRepo } from '../../store/contracts/documents.js';
import { tenantOf, type ServiceContext } from '../context.js';
import type { ContentsService } from '../contents/contents.service.js';
import { fetchOptionsOf, type ContentsRequest } from '../contents/fetch.plan.js';
import { mainText } from '../contents/render.js';
import { normalizeUrl } from '../contents/url.js';
import { analyze, type AnalyzedQuery } from './analyzer.js';
import { createRequestFilter, filtersOf, type RequestFilters } from './filters.js';
import { hostOf } from './index-entry.js';
import { idf } from './ranking/scored-postings.js';
import { fuse } from './pipelines.js';
import { similarCost, type Prices } from '../pricing.js';
import { buildResults, type ResultObject, type WaitTally } from './results.js';
import type { SearchIndex } from './search-index.js';
import type { SemanticSearch } from './semantic.js';
import { warning } from '../warnings.js';

/** Terms of the page that make the query. */
const QUERY_TERMS = 25;
/** Title terms count this many times their frequency. */
const TITLE_BOOST = 3;
/** Candidates ranked before the source page and its site are left out. */
const DEPTH = 200;

/** A /findSimilar request as the service reads it: the page, and the filters of /search but `category`. */
export interface SimilarInput extends Omit<RequestFilters, 'category'> {
  url: string;
  numResults: number;
  excludeSourceDomain?: boolean;
  contents?: ContentsRequest;
  context?: boolean | { maxCharacters?: number } | null;
  filterEmptyResults?: boolean;
}

export interface SimilarDeps {
  index: SearchIndex;
  documents: DocumentsRepo;
  contents: ContentsService;
  semantic?: SemanticSearch;
  providerTimeoutMs: number;
  /** The price table (src/core/pricing.ts). */
  prices: Prices;
}

export interface SimilarOutput {
  [key: string]: unknown;
  requestId: string;
  results: ResultObject[];
  costDollars: ReturnType<typeof similarCost>;
  context?: string;
  /** Not on the wire: the admission queue's wait of the results' contents. */
  facts: WaitTally;
}

export interface SimilarService {
  run(input: SimilarInput, ctx: ServiceContext): Promise<SimilarOutput>;
}

/**
 * The page's distinctive terms (tf × idf, title terms boosted) as a weighted query. Only terms other
 * documents have count (`selfDf`: 1 when the source page is itself indexed): the others match nothing.
 */
export function pageQuery(index: SearchIndex, title: string, text: string, selfDf = 0): AnalyzedQuery {
  const counts = new Map<string, number>();
  for (const { term } of analyze(title).postings) counts.set(term, (counts.get(term) ?? 0) + TITLE_BOOST);
  for (const { term } of analyze(text.slice(0, 20_000)).postings) counts.set(term, (counts.get(term) ?? 0) + 1);
  const n = Math.max(index.count(), 1);
  const scored = [...counts]
    .filter(([term]) => term.length > 1 && !/^\d+$/.test(term))
    .map(([term, tf]) => ({ term, tf, df: index.docFrequency(term) - selfDf }))
    .filter((t) => t.df > 0)
    .map(({ term, tf, df }) => ({ term, score: Math.log(1 + tf) * idf(n, df) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, QUERY_TERMS);
  const top = scored[0]?.score ?? 1;
  return { terms: new Map(scored.map((s) => [s.term, s.score / top])), sequence: [] };
}

export function createSimilarService(deps: SimilarDeps): SimilarService {
  return {
    async run(input, ctx) {
      const source = await readSource(deps, input.url, ctx);
      const sourceKeys = new Set([input.url, source.url].map((u) => normalizeUrl(u) ?? u));
      const indexed = deps.index.ids([...sourceKeys]).size > 0 ? 1 : 0;
      const query = pageQuery(deps.index, source.title, source.text, indexed);
      const sourceHost = hostOf(source.url);
      const filter = createRequestFilter(deps.index, filtersOf(input));
      const accept = (id: number) => {
        const facts = deps.index.table.facts(id);
        if (input.excludeSourceDomain && (facts.host === sourceHost || facts.host.endsWith(`.${sourceHost}`))) {
          return false;
        }
        const url = () => deps.index.urls([id]).get(id) ?? '';
        const key = url();
        if (sourceKeys.has(normalizeUrl(key) ?? key)) return false;
        return filter.doc(id, facts, url);
      };
      const lists = [deps.index.searchAnalyzed(query, { limit: DEPTH, accept, proximity: false }).map((h) => h.id)];
      if (deps.semantic) lists.push((await nearest(deps, `${source.title}\n${source.text}`, ctx)).filter(accept));
      const ids = fuse(lists.map((l) => l.map(String)))
        .map((f) => Number(f.key))
        .slice(0, input.numResults);
      const urls = deps.index.urls(ids);
      const candidates = ids.flatMap((id) => (urls.has(id) ? [{ url: urls.get(id)!, docId: id }] : []));
      const spent = { dollars: 0 }; // model-written summaries
      const wanted = { ...input, query: source.title, contents: input.contents && fetchOptionsOf(input.contents) };
      const facts: WaitTally = {};
      const results = await buildResults(deps, candidates, wanted, ctx, spent, facts);
      const out: SimilarOutput = {
        requestId: ctx.requestId,
        results,
        costDollars: similarCost(deps.prices, results.length, input.contents, spent.dollars),
        facts,
      };
      // nothing else in the index to compare with: nothing was searched, so nothing is charged
      if (results.length === 0 && deps.index.count() <= indexed) {
        out.costDollars = nothingCharged(out.costDollars);
        ctx.onWarning?.(warning('NOTHING_TO_COMPARE'));
      }
      if (input.context) out.context = contextOf(results, input.context);
      return out;
    },
  };
}

type PolicyTag = 'CRAWL_PRIVATE_ADDRESS' | 'CRAWL_ROBOTS_DISALLOWED';
/** Fetch failures that are a policy's refusal (answered 403 with the same tag), not the site's failure. */
const POLICY_REFUSALS: ReadonlySet<string> = new Set<PolicyTag>(['CRAWL_PRIVATE_ADDRESS', 'CRAWL_ROBOTS_DISALLOWED']);

/**
 * The source page: the stored or cached copy, else a live fetch; unreadable → `FETCH_DOCUMENT_ERROR` (400).
 * A URL of another scheme is read from the index only (see `readIndexed`).
 */
async function readSource(deps: SimilarDeps, url: string, ctx: ServiceContext) {
  if (!/^https?:/i.test(url)) return await readIndexed(deps, url);
  try {
    const loaded = await deps.contents.load(
      url,
      { mode: 'fallback' },
      {
        timeoutMs: 10000,
        signal: ctx.signal,
        tenant: tenantOf(ctx),
        queue: { queued: false, waitedMs: 0 },
        logger: ctx.logger,
      },
    );
    return { url: loaded.page.url, title: loaded.page.title, text: mainText(loaded.page) };
  } catch (err) {
    if (err instanceof FetchError && POLICY_REFUSALS.has(err.tag)) {
      // the server's policy, not the site, refused the URL: the caller's 4xx, tagged as /contents tags it
      throw new ServiceError(err.tag as PolicyTag, `url: ${err.message}`, { field: 'url' });
    }
    if (err instanceof FetchError && err.tag === 'UNSUPPORTED_URL') {
      // a URL Trawl never fetches (credentials in it, a port of another protocol): the caller's to change
      throw new ServiceError('INVALID_REQUEST_BODY', `url: ${err.message}`, { field: 'url' });
    }
    if (err instanceof FetchError) {
      // the caller's 400: the page it named cannot be read (the fetch messages are in safe words)
      const why = `url: ${quotedUrl(url)} could not be read to find pages like it: ${err.tag} (${err.message})`;
      throw new ServiceError('FETCH_DOCUMENT_ERROR', why, { field: 'url' });
    }
    throw err;
  }
}

/**
 * A source URL that is not http(s) (an imported record's `import://…`) names a document of the index or
 * nothing: it is read from the document store and never fetched, so no scheme opens a new way out.
 */
async function readIndexed(deps: SimilarDeps, url: string) {
  const doc = await deps.documents.get(url);
  if (!doc) {
    throw new ServiceError(
      'INVALID_REQUEST_BODY',
      `url: ${url} is not a document of the index, and only http(s) URLs are fetched; give an http(s) URL or the URL of an indexed document as search returns it (e.g. import://collection/id)`,
      { field: 'url' },
    );
  }
  return { url: doc.url, title: doc.title, text: doc.text };
}

/** A cost object with every figure 0 (the price lists kept): a findSimilar that had nothing to search. */
function nothingCharged(cost: SimilarOutput['costDollars']): SimilarOutput['costDollars'] {
  const breakdown = { neuralSearch: 0, deepSearch: 0, contentText: 0, contentHighlight: 0, contentSummary: 0 };
  return { ...cost, total: 0, breakDown: [{ search: 0, contents: 0, breakdown }] };
}

async function nearest(deps: SimilarDeps, text: string, ctx: ServiceContext): Promise<number[]> {
  try {
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(deps.providerTimeoutMs)]);
    return await deps.semantic!.nearest(text.slice(0, 4000), DEPTH, signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.logger.warn({ reason: (err as Error).message }, 'semantic find-similar failed; lexical only');
    return [];
  }
}

function contextOf(results: Record<string, unknown>[], option: boolean | { maxCharacters?: number }): string {
  const max = typeof option === 'object' && option.maxCharacters ? option.maxCharacters : 10000;
  return results
    .map((r) => `Title: ${String(r.title)}\nURL: ${String(r.url)}\n${typeof r.text === 'string' ? r.text : ''}`.trim())
    .join('\n\n')
    .slice(0, max);
}
