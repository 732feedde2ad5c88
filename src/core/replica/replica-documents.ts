/**
 * The documents of a replica on PostgreSQL (`TRAWL_DATABASE_URL`): writes go to the shared store, the
 * source of truth of every replica's index; reads are answered from this machine's copy, which the
 * document follower keeps (document-follower.ts). A write returns once the follower has
 * applied it here too, so a page this replica stored is in its own searches at once, and in the other
 * replicas' as soon as their followers hear of it.
 *
 * A process that does not follow (a bulk command: `trawl import`, `trawl crawl`) uses the shared store
 * as it is, for reads and writes, and leaves this machine's copy to the serving replicas.
 */
import { atOrAfter, type SharedDocuments } from './shared-store.js';
import type { PageDocuments, PageStore } from '../documents/documents.types.js';
import type { DocumentFollower } from './document-follower.js';
import type { LogPosition } from '../../store/contracts/change-log.js';

/**
 * How long a write waits for its own documents to reach this replica's index (ms). The log holds a
 * write back while an older transaction is still open anywhere (document-log.pg.ts); past this, the
 * write returns and the follower applies it when that transaction ends.
 */
const OWN_WRITE_WAIT_MS = 2000;

/** A following replica's documents: written to `shared`, then applied to `local` by `follower`; read from `local`. */
export function replicaDocuments(shared: SharedDocuments, local: PageDocuments, follower: DocumentFollower): PageStore {
  const applied = async (mine: LogPosition | null) => {
    if (!mine) return;
    const end = Date.now() + OWN_WRITE_WAIT_MS;
    for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
      await follower.catchUp();
      if (atOrAfter(follower.position(), mine) || Date.now() > end) return;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  };
  return {
    upsert: async (doc, now) => applied(await shared.write([doc], now)),
    upsertMany: async (docs, now) => applied(await shared.write(docs, now)),
    get: (url) => local.get(url),
    heads: (urls) => local.heads(urls),
    count: () => local.count(),
    all: (pageSize) => local.all(pageSize),
  };
}
