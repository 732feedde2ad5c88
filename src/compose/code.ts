/**
 * The code side of the services: Trawl's code model and its chunk vectors, the code index, its
 * embeddings search when a provider is configured, /context, and the indexer of `trawl index`.
 */
import type { SemanticSearch } from '../core/search/semantic.js';
import { createSemanticSearch } from '../core/search/semantic.js';
import type { Prices } from '../core/pricing.js';
import { createCodeIndex, type CodeIndex } from '../core/code/index/code-index.js';
import { createContextService, type ContextService } from '../core/code/context/context.service.js';
import { createCodeIndexer, type CodeIndexer } from '../core/code/index/indexer.js';
import { createCodeVectors, type CodeVectors } from '../core/code/index/code-vectors.js';
import { createCodeModelLoader, type CodeModelLoader } from '../core/code/model/shipped-model.js';
import type { MergeScheduler } from '../store/search-index/segment-merger.js';
import type { IndexedDocuments } from '../core/documents/documents.types.js';
import { CODE_VECTORS } from '../store/sqlite/vectors.js';
import type { ServiceDeps } from './service-deps.js';
import type { CodeFilesRepo } from '../store/contracts/code-files.js';

/** The code index with the model that ranks it: what the documents side and the code services share. */
export interface CodeParts {
  code: CodeIndex;
  loader: CodeModelLoader;
  vectors: CodeVectors;
}

/** The code model (loaded at the first code query or write; an embeddings provider ranks code instead) and index. */
export function createCodeParts(deps: ServiceDeps, merges: MergeScheduler | undefined): CodeParts {
  const loader = createCodeModelLoader({ setting: deps.settings.codeModel, logger: deps.logger, provider: Boolean(deps.embedder) }); // prettier-ignore
  const vectors = createCodeVectors({
    db: deps.db,
    loader,
    chunksOf: (ids) => code.hitsByIds(ids),
    logger: deps.logger,
  });
  const code = createCodeIndex(deps.db, { merges, vectors });
  return { code, loader, vectors };
}

/** The services over the code index: its embeddings search, /context and the indexer. */
export function createCodeServices(
  deps: ServiceDeps,
  parts: CodeParts,
  with_: { indexed: IndexedDocuments; files: CodeFilesRepo; prices: Prices },
): { codeSemantic?: SemanticSearch; context: ContextService; indexer: CodeIndexer } {
  const { code, loader, vectors } = parts;
  const codeSemantic = deps.embedder
    ? createSemanticSearch({
        db: deps.db,
        documents: with_.indexed,
        embedder: deps.embedder,
        logger: deps.logger,
        tables: CODE_VECTORS,
        shared: deps.sharedEmbeddings,
        textOf: (url) => code.textOf(url),
      })
    : undefined;
  const context = createContextService({
    code,
    semantic: codeSemantic,
    model: codeSemantic ? undefined : { loader, vectors },
    providerTimeoutMs: deps.settings.providerTimeoutMs,
    prices: with_.prices,
  });
  return { codeSemantic, context, indexer: createCodeIndexer({ files: with_.files, clock: deps.clock }) };
}
