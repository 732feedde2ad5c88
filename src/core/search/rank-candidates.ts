/**
 * The candidates of a search: local and provider lists fused by reciprocal rank, deduplicated by
 * normalised URL, filtered, and boosted for the caller's country.
 */
import type { WebSearchHit } from '../../providers/search/types.js';
import { normalizeUrl } from '../contents/url.js';
import type { SearchFilter } from './filters.js';
import { fuse } from './pipelines.js';
import type { Candidate } from './results.js';
import type { SearchIndex } from './search-index.js';
import type { SearchPlan } from './search.plan.js';

/** Fused score multiplier for a result from the caller's country (`userLocation`). */
const LOCATION_BOOST = 1.15;

/** Live documents of `ids` that pass the request's filters, in order. */
export function acceptable(index: SearchIndex, filter: SearchFilter, ids: number[]): number[] {
  index.table.refresh();
  const urls = filter.active ? index.urls(ids) : new Map<number, string>();
  return ids.filter(
    (id) =>
      index.table.isLive(id) && (!filter.active || filter.doc(id, index.table.facts(id), () => urls.get(id) ?? '')),
  );
}

/** Local and provider lists fused by reciprocal rank, deduplicated by normalised URL, filtered. */
export function rankCandidates(
  index: SearchIndex,
  plan: SearchPlan,
  local: number[][],
  remote: WebSearchHit[][],
  filter: SearchFilter,
): Candidate[] {
  index.table.refresh();
  const urls = index.urls([...new Set(local.flat())]);
  const key = (url: string) => normalizeUrl(url) ?? url;
  const byKey = new Map<string, Candidate>();
  const lists: string[][] = local.map((list) =>
    list.flatMap((id) => {
      const url = urls.get(id);
      if (!url) return [];
      const k = key(url);
      if (!byKey.has(k)) byKey.set(k, { url, docId: id });
      return [k];
    }),
  );
  const indexed = index.ids(remote.flat().map((h) => key(h.url)));
  const passes = (hit: WebSearchHit) => {
    const id = indexed.get(key(hit.url));
    if (id === undefined) return !filter.needsPage && filter.hit(hit.url, hit.publishedDate);
    return filter.doc(id, index.table.facts(id), () => hit.url);
  };
  for (const list of remote) {
    lists.push(
      list.flatMap((hit) => {
        if (!passes(hit)) return [];
        const k = key(hit.url);
        const known = byKey.get(k);
        if (known) known.hit ??= hit;
        else byKey.set(k, { url: hit.url, hit, docId: indexed.get(k) });
        return [k];
      }),
    );
  }
  const fused = fuse(lists).map(({ key: k, score }) => {
    const c = byKey.get(k)!;
    const country = c.docId !== undefined ? index.table.facts(c.docId).country : null;
    const boost = plan.userLocation && country === plan.userLocation.toUpperCase() ? LOCATION_BOOST : 1;
    return { c, score: score * boost };
  });
  return fused.sort((a, b) => b.score - a.score).map((f) => f.c);
}
