/**
 * The status report's counts and store facts on PostgreSQL: what the shared store holds (documents,
 * code, keys) beside what this machine's copy holds (its search index and embeddings), the server's
 * version, the schema's migration version, and the replicas seen recently.
 */
import type pg from 'pg';
import { toAdminKeys, type StatusRepo, type StoreCounts } from '../contracts/status.js';
import { createPgReplicasRepo } from './replicas.js';

/** Replicas whose heartbeat is at most this old are listed. */
const SEEN_WITHIN_MS = 5 * 60_000;

/**
 * The status repository over `pool` (in `schema`, shown with `url`, which carries no credentials);
 * `local` is this machine's copy (absent when the data directory has no database yet).
 */
export function createPgStatusRepo(
  pool: pg.Pool,
  where: { url: string; schema: string },
  local: StatusRepo | undefined,
): StatusRepo {
  const replicas = createPgReplicasRepo(pool);
  return {
    async counts(): Promise<StoreCounts> {
      const mine = await local?.counts();
      const { rows } = await pool.query<Record<string, number>>(
        `SELECT (SELECT COUNT(*) FROM documents)::int AS documents,
                (SELECT COUNT(*) FROM code_chunks)::int AS code_chunks,
                (SELECT COUNT(*) FROM code_files)::int AS code_files,
                (SELECT COUNT(*) FROM code_sources)::int AS code_sources,
                (SELECT COUNT(DISTINCT COALESCE(collection, E'\\\\x00')) FROM documents)::int AS collection_count,
                (SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL)::int AS active_keys,
                (SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NOT NULL)::int AS revoked_keys`,
      );
      const c = rows[0]!;
      const collections = await pool.query<{ name: string | null; documents: number }>(
        `SELECT collection AS name, COUNT(*)::int AS documents FROM documents GROUP BY collection
         ORDER BY documents DESC, collection COLLATE "C" LIMIT 50`,
      );
      const admins = await pool.query<{ id: string; name: string; team_id: string; legacy: boolean }>(
        `SELECT id, name, team_id, scopes IS NULL AS legacy FROM api_keys
         WHERE revoked_at IS NULL AND (scopes IS NULL OR scopes::jsonb ? 'admin') ORDER BY created_at, id`,
      );
      return {
        documents: c.documents!,
        searchable: mine?.searchable ?? 0,
        embeddedChunks: mine?.embeddedChunks ?? 0,
        codeChunks: c.code_chunks!,
        codeFiles: c.code_files!,
        codeSources: c.code_sources!,
        collections: collections.rows,
        collectionCount: c.collection_count!,
        activeKeys: c.active_keys!,
        revokedKeys: c.revoked_keys!,
        adminKeys: toAdminKeys(admins.rows),
      };
    },
    async store() {
      const [version, schema] = await Promise.all([
        pool.query<{ server_version: string }>('SHOW server_version'),
        pool
          .query<{ version: number }>('SELECT version FROM trawl_schema')
          .then((r) => r.rows[0]?.version ?? 0)
          .catch(() => 0), // not migrated yet
      ]);
      return {
        backend: 'postgres',
        version: version.rows[0]!.server_version,
        url: where.url,
        schema: where.schema,
        schemaVersion: schema,
        replicas: await replicas.seen(SEEN_WITHIN_MS).catch(() => []), // none before migration 14
      };
    },
  };
}
