/**
 * The web-search provider contract: what `/search` asks a provider (SearXNG, Brave, an upstream service
 * speaking this API) and the hits it gets back, before the search service fuses them with the local index.
 */

/** One query to one provider, with the filters of the `/search` request. */
export interface WebSearchQuery {
  /** The caller's query as given. */
  query: string;
  /** Hits wanted (1–100); a provider returns at most this many. */
  numResults: number;
  /** Domains, path prefixes or `*.` wildcards; providers push down what their API can express. */
  includeDomains?: string[];
  excludeDomains?: string[];
  /** ISO 8601 dates or date-times. */
  startPublishedDate?: string;
  endPublishedDate?: string;
  /** Two-letter ISO country code. */
  userLocation?: string;
  /** A `/search` category (`news`, `publication`, ...). */
  category?: string;
  /** Bounds the whole provider call, every page of it. */
  timeoutMs: number;
}

/** One result of one provider, normalised: absolute http(s) URL, trimmed title, no duplicates in a list. */
export interface WebSearchHit {
  url: string;
  title: string;
  snippet?: string;
  /** ISO 8601 date-time when the provider dated the page, else null. */
  publishedDate?: string | null;
  author?: string | null;
  /** The provider's own relevance score, when it gives one (scales differ between providers). */
  score?: number;
  /** Name of the provider that returned the hit. */
  provider: string;
  /** 1-based position in that provider's list (the input of reciprocal-rank fusion). */
  rank: number;
}

/**
 * A web-search API. Each provider pushes down the filters its API can express and says in its doc
 * comment which it cannot; the search service filters every provider's hits again afterwards.
 */
export interface WebSearchProvider {
  /** Short stable name (`searxng`, `brave`, `upstream`): `WebSearchHit.provider` and log lines. */
  readonly name: string;
  /**
   * Up to `query.numResults` hits, best first. Throws `ServiceError` (`SERVICE_UNAVAILABLE`) naming the
   * provider, never its key, when it fails, answers garbage or exceeds `query.timeoutMs`; a cancelled
   * `signal` rejects with the fetch layer's cancellation error.
   */
  search(query: WebSearchQuery, signal?: AbortSignal): Promise<WebSearchHit[]>;
}

/** Per-call options of the JSON client (src/fetch/api-client.ts); header values are never logged. */
export interface JsonCallOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The outbound JSON GET of src/fetch/api-client.ts (`createApiClient(...).getJson`). */
export type GetJson = <T>(url: string, options: JsonCallOptions) => Promise<T>;

/** The outbound JSON POST of src/fetch/api-client.ts (`createApiClient(...).postJson`). */
export type PostJson = <T>(url: string, body: unknown, options: JsonCallOptions) => Promise<T>;
