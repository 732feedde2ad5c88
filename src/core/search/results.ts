/**
 * Search candidates → search result objects: the stored document's (or the provider's) title, date and
 * author, entities of company results, and the asked-for contents from the contents pipeline.
 */
import type { WebSearchHit } from '../../providers/search/types.js';
import type { DocumentHead, DocumentsRepo } from '../../store/contracts/documents.js';
import type { ServiceContext } from '../context.js';
import { addWait, type QueueWait } from '../contents/admission.js';
import type { ContentsService } from '../contents/contents.service.js';
import type { FetchOptions } from '../contents/fetch.plan.js';
import { isEmptyResult } from '../contents/to-result.js';
import { normalizeUrl } from '../contents/url.js';
import type { SearchIndex } from './search-index.js';

/** A fused candidate: an index document, a provider hit, or both. */
export interface Candidate {
  url: string;
  docId?: number;
  hit?: WebSearchHit;
}

/** A search result object (the wire shape's required fields, and whatever contents were asked for). */
export type ResultObject = Record<string, unknown> & { title: string; url: string; id: string };

/** What a request's contents calls add up to: the admission queue's wait over all of them. */
export interface WaitTally {
  queue?: QueueWait;
}

export interface ResultDeps {
  documents: DocumentsRepo;
  contents: ContentsService;
  index: SearchIndex;
}

/** Whether the request asks for anything the contents pipeline makes. */
function wantsContents(c: FetchOptions | undefined): c is FetchOptions {
  return Boolean(c && (c.text || c.highlights || c.summary || c.extras || c.subpages || c.context));
}

function baseResult(c: Candidate, doc: DocumentHead | undefined): ResultObject {
  const meta = doc?.metadata ?? {};
  const result: ResultObject = {
    title: doc?.title || c.hit?.title || c.url,
    url: doc?.url ?? c.url,
    id: doc?.url ?? c.url,
    publishedDate: doc?.publishedDate ?? c.hit?.publishedDate ?? null,
    author: doc?.author ?? c.hit?.author ?? null,
  };
  if (typeof meta.image === 'string') result.image = meta.image;
  if (typeof meta.favicon === 'string') result.favicon = meta.favicon;
  return result;
}

/**
 * The results of `candidates`, in order, with contents when asked (a page that fails keeps its result
 * without them). Model dollars spent on summaries are added to `spent`, the queue's wait to `wait`.
 */
export async function buildResults(
  deps: ResultDeps,
  candidates: Candidate[],
  input: { query: string; contents?: FetchOptions; category?: string; filterEmptyResults?: boolean },
  ctx: ServiceContext,
  spent?: { dollars: number },
  wait?: WaitTally,
): Promise<ResultObject[]> {
  const keys = candidates.map((c) => normalizeUrl(c.url) ?? c.url);
  const heads = await deps.documents.heads([...new Set([...keys, ...candidates.map((c) => c.url)])]);
  const results = candidates.map((c, i) => baseResult(c, heads.get(keys[i]!) ?? heads.get(c.url)));
  if (input.category === 'company') addEntities(deps, candidates, results);
  const c = input.contents;
  if (!wantsContents(c) || results.length === 0) return results;
  const out = await deps.contents.run(
    { ...c, targets: results.map((r) => r.url), searchQuery: input.query, filterEmptyResults: false, spent },
    ctx,
  );
  if (wait) wait.queue = addWait(wait.queue, out.facts.queue);
  let next = 0;
  const merged = results.map((base, i) => {
    if (out.statuses[i]?.status !== 'success') return { base, content: undefined };
    const content = out.results[next++];
    return { base, content };
  });
  const filterEmpty = c.filterEmptyResults ?? input.filterEmptyResults;
  return merged
    .filter(({ content }) => !filterEmpty || (content !== undefined && !isEmptyResult(content, c)))
    .map(({ base, content }): ResultObject => (content ? { ...base, ...content } : base));
}

function addEntities(deps: ResultDeps, candidates: Candidate[], results: ResultObject[]): void {
  const ids = candidates.flatMap((c) => (c.docId === undefined ? [] : [c.docId]));
  const entities = deps.index.entities(ids);
  candidates.forEach((c, i) => {
    const e = c.docId === undefined ? undefined : entities.get(c.docId);
    if (e && e.length > 0) results[i]!.entities = e;
  });
}
