/**
 * The web-search providers an operator configured (docs/providers.md), built from the settings and the
 * JSON client; the search service federates `/search` with them.
 */
import { createBraveProvider } from './brave.js';
import { createSearxngProvider } from './searxng.js';
import type { GetJson, PostJson, WebSearchProvider } from './types.js';
import { createUpstreamProvider } from './upstream.js';

export type { GetJson, JsonCallOptions, PostJson, WebSearchHit, WebSearchProvider, WebSearchQuery } from './types.js';
export { createBraveProvider, BRAVE_SEARCH_URL } from './brave.js';
export { createSearxngProvider } from './searxng.js';
export { createUpstreamProvider, FEDERATED_HEADER } from './upstream.js';

/** The provider settings of `Config` (a `Config` passes as it is). */
export interface WebSearchSettings {
  searxngUrl?: string;
  braveApiKey?: string;
  upstreamUrl?: string;
  upstreamApiKey?: string;
}

/** What the providers call out with: `createApiClient(...)`'s `getJson`/`postJson`, and a clock. */
export interface WebSearchDeps {
  getJson: GetJson;
  postJson: PostJson;
  now?: () => number;
}

/** One provider per configured setting (SearXNG, Brave, upstream, in that order); none configured → `[]`. */
export function createWebSearchProviders(settings: WebSearchSettings, deps: WebSearchDeps): WebSearchProvider[] {
  const providers: WebSearchProvider[] = [];
  if (settings.searxngUrl) {
    providers.push(createSearxngProvider({ baseUrl: settings.searxngUrl, get: deps.getJson, now: deps.now }));
  }
  if (settings.braveApiKey) {
    providers.push(createBraveProvider({ apiKey: settings.braveApiKey, get: deps.getJson, now: deps.now }));
  }
  if (settings.upstreamUrl) {
    const upstream = { baseUrl: settings.upstreamUrl, apiKey: settings.upstreamApiKey, post: deps.postJson };
    providers.push(createUpstreamProvider(upstream));
  }
  return providers;
}
