/** Counts for the status report (`trawl doctor`, `GET /status`): what the store holds, read in one go. */
import Database from 'better-sqlite3';
import type { Db } from './database.js';
import { toAdminKeys, type StoreCounts, type StatusRepo } from '../contracts/status.js';

/** The version of the SQLite library Trawl runs on (for a data directory without a database yet). */
export function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    return String(db.prepare('SELECT sqlite_version()').pluck().get());
  } finally {
    db.close();
  }
}

const MAX_COLLECTIONS = 50;

/** Prepared statements over the tables of migrations 1-7 (keys, documents, search and code indexes). */
export function createStatusRepo(db: Db): StatusRepo {
  const one = (sql: string) => db.prepare(sql).pluck();
  const q = {
    documents: one('SELECT COUNT(*) FROM documents'),
    searchable: one('SELECT COUNT(*) FROM search_docs'),
    embedded: one('SELECT COUNT(*) FROM search_chunks'),
    codeChunks: one('SELECT COUNT(*) FROM code_chunks'),
    codeFiles: one('SELECT COUNT(*) FROM code_files'),
    codeSources: one('SELECT COUNT(*) FROM code_sources'),
    collections: db.prepare(
      `SELECT collection AS name, COUNT(*) AS documents FROM documents GROUP BY collection
       ORDER BY documents DESC, name LIMIT ${MAX_COLLECTIONS}`,
    ),
    collectionCount: one('SELECT COUNT(DISTINCT COALESCE(collection, char(0))) FROM documents'),
    activeKeys: one('SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL'),
    revokedKeys: one('SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NOT NULL'),
    adminKeys: db.prepare(
      `SELECT id, name, team_id, scopes IS NULL AS legacy FROM api_keys WHERE revoked_at IS NULL
         AND (scopes IS NULL OR EXISTS (SELECT 1 FROM json_each(scopes) WHERE value = 'admin'))
       ORDER BY created_at, id`,
    ),
  };
  const n = (statement: { get(): unknown }) => Number(statement.get() ?? 0);
  const counts = db.transaction((): StoreCounts => ({
    documents: n(q.documents),
    searchable: n(q.searchable),
    embeddedChunks: n(q.embedded),
    codeChunks: n(q.codeChunks),
    codeFiles: n(q.codeFiles),
    codeSources: n(q.codeSources),
    collections: q.collections.all() as { name: string | null; documents: number }[],
    collectionCount: n(q.collectionCount),
    activeKeys: n(q.activeKeys),
    revokedKeys: n(q.revokedKeys),
    adminKeys: toAdminKeys(q.adminKeys.all() as Parameters<typeof toAdminKeys>[0]),
  }));
  const version = one('SELECT sqlite_version()');
  return {
    async counts() {
      return counts();
    },
    async store() {
      return { backend: 'sqlite', version: String(version.get()) };
    },
  };
}
