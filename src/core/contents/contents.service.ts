/**
 * /contents: for each requested URL or id, a page from the cache or a live fetch (by the freshness
 * policy), turned into a result with the asked-for contents; one status per target, failures per URL
 * never fail the request. Live fetches pass the admission queue; summaries are model-written when a
 * model is available for the call (model-summary.ts), else extractive.
 */
import { isStoreUnreachable, ServiceError, StoreUnavailableError, toServiceError } from '../../errors.js';
import { FetchError } from '../../fetch/types.js';
import { quotedUrl } from '../../lib/safe-text.js';
import type { Embedder } from '../../providers/embeddings.js';
import type { ChatModel } from '../../providers/model/types.js';
import type { CacheStore } from '../../store/contracts/cache.js';
import type { DocumentsRepo } from '../../store/contracts/documents.js';

import type { Prices } from '../pricing.js';
import { tenantOf, type Clock, type ServiceContext } from '../context.js';
import { chooseModel } from '../synthesis/model-choice.js';
import type { ModelPrice } from '../synthesis/pricing.js';
import type { AdmissionQueue, QueueWait } from './admission.js';
import { createLoader, type LiveLoad } from './load.js';
import type { FetchPlan } from './fetch.plan.js';
import type { Freshness } from './freshness.js';
import { startSummaries, type SummaryRun } from './model-summary.js';
import type { LoadedPage, PagesService } from './pages.service.js';
import { renderText } from './render.js';
import { pickSubpages } from './subpages.js';
import { isEmptyResult, toResult, type BuiltResult, type ResultContext } from './to-result.js';
import { normalizeUrl } from './url.js';
import { warning } from '../warnings.js';

/** Per-URL failures that are a policy's refusal, not the site's failure: a user should hear of them. */
const REFUSALS: ReadonlySet<string> = new Set(['CRAWL_PRIVATE_ADDRESS', 'CRAWL_ROBOTS_DISALLOWED']);

export interface ContentStatus {
  id: string;
  status: 'success' | 'error';
  source?: 'cached' | 'crawled';
  error?: { tag: string; httpStatusCode: number | null };
  /** Beside `error` (never in it): the cause in words; on a success, how the page is poorer than asked. */
  message?: string;
}

export interface ContentsOutput {
  results: BuiltResult['result'][];
  context?: string;
  statuses: ContentStatus[];
  costDollars: { total: number };
  searchTime: number;
  /** Not on the wire: what the doors say beside the body (headers, reading hints). */
  facts: ContentsFacts;
}

/** Facts of a contents call that its wire body does not carry. */
export interface ContentsFacts {
  /** The admission queue's wait over the call's live fetches (`x-svc-queued`, `x-svc-queue-ms`). */
  queue: QueueWait;
  /** Full text length per result URL before `offset` and `maxCharacters` (for reading long pages in parts). */
  textLengths: Map<string, number>;
}

export interface ContentsService {
  /** The plan's targets read, one status each; per-target failures are statuses, never a throw. */
  run(plan: FetchPlan, ctx: ServiceContext): Promise<ContentsOutput>;
  /** One page by the freshness policy (shared with search): a LoadedPage or a per-URL failure. */
  load(target: string, freshness: Freshness, live: LiveLoad): Promise<LoadedPage>;
}

export interface ContentsDeps {
  pages: PagesService;
  documents: DocumentsRepo;
  admission: AdmissionQueue;
  clock: Clock;
  /** The price table (src/core/pricing.ts): each page costs `contentsPage`. */
  prices: Prices;
  embedder?: Embedder;
  /** Model-written summaries: the operator's model, chosen and priced as synthesis does; the cache keeps them. */
  summaries?: SummaryModels;
}

export interface SummaryModels {
  cache: CacheStore;
  /** The operator's model (`TRAWL_MODEL_*`), if one is configured. */
  model?: ChatModel;
  /** `TRAWL_MODEL_PREFER=client`: the calling MCP client's model first. */
  preferClientModel?: boolean;
  /** Configured token prices (dollars per million). */
  price?: Partial<ModelPrice>;
}

const CONTEXT_DEFAULT_CHARS = 10000;

