/**
 * The readiness of a serving process (`GET /ready`, core/status/readiness.ts) over its store: the shared
 * PostgreSQL store's schema (and so whether it answers) or the data directory's SQLite, this process's
 * index rebuild, and a replica's lag behind the shared store.
 */
import type { Config } from '../config/config.js';
import { createReadiness, type Readiness } from '../core/status/readiness.js';
import { pgSchemaVersions } from '../store/pg/database.js';
import type { SharedStore } from '../store/pg/stores.js';
import { schemaVersions, type Db } from '../store/sqlite/database.js';
import type { Lifecycle } from './lifecycle.js';

/** How long the store may take to answer `/ready`'s query before it counts as unreachable. */
const STORE_TIMEOUT_MS = 2000;

/** The readiness of the process that holds `db` (and `shared`, on PostgreSQL). */
export function readinessOf(
  config: Pick<Config, 'readyMaxLagSeconds'>,
  db: Db,
  shared: SharedStore | undefined,
  lifecycle: Pick<Lifecycle, 'rebuilding' | 'replicaLag'>,
): Readiness {
  return createReadiness(
    {
      schema: shared ? () => pgSchemaVersions(shared.pg.pool) : async () => schemaVersions(db),
      rebuilding: () => lifecycle.rebuilding(),
      lagSeconds: () => lifecycle.replicaLag()?.seconds,
    },
    { storeTimeoutMs: STORE_TIMEOUT_MS, maxLagSeconds: config.readyMaxLagSeconds },
  );
}
