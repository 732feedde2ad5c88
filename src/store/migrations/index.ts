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
  {
    version: 3,
    name: 'crawl jobs and frontier',
    sql: `
      CREATE TABLE crawl_jobs (
        id            TEXT PRIMARY KEY,
        seeds         TEXT NOT NULL,
        scope         TEXT NOT NULL,
        state         TEXT NOT NULL CHECK (state IN ('active', 'finished')),
        sitemaps_done INTEGER NOT NULL DEFAULT 0,
        created_at    TEXT NOT NULL,
        updated_at    TEXT NOT NULL
      ) STRICT;
      CREATE TABLE crawl_frontier (
        id          INTEGER PRIMARY KEY,
        job_id      TEXT NOT NULL REFERENCES crawl_jobs (id) ON DELETE CASCADE,
        url         TEXT NOT NULL,
        depth       INTEGER NOT NULL,
        state       TEXT NOT NULL CHECK (state IN ('queued', 'done', 'failed')),
        error_tag   TEXT,
        error       TEXT,
        http_status INTEGER,
        updated_at  TEXT NOT NULL,
        UNIQUE (job_id, url)
      ) STRICT;
      CREATE INDEX crawl_frontier_next ON crawl_frontier (job_id, state, depth, id);
    `,
  },
  {
    version: 4,
    name: 'search index',
    sql: `
      -- One row per indexed document. The id is new on every (re)index, never reused, so postings of a
      -- replaced or removed document can stay in a segment until a merge drops them (search_deleted).
      CREATE TABLE search_docs (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        url           TEXT NOT NULL UNIQUE,
        host          TEXT NOT NULL,
        title         TEXT NOT NULL,
        lengths       BLOB NOT NULL,
        stream        TEXT NOT NULL,
        published_at  INTEGER,
        crawled_at    INTEGER NOT NULL,
        categories    INTEGER NOT NULL DEFAULT 0,
        unsafe        INTEGER NOT NULL DEFAULT 0,
        country       TEXT,
        entities      TEXT,
        content_hash  TEXT NOT NULL
      ) STRICT;
      -- Postings per term and segment: document ids (uint32) then four field frequencies (uint8) each.
      CREATE TABLE search_postings (
        term     TEXT NOT NULL,
        segment  INTEGER NOT NULL,
        n        INTEGER NOT NULL,
        data     BLOB NOT NULL,
        PRIMARY KEY (term, segment)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE search_segments (
        id      INTEGER PRIMARY KEY,
        docs    INTEGER NOT NULL,
        sealed  INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE TABLE search_deleted (
        id  INTEGER PRIMARY KEY
      ) STRICT;
      -- Field length totals and the live document count, for BM25's average lengths.
      CREATE TABLE search_stats (
        key    TEXT PRIMARY KEY,
        value  REAL NOT NULL
      ) STRICT;
      -- Exact words (unstemmed) for phrases and includeText/excludeText: title, the first 1000 words of
      -- the text, and the rest. Rows are search_docs ids.
      CREATE VIRTUAL TABLE search_text USING fts5(
        title, head, tail, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
      );
    `,
  },
  {
    version: 5,
    name: 'search embeddings',
    sql: `
      -- Chunks of indexed documents embedded by a model; the vectors live in a sqlite-vec table per
      -- model and dimension (created when an embeddings provider is configured), keyed by chunk id.
      CREATE TABLE search_chunks (
        id      INTEGER PRIMARY KEY,
        doc_id  INTEGER NOT NULL,
        model   TEXT NOT NULL,
        chunk   INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX search_chunks_doc ON search_chunks (doc_id);
      -- Documents whose chunks are embedded, per model (a failed document is retried later).
      CREATE TABLE search_embedded (
        doc_id  INTEGER NOT NULL,
        model   TEXT NOT NULL,
        PRIMARY KEY (doc_id, model)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 6,
    name: 'code index',
    sql: `
      -- The code index: the same tables as the search index (migration 4), over code chunks. Its four
      -- fields are the symbol, the doc comment and prose, the identifiers and the code's other words.
      CREATE TABLE code_docs (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        url           TEXT NOT NULL UNIQUE,
        host          TEXT NOT NULL,
        title         TEXT NOT NULL,
        lengths       BLOB NOT NULL,
        stream        TEXT NOT NULL,
        published_at  INTEGER,
        crawled_at    INTEGER NOT NULL,
        categories    INTEGER NOT NULL DEFAULT 0,
        unsafe        INTEGER NOT NULL DEFAULT 0,
        country       TEXT,
        entities      TEXT,
        content_hash  TEXT NOT NULL
      ) STRICT;
      CREATE TABLE code_postings (
        term     TEXT NOT NULL,
        segment  INTEGER NOT NULL,
        n        INTEGER NOT NULL,
        data     BLOB NOT NULL,
        PRIMARY KEY (term, segment)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE code_segments (
        id      INTEGER PRIMARY KEY,
        docs    INTEGER NOT NULL,
        sealed  INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE TABLE code_deleted (
        id  INTEGER PRIMARY KEY
      ) STRICT;
      CREATE TABLE code_stats (
        key    TEXT PRIMARY KEY,
        value  REAL NOT NULL
      ) STRICT;
      CREATE VIRTUAL TABLE code_text USING fts5(
        title, head, tail, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
      );
      -- What a chunk is, for the response: where it comes from and its text. url = code_docs.url.
      CREATE TABLE code_chunks (
        url         TEXT PRIMARY KEY,
        source      TEXT NOT NULL,
        path        TEXT NOT NULL,
        start_line  INTEGER NOT NULL,
        end_line    INTEGER NOT NULL,
        language    TEXT NOT NULL,
        kind        TEXT NOT NULL,
        symbol      TEXT,
        doc         TEXT,
        code        TEXT NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX code_chunks_file ON code_chunks (source, path);
      -- Files indexed per source (a folder, a repository, a package set, an import), to re-index only
      -- what changed: size and mtime first, the content hash to tell a touch from an edit.
      CREATE TABLE code_files (
        source    TEXT NOT NULL,
        path      TEXT NOT NULL,
        size      INTEGER NOT NULL,
        mtime_ms  REAL NOT NULL,
        hash      TEXT NOT NULL,
        chunks    INTEGER NOT NULL,
        PRIMARY KEY (source, path)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE code_sources (
        name        TEXT PRIMARY KEY,
        kind        TEXT NOT NULL,
        location    TEXT NOT NULL,
        indexed_at  TEXT NOT NULL
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 7,
    name: 'code embeddings',
    sql: `
      -- Code chunks embedded by a model, as search_chunks and search_embedded are for documents.
      CREATE TABLE code_vec_chunks (
        id      INTEGER PRIMARY KEY,
        doc_id  INTEGER NOT NULL,
        model   TEXT NOT NULL,
        chunk   INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX code_vec_chunks_doc ON code_vec_chunks (doc_id);
      CREATE TABLE code_embedded (
        doc_id  INTEGER NOT NULL,
        model   TEXT NOT NULL,
        PRIMARY KEY (doc_id, model)
      ) STRICT, WITHOUT ROWID;
    `,
  },
];