export function createContentsService(deps: ContentsDeps): ContentsService {
  const load = createLoader(deps);

  return {
    load,
    async run(input, ctx) {
      const started = performance.now();
      const summaries = summariesFor(deps.summaries, input, ctx);
      const { freshness, targets } = input;
      const opts: LiveLoad = {
        timeoutMs: input.timeoutMs,
        signal: ctx.signal,
        tenant: tenantOf(ctx),
        queue: { queued: false, waitedMs: 0 },
        logger: ctx.logger,
      };
      const rctx: ResultContext = {
        query: input.searchQuery,
        embedder: deps.embedder,
        signal: ctx.signal,
        onEmbedderError: (err: unknown) => ctx.logger.warn({ err }, 'embeddings failed; lexical highlight scores used'),
        summarize: summaries?.summarize,
      };
      const memo = new Map<string, Promise<LoadedPage>>();
      const once = (target: string) => {
        const key = normalizeUrl(target) ?? target;
        let p = memo.get(key);
        if (!p) memo.set(key, (p = load(target, freshness, opts)));
        return p;
      };
      const outcomes = await Promise.all(targets.map((t) => settle(once(t), t, ctx)));
      const built = await Promise.all(
        outcomes.map(({ loaded }) => loaded && buildResult(loaded, input, rctx, (url) => settle(once(url), url, ctx))),
      );
      const extractive = !summaries && Boolean(input.summary);
      outcomes.forEach((o, i) => noteDegraded(o.status, o.loaded, built[i], extractive));
      const kept = built.filter((b) => b !== undefined && !b.dropped) as NonNullable<(typeof built)[number]>[];
      const results = kept.map((b) => b.main.result);
      const pages = kept.reduce((n, b) => n + 1 + b.subpages, 0);
      const textLengths = new Map<string, number>();
      for (const b of built)
        if (b?.main.textLength !== undefined) textLengths.set(b.main.result.url, b.main.textLength);
      const summaryDollars = summaries?.finish() ?? 0;
      if (input.spent) input.spent.dollars += summaryDollars;
      const output: ContentsOutput = {
        results,
        statuses: outcomes.map((o) => o.status),
        costDollars: { total: round(pages * deps.prices.contentsPage + summaryDollars) },
        searchTime: round(performance.now() - started),
        facts: { queue: opts.queue, textLengths },
      };
      if (input.context) {
        const parts = kept.map((b) => contextPart(b.main.result, b.loaded));
        output.context = parts.join('\n\n').slice(0, contextLimit(input));
      }
      return output;
    },
  };
}

/**
 * The request's model-written summaries, when summaries are asked for and a model is available for the
 * call (the operator's or the MCP client's, by the synthesis rule); undefined means extractive ones.
 * @throws ServiceError `FEATURE_DISABLED` for `summary.schema` without a model, before any fetch.
 */
function summariesFor(
  models: SummaryModels | undefined,
  input: FetchPlan,
  ctx: ServiceContext,
): SummaryRun | undefined {
  if (!input.summary) return undefined;
  const choice = { operator: models?.model, client: ctx.clientModel, preferClient: models?.preferClientModel };
  const model = chooseModel(choice, ctx);
  if (models && model) return startSummaries(model, { cache: models.cache, price: models.price }, ctx);
  if (typeof input.summary === 'object' && input.summary.schema) {
    throw new ServiceError(
      'FEATURE_DISABLED',
      'summary.schema needs a language model and none is available: set TRAWL_MODEL_BASE_URL and TRAWL_MODEL (and TRAWL_MODEL_API_KEY if the server needs one), or call through an MCP client that supports sampling. Without a model, send summary without a schema for an extractive summary.',
      { field: 'summary.schema' },
    );
  }
  ctx.onWarning?.(warning('MODEL_MISSING'));
  return undefined;
}

/** One page's result with its subpages (same options) and those that failed, or marked dropped by `filterEmptyResults`. */
async function buildResult(
  loaded: LoadedPage,
  input: FetchPlan,
  rctx: ResultContext,
  loadSubpage: (url: string) => Promise<{ status: ContentStatus; loaded?: LoadedPage }>,
): Promise<Built> {
  const main = await toResult(loaded, input, { ...rctx, textOffset: input.offset });
  const alone = { main, loaded, subpages: 0, failedSubpages: [], summaryFailed: main.summaryFailed };
  if (input.filterEmptyResults && isEmptyResult(main.result, input)) return { ...alone, dropped: true };
  if (input.subpages === 0) return { ...alone, dropped: false };
  const links = pickSubpages(loaded.page, input.subpages, input.subpageTarget);
  const subs = await Promise.all(links.map(loadSubpage));
  const subResults = await Promise.all(subs.flatMap((s) => (s.loaded ? [toResult(s.loaded, input, rctx)] : [])));
  main.result.subpages = subResults.map((b) => b.result);
  const failedSubpages = subs.flatMap((s) => (s.loaded ? [] : [s.status]));
  const summaryFailed = main.summaryFailed ?? subResults.find((b) => b.summaryFailed)?.summaryFailed;
  return { main, loaded, dropped: false, subpages: subResults.length, failedSubpages, summaryFailed };
}

