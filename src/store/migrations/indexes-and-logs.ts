/**
 * Store migrations, continued (the whole list is ./index.ts): the search and code indexes of SQLite,
 * the logs, page cache and embeddings replicas share on PostgreSQL, and the code index both keep.
 * Append only: a released entry never changes.
 */
import { DERIVED_INDEX, type MigrationEntry } from './migration.js';

export const INDEXES_AND_LOGS: readonly MigrationEntry[] = [
  {
    id: 'search-index',
    sqlite: {
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
    pg: {
      none: DERIVED_INDEX,
    },
  },
  {
    id: 'search-embeddings',
    sqlite: {
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
    pg: {
      none: 'PostgreSQL stores a vector once per embedded text, for every replica: migration 11 (embeddings stored once)',
    },
  },
  {
    id: 'document-log',
    sqlite: {
      none: 'replicas follow the log of a shared PostgreSQL database; a SQLite store serves one process, with nothing to follow',
    },
    pg: {
      version: 9,
      name: 'the document log',
      sql: `
      -- Where each document's latest write stands in the log replicas follow: the writing transaction's
      -- id, then a sequence within it (see document-log.pg.ts). Rows written before carry the migration's.
      CREATE SEQUENCE documents_change_seq;
      ALTER TABLE documents ADD COLUMN change_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
      ALTER TABLE documents ADD COLUMN change_seq BIGINT NOT NULL DEFAULT nextval('documents_change_seq');
      CREATE INDEX documents_log ON documents (change_xid, change_seq);
    `,
    },
  },
  {
    id: 'shared-page-cache',
    sqlite: {
      none: 'SQLite caches in a file of its own, cache.sqlite, apart from the durable store (store/sqlite/cache.ts)',
    },
    pg: {
      version: 10,
      name: 'the shared page cache',
      sql: `
      -- keyv entries of every replica (cache.pg.ts). Keyed by the SHA-256 of the key, since a key carries
      -- a URL that may be longer than a B-tree entry allows. UNLOGGED: a cache is not worth its WAL; it
      -- is emptied after a crash and not copied to standbys, and every entry can be fetched again.
      CREATE UNLOGGED TABLE cache_entries (
        key_hash    BYTEA PRIMARY KEY,
        key         TEXT NOT NULL,
        value       TEXT NOT NULL,
        expires_ms  BIGINT
      );
      CREATE INDEX cache_entries_expiry ON cache_entries (expires_ms) WHERE expires_ms IS NOT NULL;
    `,
    },
  },
  {
    id: 'shared-embeddings',
    sqlite: {
      none: 'SQLite keeps the vectors of its own index chunks: migrations 5 (search embeddings) and 7 (code embeddings)',
    },
    pg: {
      version: 11,
      name: 'embeddings stored once',
      sql: `
      -- Vectors of embedded texts, shared so no replica pays the provider for a text another embedded
      -- (embeddings.pg.ts): float32 little-endian, keyed by model, size and SHA-256 of the exact text.
      CREATE TABLE embedding_vectors (
        model        TEXT NOT NULL,
        dims         INTEGER NOT NULL CHECK (dims > 0),
        text_sha256  BYTEA NOT NULL CHECK (length(text_sha256) = 32),
        vector       BYTEA NOT NULL CHECK (length(vector) = 4 * dims),
        created_at   TEXT NOT NULL,
        PRIMARY KEY (model, dims, text_sha256)
      );
      -- The vector size a model answered with, so a replica starting up need not ask the provider.
      CREATE TABLE embedding_models (
        model       TEXT PRIMARY KEY,
        dims        INTEGER NOT NULL CHECK (dims > 0),
        updated_at  TEXT NOT NULL
      );
    `,
    },
  },
  {
    id: 'code-index',
    sqlite: {
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
    pg: {
      version: 12,
      name: 'the code index and its log',
      sql: `
      -- What the code index holds, shared (code-files.pg.ts); each replica's SQLite code index is a copy
      -- made by following code_changes (code-log.pg.ts). Sources and files as on SQLite, with the time a
      -- file's chunks were written (indexed_ms, an index entry's time); chunks whole (code and doc), one
      -- row per place in the file, gone with their file.
      CREATE TABLE code_sources (
        name        TEXT PRIMARY KEY,
        kind        TEXT NOT NULL,
        location    TEXT NOT NULL,
        indexed_at  TEXT NOT NULL
      );
      CREATE TABLE code_files (
        source      TEXT NOT NULL,
        path        TEXT NOT NULL,
        size        BIGINT NOT NULL,
        mtime_ms    DOUBLE PRECISION NOT NULL,
        hash        TEXT NOT NULL,
        chunks      INTEGER NOT NULL,
        indexed_ms  BIGINT NOT NULL,
        PRIMARY KEY (source, path)
      );
      CREATE TABLE code_chunks (
        source      TEXT NOT NULL,
        path        TEXT NOT NULL,
        start_line  INTEGER NOT NULL,
        end_line    INTEGER NOT NULL,
        language    TEXT NOT NULL,
        kind        TEXT NOT NULL,
        symbol      TEXT,
        doc         TEXT,
        code        TEXT NOT NULL,
        PRIMARY KEY (source, path, start_line, end_line),
        FOREIGN KEY (source, path) REFERENCES code_files (source, path) ON DELETE CASCADE
      );
      -- The code log: each file's latest change (its chunks written, or the file removed) and each
      -- source's (path ''), placed as documents are (change_xid, change_seq; see document-log.pg.ts).
      -- A removal keeps its row here, so a follower that has not read it yet still deletes the file.
      CREATE SEQUENCE code_change_seq;
      CREATE TABLE code_changes (
        source      TEXT NOT NULL,
        path        TEXT NOT NULL,
        change_xid  xid8 NOT NULL DEFAULT pg_current_xact_id(),
        change_seq  BIGINT NOT NULL DEFAULT nextval('code_change_seq'),
        PRIMARY KEY (source, path)
      );
      CREATE INDEX code_changes_log ON code_changes (change_xid, change_seq);
    `,
    },
  },
  {
    id: 'code-embeddings',
    sqlite: {
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
    pg: {
      none: 'the code vectors are derived data in each process’s SQLite code index; shared vectors are migration 11 (embeddings stored once)',
    },
  },
];
