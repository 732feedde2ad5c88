/**
 * Numbered schema migrations of the durable store. Append only: a released migration never changes.
 * `PRAGMA user_version` records the last one applied.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'api keys',
    sql: `
      CREATE TABLE api_keys (
        id           TEXT PRIMARY KEY,
        name         TEXT NOT NULL,
        hash         TEXT NOT NULL,
        created_at   TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at   TEXT
      ) STRICT;
      CREATE INDEX api_keys_active ON api_keys (revoked_at);
    `,
  },
  {
    version: 2,
    name: 'documents',
    sql: `
      CREATE TABLE documents (
        url            TEXT PRIMARY KEY,
        title          TEXT NOT NULL,
        text           TEXT NOT NULL,
        author         TEXT,
        published_date TEXT,
        kind           TEXT NOT NULL,
        metadata       TEXT NOT NULL,
        origin         TEXT NOT NULL CHECK (origin IN ('fetch', 'import')),
        collection     TEXT,
        content_hash   TEXT NOT NULL,
        fetched_at     TEXT NOT NULL,
        updated_at     TEXT NOT NULL
      ) STRICT;
      CREATE INDEX documents_updated ON documents (updated_at);
      CREATE INDEX documents_collection ON documents (collection);
    `,
  },
];
