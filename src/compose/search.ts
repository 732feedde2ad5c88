/** The search side of the services: embeddings search when a provider is configured, /search and /findSimilar. */
import type { ContentsService } from '../core/contents/contents.service.js';
import type { SearchIndex } from '../core/search/search-index.js';
import { createSearchService, type SearchService } from '../core/search/search.service.js';
import { createSemanticSearch, type SemanticSearch } from '../core/search/semantic.js';
import { createSimilarService, type SimilarService } from '../core/search/similar.service.js';
import type { Synthesis } from '../core/synthesis/synthesis.service.js';
import type { IndexedDocuments, PageStore } from '../core/documents/documents.types.js';
import type { ServiceDeps } from './service-deps.js';

/** What the search services read: the index, the indexed and the written documents, contents, synthesis. */
export interface SearchParts {
  searchIndex: SearchIndex;
  indexed: IndexedDocuments;
  documents: PageStore;
  contents: ContentsService;
  synthesis: Synthesis;
}

export function createSearchServices(
  deps: ServiceDeps,
  parts: SearchParts,
): { semantic?: SemanticSearch; search: SearchService; similar: SimilarService } {
  const { searchIndex, documents, contents } = parts;
  const { providerTimeoutMs } = deps.settings;
  const semantic = deps.embedder
    ? createSemanticSearch({
        db: deps.db,
        documents: parts.indexed,
        embedder: deps.embedder,
        logger: deps.logger,
        shared: deps.sharedEmbeddings,
      })
    : undefined;
  const search = createSearchService({
    index: searchIndex,
    documents,
    contents,
    providers: deps.webSearch,
    semantic,
    synthesis: parts.synthesis,
    providerTimeoutMs,
    prices: deps.prices,
    logger: deps.logger,
  });
  const similar = createSimilarService({
    index: searchIndex,
    documents,
    contents,
    semantic,
    providerTimeoutMs,
    prices: deps.prices,
  });
  return { semantic, search, similar };
}
