/**
 * The observation port: counters and timings with fixed names and bounded labels, recorded by the doors
 * and the core, kept in this process's memory (a map update each) until an exporter reads them
 * (src/observe/metrics/ serves them to Prometheus, loading prom-client only when it is scraped). What
 * is recorded before an exporter exists is counted all the same. Label values come from the fixed
 * sets below or from the registry's operation and provider names: never a URL, a key, a team or a query.
 */

/** Request latencies (s): a cached `instant` search is a few ms, a deep answer a minute. */
const LATENCY = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

/** The doors a request comes through (`system`: /health, /metrics, /openapi.json and other door routes). */
export type Door = 'rest' | 'mcp' | 'console' | 'responses' | 'oauth' | 'system';
/** The stages of one search round (core/search/search.service.ts) and of its answer. */
export type SearchStage = 'plan' | 'providers' | 'semantic' | 'local' | 'read_pages' | 'rank' | 'results' | 'answer';
/** The stages of a live page fetch (core/contents/pages.service.ts). */
export type FetchStage = 'fetch' | 'extract' | 'render' | 'store';
/** The kinds of provider an operator configures. */
export type ProviderKind = 'search' | 'model' | 'embeddings';

/** One family of series: its Prometheus name, help line, type and label names (histograms: buckets). */
export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  labels: readonly string[];
  buckets?: readonly number[];
}

/** Every family this port records, by the name the recording functions use. */
export const FAMILIES = {
  requests: {
    name: 'trawl_requests_total',
    help: 'Requests answered, by door, operation and HTTP status code.',
    type: 'counter',
    labels: ['door', 'operation', 'code'],
  },
  requestSeconds: {
    name: 'trawl_request_duration_seconds',
    help: 'Time to answer a request (to the first byte of a stream), by door and operation.',
    type: 'histogram',
    labels: ['door', 'operation'],
    buckets: LATENCY,
  },
  operationErrors: {
    name: 'trawl_operation_errors_total',
    help: 'Operations that ended in an error, by operation and error tag (every door, MCP over stdio included).',
    type: 'counter',
    labels: ['operation', 'tag'],
  },
  searchStageSeconds: {
    name: 'trawl_search_stage_duration_seconds',
    help: 'Time spent in each stage of a search.',
    type: 'histogram',
    labels: ['stage'],
    buckets: [0.001, 0.0025, ...LATENCY],
  },
  fetchStageSeconds: {
    name: 'trawl_fetch_stage_duration_seconds',
    help: 'Time spent in each stage of a live page fetch.',
    type: 'histogram',
    labels: ['stage'],
    buckets: [0.001, 0.0025, ...LATENCY],
  },
  pageCache: {
    name: 'trawl_page_cache_requests_total',
    help: 'Lookups of the page cache, by result (hit or miss).',
    type: 'counter',
    labels: ['result'],
  },
  providerCalls: {
    name: 'trawl_provider_calls_total',
    help: 'Calls to configured providers, by kind, provider and outcome (ok or error).',
    type: 'counter',
    labels: ['kind', 'provider', 'outcome'],
  },
  providerSeconds: {
    name: 'trawl_provider_call_duration_seconds',
    help: 'Time of a provider call, by kind and provider.',
    type: 'histogram',
    labels: ['kind', 'provider'],
    buckets: LATENCY,
  },
  spent: {
    name: 'trawl_spent_dollars_total',
    help: 'Dollars charged to keys and teams (the spend recorded for credits and budgets), by operation.',
    type: 'counter',
    labels: ['operation'],
  },
} as const satisfies Record<string, Family>;

export type FamilyName = keyof typeof FAMILIES;

/** A counter's value, or a histogram's bucket counts (not cumulative; the last is +Inf), sum and count. */
export interface Series {
  labels: readonly string[];
  value: number;
  buckets?: number[];
  sum?: number;
}

/** Distinct label sets a family keeps at most; past it, new ones are counted under `other` values. */
export const MAX_SERIES = 2000;

const store = new Map<FamilyName, Map<string, Series>>();

function seriesOf(family: FamilyName, labels: readonly string[]): Series {
  let all = store.get(family);
  if (!all) store.set(family, (all = new Map()));
  const key = labels.join('\u0000');
  let series = all.get(key);
  if (series) return series;
  // a bug that passed an unbounded value cannot grow memory without end
  if (all.size >= MAX_SERIES)
    return seriesOf(
      family,
      labels.map(() => 'other'),
    );
  const { buckets } = FAMILIES[family] as Family;
  series = buckets ? { labels, value: 0, buckets: new Array(buckets.length + 1).fill(0), sum: 0 } : { labels, value: 0 }; // prettier-ignore
  all.set(key, series);
  return series;
}

/** Adds `by` to a counter of `family`. */
export function count(family: FamilyName, labels: readonly string[], by = 1): void {
  if (!(by > 0)) return;
  seriesOf(family, labels).value += by;
}

/** Records one duration (seconds) in a histogram of `family`. */
export function time(family: FamilyName, labels: readonly string[], seconds: number): void {
  const bounds = (FAMILIES[family] as Family).buckets!;
  const series = seriesOf(family, labels);
  let i = 0;
  while (i < bounds.length && seconds > bounds[i]!) i++;
  series.buckets![i]! += 1;
  series.sum! += seconds;
  series.value += 1;
}

/** Seconds since `started` (a `performance.now()` reading). */
export const since = (started: number): number => (performance.now() - started) / 1000;

/** Times `work` into a histogram of `family` (failures included) and returns its result. */
export async function timed<T>(family: FamilyName, labels: readonly string[], work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    time(family, labels, since(started));
  }
}

/** The series of `family` recorded so far (a copy: the exporter reads it at scrape time). */
export function observed(family: FamilyName): Series[] {
  return [...(store.get(family)?.values() ?? [])].map((s) => ({ ...s, buckets: s.buckets && [...s.buckets] }));
}

/** The recording functions by role, for call sites that read better with names. */
export const observe = {
  request: (door: Door, operation: string, code: number, seconds: number) => {
    count('requests', [door, operation, String(code)]);
    time('requestSeconds', [door, operation], seconds);
  },
  operationError: (operation: string, tag: string) => count('operationErrors', [operation, tag]),
  searchStage: (stage: SearchStage, seconds: number) => time('searchStageSeconds', [stage], seconds),
  fetchStage: (stage: FetchStage, seconds: number) => time('fetchStageSeconds', [stage], seconds),
  pageCache: (hit: boolean) => count('pageCache', [hit ? 'hit' : 'miss']),
  provider: (kind: ProviderKind, provider: string, ok: boolean, seconds: number) => {
    count('providerCalls', [kind, provider, ok ? 'ok' : 'error']);
    time('providerSeconds', [kind, provider], seconds);
  },
  spent: (operation: string, dollars: number) => count('spent', [operation], dollars),
};
