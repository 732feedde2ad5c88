/**
 * The documents of a replica on PostgreSQL (`TRAWL_DATABASE_URL`): writes go to the shared store, the
 * source of truth of every replica's index; reads are answered from this machine's copy, which the
 * document follower keeps (core/search/document-follower.ts). A write returns once the follower has
 * applied it here too, so a page this replica stored is in its own searches at once, and in the other
 * replicas' as soon as their followers hear of it.
 *
 * A process that does not follow (a bulk command: `trawl import`, `trawl crawl`) uses the shared store
 * as it is, for reads and writes, and leaves this machine's copy to the serving replicas.
 */
import type { DocumentsRepo } from '../../store/documents.repo.js';
import type { PageDocuments, PageStore } from '../code/index/doc-examples.js';
import type { DocumentFollower } from './document-follower.js';

/** A following replica's documents: written to `shared`, then applied to `local` by `follower`; read from `local`. */
export function replicaDocuments(shared: DocumentsRepo, local: PageDocuments, follower: DocumentFollower): PageStore {
  return {
    async upsert(doc, now) {
      await shared.upsert(doc, now);
      await follower.catchUp();
    },
    async upsertMany(docs, now) {
      await shared.upsertMany(docs, now);
      await follower.catchUp();
    },
    get: (url) => local.get(url),
    heads: (urls) => local.heads(urls),
    count: () => local.count(),
    all: (pageSize) => local.all(pageSize),
  };
}
