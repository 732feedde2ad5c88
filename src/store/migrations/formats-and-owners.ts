/**
 * Store migrations, continued (the whole list is ./index.ts): SQLite's compact index formats and replica
 * state, PostgreSQL's page Markdown and replicas seen, and owners with the audit log, the first entry
 * written for both dialects at once. Append only: a released entry never changes; a new entry goes at
 * the end of this file (or of a new file listed after it in ./index.ts).
 */
import { DERIVED_INDEX, type MigrationEntry } from './migration.js';

export const FORMATS_AND_OWNERS: readonly MigrationEntry[] = [
  {
    id: 'compact-search-index',
    sqlite: {
      version: 14,
      name: 'compact search index',
      sql: `
      -- The index format of docs/search.md "Storage": compressed postings with the title and body
      -- positions beside them (instead of a per-document stream), no FTS5 copy of the words (phrases are
      -- checked against the stored text), no copy of the title, short content hashes. The index is derived data: it is emptied
      -- here and rebuilt from its source at the next start (the rebuild mark in the stats table).
      -- Document ids keep counting up (AUTOINCREMENT), so embedded chunks of the old ids become stale.
      DROP TABLE search_text;
      DROP TABLE code_text;
      DELETE FROM search_docs;
      DELETE FROM code_docs;
      ALTER TABLE search_docs DROP COLUMN stream;
      ALTER TABLE code_docs DROP COLUMN stream;
      ALTER TABLE search_docs DROP COLUMN title;
      ALTER TABLE code_docs DROP COLUMN title;
      -- field lengths as numbers (a blob per row made loading a million of them at start take seconds)
      ALTER TABLE search_docs DROP COLUMN lengths;
      ALTER TABLE code_docs DROP COLUMN lengths;
      ALTER TABLE search_docs ADD COLUMN len_title INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE search_docs ADD COLUMN len_headings INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE search_docs ADD COLUMN len_body INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE search_docs ADD COLUMN len_url INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE code_docs ADD COLUMN len_title INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE code_docs ADD COLUMN len_headings INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE code_docs ADD COLUMN len_body INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE code_docs ADD COLUMN len_url INTEGER NOT NULL DEFAULT 0;
      DROP TABLE search_postings;
      DROP TABLE code_postings;
      -- Keyed by segment first: a new segment's rows are appended in term order, and a merged-away
      -- segment is deleted as one range.
      CREATE TABLE search_postings (
        segment  INTEGER NOT NULL,
        term     TEXT NOT NULL,
        n        INTEGER NOT NULL,
        data     BLOB NOT NULL,
        pos      BLOB,
        PRIMARY KEY (segment, term)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE code_postings (
        segment  INTEGER NOT NULL,
        term     TEXT NOT NULL,
        n        INTEGER NOT NULL,
        data     BLOB NOT NULL,
        pos      BLOB,
        PRIMARY KEY (segment, term)
      ) STRICT, WITHOUT ROWID;
      -- A segment's state: 0 open (takes small writes), 1 sealed, 2 being built by a merge, 3 retired
      -- (merged away, its rows deleted in the background), 4 being merged. Readers read states 0, 1 and 4.
      -- A merge holds its segments until lease_ms; a merger that died is rolled back after it.
      ALTER TABLE search_segments RENAME COLUMN sealed TO state;
      ALTER TABLE code_segments RENAME COLUMN sealed TO state;
      ALTER TABLE search_segments ADD COLUMN lease_ms INTEGER;
      ALTER TABLE code_segments ADD COLUMN lease_ms INTEGER;
      -- The lowest document id a segment holds: lists are read in this order, so that the segments of a
      -- bulk load (each a range of ids) join into one ascending list without sorting.
      ALTER TABLE search_segments ADD COLUMN first_doc INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE code_segments ADD COLUMN first_doc INTEGER NOT NULL DEFAULT 0;
      DELETE FROM search_segments;
      DELETE FROM code_segments;
      DELETE FROM search_deleted;
      DELETE FROM code_deleted;
      DELETE FROM search_stats;
      DELETE FROM code_stats;
      INSERT INTO search_stats (key, value) SELECT 'rebuild', 1 WHERE EXISTS (SELECT 1 FROM documents);
      INSERT INTO code_stats (key, value) SELECT 'rebuild', 1 WHERE EXISTS (SELECT 1 FROM code_chunks);
    `,
    },
    pg: {
      none: DERIVED_INDEX,
    },
  },
  {
    id: 'postings-in-blocks',
    sqlite: {
      version: 15,
      name: 'postings in blocks',
      sql: `
      -- A segment's lists many terms to a row (docs/search.md "Storage", src/store/postings.blocks.ts):
      -- a row per term cost more to write and merge than the postings themselves. Each block is keyed
      -- by its segment and its last term (UTF-16BE bytes, so byte order is the writer's string order).
      -- Every write is a segment of its own (no open segment); merges keep them few. The index is
      -- derived data: it is emptied and rebuilt from its source at the next start, as in version 14.
      DROP TABLE search_postings;
      DROP TABLE code_postings;
      CREATE TABLE search_blocks (
        segment  INTEGER NOT NULL,
        last     BLOB NOT NULL,
        terms    BLOB NOT NULL,
        data     BLOB NOT NULL,
        pos      BLOB
      ) STRICT;
      CREATE UNIQUE INDEX search_blocks_key ON search_blocks (segment, last);
      CREATE TABLE code_blocks (
        segment  INTEGER NOT NULL,
        last     BLOB NOT NULL,
        terms    BLOB NOT NULL,
        data     BLOB NOT NULL,
        pos      BLOB
      ) STRICT;
      CREATE UNIQUE INDEX code_blocks_key ON code_blocks (segment, last);
      -- Segment ids are never reused (AUTOINCREMENT): a reader caches a segment's decoded lists by its id.
      DROP TABLE search_segments;
      DROP TABLE code_segments;
      CREATE TABLE search_segments (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        docs       INTEGER NOT NULL,
        state      INTEGER NOT NULL DEFAULT 0,
        lease_ms   INTEGER,
        first_doc  INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE TABLE code_segments (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        docs       INTEGER NOT NULL,
        state      INTEGER NOT NULL DEFAULT 0,
        lease_ms   INTEGER,
        first_doc  INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      -- A code chunk is keyed by its index document's id, not by its URL (which code_docs holds, and
      -- which is made of the chunk's source, path and lines): a rowid table packs its pages (a table
      -- keyed by text with rows this long left a quarter of each page empty). Until the rebuild gives
      -- chunks their index ids, they are numbered below zero, in URL order.
      CREATE TABLE code_chunks_by_id (
        id          INTEGER PRIMARY KEY,
        source      TEXT NOT NULL,
        path        TEXT NOT NULL,
        start_line  INTEGER NOT NULL,
        end_line    INTEGER NOT NULL,
        language    TEXT NOT NULL,
        kind        TEXT NOT NULL,
        symbol      TEXT,
        doc         TEXT,
        code        TEXT NOT NULL,
        -- a doc that is a verbatim part of the code (a docstring) is not stored twice: doc is null and
        -- these say where it is (UTF-16 offsets, as JavaScript's string indexes count)
        doc_at      INTEGER,
        doc_len     INTEGER
      ) STRICT;
      INSERT INTO code_chunks_by_id (id, source, path, start_line, end_line, language, kind, symbol, doc, code)
        SELECT -ROW_NUMBER() OVER (ORDER BY url), source, path, start_line, end_line, language, kind, symbol, doc, code
        FROM code_chunks;
      DROP TABLE code_chunks;
      ALTER TABLE code_chunks_by_id RENAME TO code_chunks;
      CREATE INDEX code_chunks_file ON code_chunks (source, path);
      DELETE FROM search_docs;
      DELETE FROM code_docs;
      DELETE FROM search_deleted;
      DELETE FROM code_deleted;
      DELETE FROM search_stats;
      DELETE FROM code_stats;
      INSERT INTO search_stats (key, value) SELECT 'rebuild', 1 WHERE EXISTS (SELECT 1 FROM documents);
      INSERT INTO code_stats (key, value) SELECT 'rebuild', 1 WHERE EXISTS (SELECT 1 FROM code_chunks);
    `,
    },
    pg: {
      none: DERIVED_INDEX,
    },
  },
  {
    id: 'code-chunk-blocks',
    sqlite: {
      version: 16,
      name: 'code chunk texts in compressed blocks',
      sql: `
      -- A code chunk's text (its code, then its doc unless the doc is inside the code) is stored with
      -- other chunks' in a block of about 2,048 characters, deflated (src/core/code/index/chunk-texts.ts): the code
      -- was most of the code index's bytes. Ids are never reused (AUTOINCREMENT): a reader caches
      -- inflated blocks by id. size: the block's text in UTF-16 units.
      CREATE TABLE code_texts (
        id    INTEGER PRIMARY KEY AUTOINCREMENT,
        size  INTEGER NOT NULL,
        data  BLOB NOT NULL
      ) STRICT;
      -- A chunk's text is at text_at in block text (code_len units of code; its doc at doc_at from the
      -- code's start, doc_len long). Chunks of before this version keep code and doc inline (text null;
      -- doc null when the doc is inside the code, at doc_at) until their file is indexed again.
      CREATE TABLE code_chunks_v16 (
        id          INTEGER PRIMARY KEY,
        source      TEXT NOT NULL,
        path        TEXT NOT NULL,
        start_line  INTEGER NOT NULL,
        end_line    INTEGER NOT NULL,
        language    TEXT NOT NULL,
        kind        TEXT NOT NULL,
        symbol      TEXT,
        text        INTEGER,
        text_at     INTEGER,
        code_len    INTEGER,
        doc_at      INTEGER,
        doc_len     INTEGER,
        code        TEXT,
        doc         TEXT
      ) STRICT;
      INSERT INTO code_chunks_v16 (id, source, path, start_line, end_line, language, kind, symbol, doc_at,
        doc_len, code, doc)
        SELECT id, source, path, start_line, end_line, language, kind, symbol, doc_at, doc_len, code, doc
        FROM code_chunks;
      DROP TABLE code_chunks;
      ALTER TABLE code_chunks_v16 RENAME TO code_chunks;
      CREATE INDEX code_chunks_file ON code_chunks (source, path);
      -- a block's chunks, to drop or repack a block once its chunks are mostly gone
      CREATE INDEX code_chunks_text ON code_chunks (text);
    `,
    },
    pg: {
      none: DERIVED_INDEX,
    },
  },
  {
    id: 'replica-state',
    sqlite: {
      version: 17,
      name: 'replica state',
      sql: `
      -- Where this process's derived copies stand in a shared database's logs (a replica's place in the
      -- PostgreSQL document log), written in the transaction that applies what it read.
      CREATE TABLE replica_state (
        name   TEXT PRIMARY KEY,
        value  TEXT NOT NULL
      ) STRICT;
    `,
    },
    pg: {
      none: 'where a replica stands in the shared logs is its own state, kept in its SQLite file (this entry’s SQLite side)',
    },
  },
  {
    id: 'page-markdown',
    sqlite: {
      none: 'a single process takes a page’s code examples when it stores the page (core/code/index/doc-examples.ts); only replicas read them back from the Markdown',
    },
    pg: {
      version: 13,
      name: "a fetched page's Markdown, for its code examples",
      sql: `
      -- The stored text of an HTML page is plain; the code examples each replica puts in its code index
      -- come from the fences of its Markdown (core/code/index/doc-examples.ts), kept for pages with fences.
      ALTER TABLE documents ADD COLUMN markdown TEXT;
    `,
    },
  },
  {
    id: 'replicas-seen',
    sqlite: { none: 'a SQLite store serves one data directory: there are no replicas to list' },
    pg: {
      version: 14,
      name: 'replicas seen',
      sql: `
      -- Each serving replica's heartbeat (replicas.pg.ts): who it is, when it was last seen, and how far
      -- its copy of the documents is behind the shared log, for trawl doctor and GET /status.
      CREATE TABLE replicas (
        id            TEXT PRIMARY KEY,
        host          TEXT NOT NULL,
        pid           INTEGER NOT NULL,
        version       TEXT NOT NULL,
        started_at    TIMESTAMPTZ NOT NULL,
        seen_at       TIMESTAMPTZ NOT NULL,
        behind        BIGINT NOT NULL,
        caught_up_at  TIMESTAMPTZ
      );
      CREATE INDEX replicas_seen ON replicas (seen_at);
    `,
    },
  },
  {
    id: 'owners-and-audit',
    sqlite: {
      version: 18,
      name: 'owners and the audit log',
      sql: `
      -- Every stored resource has an owning team (src/core/access/access.ts). Rows made before owners
      -- existed get the team of the key that made them where the row names one, else the team default.
      ALTER TABLE monitors ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      UPDATE monitors SET team_id = COALESCE((SELECT team_id FROM api_keys WHERE id = monitors.key_id), 'team_default');
      CREATE INDEX monitors_team ON monitors (team_id, seq);
      -- a delivery outlives its monitor (monitor.deleted), so it carries the monitor's team itself
      ALTER TABLE webhook_deliveries ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      UPDATE webhook_deliveries SET team_id = COALESCE(
        (SELECT team_id FROM monitors WHERE id = webhook_deliveries.monitor_id), 'team_default');
      ALTER TABLE agent_runs ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      UPDATE agent_runs SET team_id = COALESCE((SELECT team_id FROM api_keys WHERE id = agent_runs.key_id), 'team_default');
      ALTER TABLE mcp_tasks ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      UPDATE mcp_tasks SET team_id = COALESCE((SELECT team_id FROM api_keys WHERE id = mcp_tasks.owner), 'team_default');
      ALTER TABLE mcp_snapshots ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      UPDATE mcp_snapshots SET team_id = COALESCE((SELECT team_id FROM api_keys WHERE id = mcp_snapshots.owner), 'team_default');
      -- crawls are the operator's (the CLI's): they belong to the team default
      ALTER TABLE crawl_jobs ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';

      -- Changes made to a team's accounts (its keys, flags, credits, budget), by whom: any door, the CLI
      -- included. actor_key_id NULL: the local process (the CLI). The team acted on reads its own records.
      CREATE TABLE audit_log (
        seq            INTEGER PRIMARY KEY AUTOINCREMENT,
        at             TEXT NOT NULL,
        team_id        TEXT NOT NULL,
        actor_key_id   TEXT,
        actor_team_id  TEXT,
        action         TEXT NOT NULL,
        target         TEXT NOT NULL,
        detail         TEXT
      ) STRICT;
      CREATE INDEX audit_log_team ON audit_log (team_id, seq);
    `,
    },
    pg: {
      version: 15,
      name: 'owners and the audit log',
      sql: `
      -- Every stored resource has an owning team (src/core/access/access.ts). Rows made before owners
      -- existed get the team of the key that made them where the row names one, else the team default.
      ALTER TABLE monitors ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      UPDATE monitors m SET team_id = k.team_id FROM api_keys k WHERE k.id = m.key_id;
      CREATE INDEX monitors_team ON monitors (team_id, seq);
      -- a delivery outlives its monitor (monitor.deleted), so it carries the monitor's team itself
      ALTER TABLE webhook_deliveries ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      UPDATE webhook_deliveries d SET team_id = m.team_id FROM monitors m WHERE m.id = d.monitor_id;
      ALTER TABLE agent_runs ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      UPDATE agent_runs r SET team_id = k.team_id FROM api_keys k WHERE k.id = r.key_id;
      ALTER TABLE mcp_tasks ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      UPDATE mcp_tasks t SET team_id = k.team_id FROM api_keys k WHERE k.id = t.owner;
      ALTER TABLE mcp_snapshots ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      UPDATE mcp_snapshots s SET team_id = k.team_id FROM api_keys k WHERE k.id = s.owner;
      -- crawls are the operator's (the CLI's): they belong to the team default
      ALTER TABLE crawl_jobs ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';

      -- Changes made to a team's accounts (its keys, flags, credits, budget), by whom: any door, the CLI
      -- included. actor_key_id NULL: the local process (the CLI). The team acted on reads its own records.
      CREATE TABLE audit_log (
        seq            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at             TEXT NOT NULL,
        team_id        TEXT NOT NULL,
        actor_key_id   TEXT,
        actor_team_id  TEXT,
        action         TEXT NOT NULL,
        target         TEXT NOT NULL,
        detail         TEXT
      );
      CREATE INDEX audit_log_team ON audit_log (team_id, seq);
    `,
    },
  },
];