/** One page's result as built: with its subpages, those that failed, and a summary that could not be written. */
interface Built {
  main: BuiltResult;
  loaded: LoadedPage;
  dropped: boolean;
  subpages: number;
  failedSubpages: ContentStatus[];
  /** Why a summary asked for (of the page or a subpage) could not be written. */
  summaryFailed?: string;
}

/** Subpage failures named in a status message at most; the rest are counted. */
const NAMED_SUBPAGE_FAILURES = 3;

const EXTRACTIVE_SUMMARY =
  'The summary is extractive (sentences picked from the page): no language model is available for this call; ' +
  'configure TRAWL_MODEL_BASE_URL and TRAWL_MODEL for written summaries.';

/**
 * A page read, but poorer than asked, says how in its status `message` (the spec allows no top-level
 * field for it): a cached copy served because the live fetch failed, subpages that failed (the page
 * chose their URLs: named as normalised, quoted), a summary the model could not write, an extractive
 * summary for want of a model.
 */
function noteDegraded(
  status: ContentStatus,
  loaded: LoadedPage | undefined,
  built: Pick<Built, 'failedSubpages' | 'summaryFailed'> | undefined,
  extractiveSummary: boolean,
): void {
  if (status.status !== 'success') return;
  const notes: string[] = loaded?.note ? [loaded.note] : [];
  const failedSubpages = built?.failedSubpages ?? [];
  if (failedSubpages.length > 0) {
    const named = failedSubpages
      .slice(0, NAMED_SUBPAGE_FAILURES)
      .map((s) => `${quotedUrl(s.id)}: ${s.message ?? s.error?.tag}`);
    const more = failedSubpages.length - named.length;
    notes.push(
      `${failedSubpages.length} subpage(s) could not be read: ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`,
    );
  }
  if (built?.summaryFailed) notes.push(`The summary could not be written: ${built.summaryFailed}.`);
  if (extractiveSummary) notes.push(EXTRACTIVE_SUMMARY);
  if (notes.length > 0) status.message = notes.join(' ');
}

/** The message of a page that failed past the fetch: the cause is logged, not answered (it may be internal). */
const UNREADABLE = 'The page was fetched but could not be read (the server log has the cause for this requestId).';

/**
 * A load's outcome as a status; a `FetchError`'s message is the status `message`. The database unreachable
 * (a restart, a failover) is the service's outage, not the page's: it fails the whole request
 * (`SERVICE_UNAVAILABLE`, 503 with Retry-After) so that the caller retries, instead of an error status
 * that reads as final.
 */
async function settle(
  loading: Promise<LoadedPage>,
  id: string,
  ctx: ServiceContext,
): Promise<{ status: ContentStatus; loaded?: LoadedPage }> {
  try {
    const loaded = await loading;
    return { status: { id, status: 'success', source: loaded.source }, loaded };
  } catch (err) {
    if (err instanceof StoreUnavailableError || isStoreUnreachable(err)) throw toServiceError(err);
    if (err instanceof FetchError) {
      ctx.logger.debug({ id, tag: err.tag, reason: err.message }, 'content fetch failed');
      if (REFUSALS.has(err.tag)) ctx.onWarning?.(warning('FETCH_REFUSED', `${quotedUrl(id)}: ${err.message}`));
      const error = { tag: err.tag, httpStatusCode: err.httpStatusCode };
      return { status: { id, status: 'error', error, message: err.message } };
    }
    ctx.logger.warn({ id, err }, 'content extraction failed');
    const error = { tag: 'CRAWL_UNKNOWN_ERROR', httpStatusCode: null };
    return { status: { id, status: 'error', error, message: UNREADABLE } };
  }
}

/** One result in the deprecated `context` string: its text (rendered compact when none was asked for). */
function contextPart(result: Record<string, unknown>, loaded: LoadedPage): string {
  const body = typeof result.text === 'string' ? result.text : renderText(loaded.page, {});
  return `Title: ${String(result.title)}\nURL: ${String(result.url)}\n${body}`.trim();
}

function contextLimit(input: FetchPlan): number {
  return (typeof input.context === 'object' && input.context?.maxCharacters) || CONTEXT_DEFAULT_CHARS;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;
