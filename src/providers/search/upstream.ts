/**
 * An upstream service speaking Trawl's own API as a web-search provider: the hosted API Trawl mirrors,
 * or another Trawl instance (how instances federate). One `POST {base}/search` of type `fast`.
 */
import { providerError, toHits } from './hits.js';
import type { PostJson, WebSearchProvider, WebSearchQuery } from './types.js';

/**
 * Sent on every federated request. A Trawl instance receiving it should answer from its own index only,
 * so two instances federating with each other cannot bounce one query back and forth.
 */
export const FEDERATED_HEADER = 'x-trawl-federated';

export interface UpstreamProviderOptions {
  /** Service root, e.g. `https://search.example.com` (no trailing `/search`). */
  baseUrl: string;
  /** Sent only as `x-api-key`; omitted for a service that needs none. */
  apiKey?: string;
  post: PostJson;
}

interface UpstreamResult {
  url?: unknown;
  title?: unknown;
  publishedDate?: unknown;
  author?: unknown;
  score?: unknown;
  highlights?: unknown;
  summary?: unknown;
  text?: unknown;
}

const SNIPPET_CHARS = 300;

/** The `/search` body: the query's fields that are set, as the spec names them. */
function toBody(query: WebSearchQuery): Record<string, unknown> {
  const body: Record<string, unknown> = { query: query.query, type: 'fast', numResults: query.numResults };
  if (query.includeDomains?.length) body.includeDomains = query.includeDomains;
  if (query.excludeDomains?.length) body.excludeDomains = query.excludeDomains;
  if (query.startPublishedDate) body.startPublishedDate = query.startPublishedDate;
  if (query.endPublishedDate) body.endPublishedDate = query.endPublishedDate;
  if (query.userLocation) body.userLocation = query.userLocation;
  if (query.category) body.category = query.category;
  return body;
}

/** A snippet from whatever content the service sent: first highlight, summary, or the text's start. */
function snippetOf(result: UpstreamResult): string | undefined {
  const first = Array.isArray(result.highlights) ? result.highlights[0] : undefined;
  if (typeof first === 'string' && first.trim()) return first;
  if (typeof result.summary === 'string' && result.summary.trim()) return result.summary;
  return typeof result.text === 'string' ? result.text.slice(0, SNIPPET_CHARS) : undefined;
}

/**
 * An upstream provider. Pushes down every filter (the service speaks the same request). Asks for no
 * contents (`fast`, no `contents`), so snippets appear only if the service sends content unasked.
 */
export function createUpstreamProvider(options: UpstreamProviderOptions): WebSearchProvider {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/search`;
  const headers: Record<string, string> = { [FEDERATED_HEADER]: '1' };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  return {
    name: 'upstream',
    async search(query, signal) {
      try {
        const response = await options.post<{ results?: unknown }>(url, toBody(query), {
          headers,
          timeoutMs: query.timeoutMs,
          signal,
        });
        if (!response || typeof response !== 'object' || !Array.isArray(response.results)) {
          throw new Error('the service answered without a results list');
        }
        const raws = (response.results as (UpstreamResult | null)[]).map((r) => ({
          url: r?.url,
          title: r?.title,
          snippet: r ? snippetOf(r) : undefined,
          publishedDate: r?.publishedDate,
          author: r?.author,
          score: r?.score,
        }));
        return toHits('upstream', raws, query.numResults);
      } catch (err) {
        throw providerError('upstream', err, { secrets: [options.apiKey], signal });
      }
    },
  };
}
