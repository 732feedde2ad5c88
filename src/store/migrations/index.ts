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
  {
    version: 8,
    name: 'monitors',
    sql: `
      -- Monitors: scheduled searches. seq orders them for cursor pagination (newest first).
      CREATE TABLE monitors (
        seq             INTEGER PRIMARY KEY AUTOINCREMENT,
        id              TEXT NOT NULL UNIQUE,
        name            TEXT,
        status          TEXT NOT NULL,
        search          TEXT NOT NULL,
        period          TEXT,
        output_schema   TEXT,
        metadata        TEXT,
        webhook_url     TEXT NOT NULL,
        webhook_events  TEXT,
        -- the webhook secret, sealed under the operator key (src/core/monitors/secret-box.ts)
        secret          TEXT NOT NULL,
        -- the API key the monitor runs as (NULL: made by the local stdio MCP process or the CLI)
        key_id          TEXT,
        -- creation time plus the monitor's jitter; runs fall on anchor + k x period
        anchor_ms       INTEGER NOT NULL,
        -- the next scheduled run; NULL when none will happen (manual-only, paused, disabled)
        next_run_ms     INTEGER,
        key_failures    INTEGER NOT NULL DEFAULT 0,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL
      ) STRICT;
      CREATE INDEX monitors_due ON monitors (next_run_ms) WHERE next_run_ms IS NOT NULL;
      CREATE INDEX monitors_status ON monitors (status, seq);

      -- Runs of monitors. owner and lease_until_ms: the process running it, and until when it answers for
      -- it; a run whose lease lapsed belongs to a process that died.
      CREATE TABLE monitor_runs (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        id               TEXT NOT NULL UNIQUE,
        monitor_id       TEXT NOT NULL,
        status           TEXT NOT NULL,
        origin           TEXT NOT NULL,
        output           TEXT,
        fail_reason      TEXT,
        fail_detail      TEXT,
        started_at       TEXT,
        completed_at     TEXT,
        failed_at        TEXT,
        cancelled_at     TEXT,
        duration_ms      INTEGER,
        owner            TEXT,
        lease_until_ms   INTEGER,
        created_at       TEXT NOT NULL,
        updated_at       TEXT NOT NULL
      ) STRICT;
      CREATE INDEX monitor_runs_monitor ON monitor_runs (monitor_id, seq);
      CREATE INDEX monitor_runs_open ON monitor_runs (status) WHERE status IN ('pending', 'running');

      -- The webhook outbox: each event written in the transaction of the change it reports, then
      -- delivered at least once. The body is the exact JSON posted; the secret a sealed copy, since a
      -- monitor.deleted event outlives its monitor.
      CREATE TABLE webhook_deliveries (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id         TEXT NOT NULL UNIQUE,
        monitor_id       TEXT NOT NULL,
        event_type       TEXT NOT NULL,
        url              TEXT NOT NULL,
        secret           TEXT NOT NULL,
        body             TEXT NOT NULL,
        status           TEXT NOT NULL,
        attempts         INTEGER NOT NULL DEFAULT 0,
        next_attempt_ms  INTEGER,
        lease_until_ms   INTEGER,
        give_up_ms       INTEGER NOT NULL,
        last_error       TEXT,
        created_at       TEXT NOT NULL,
        delivered_at     TEXT
      ) STRICT;
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_ms) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_monitor ON webhook_deliveries (monitor_id, seq);
      CREATE TABLE webhook_attempts (
        delivery_seq  INTEGER NOT NULL,
        attempt       INTEGER NOT NULL,
        at            TEXT NOT NULL,
        status        INTEGER,
        error         TEXT,
        duration_ms   INTEGER NOT NULL,
        PRIMARY KEY (delivery_seq, attempt)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 9,
    name: 'accounts',
    sql: `
      -- Teams own keys, credits and budgets. credits_micros NULL: no credit limit (the self-hosted default).
      -- Money is in micro-dollars (1e-6 $), integers, so sums are exact.
      CREATE TABLE teams (
        id              TEXT PRIMARY KEY,
        name            TEXT NOT NULL UNIQUE,
        blocked_at      TEXT,
        enterprise      INTEGER NOT NULL DEFAULT 0,
        zero_retention  INTEGER NOT NULL DEFAULT 0,
        credits_micros  INTEGER,
        budget_micros   INTEGER,
        budget_period   TEXT,
        created_at      TEXT NOT NULL
      ) STRICT;
      INSERT INTO teams (id, name, created_at) VALUES ('team_default', 'default', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
      -- scopes: JSON array of scope names; NULL: every scope (keys made before scopes, and plain keys).
      ALTER TABLE api_keys ADD COLUMN team_id TEXT NOT NULL DEFAULT 'team_default';
      ALTER TABLE api_keys ADD COLUMN scopes TEXT;
      ALTER TABLE api_keys ADD COLUMN budget_micros INTEGER;
      ALTER TABLE api_keys ADD COLUMN budget_period TEXT;
      ALTER TABLE api_keys ADD COLUMN qps REAL;
      CREATE INDEX api_keys_team ON api_keys (team_id);

      -- What was spent, per key, UTC day and operation (key_id '' for calls without a key).
      CREATE TABLE spend (
        key_id     TEXT NOT NULL,
        team_id    TEXT NOT NULL,
        day        TEXT NOT NULL,
        operation  TEXT NOT NULL,
        requests   INTEGER NOT NULL,
        micros     INTEGER NOT NULL,
        PRIMARY KEY (key_id, day, operation)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX spend_team ON spend (team_id, day);

      -- Money held by requests in flight (the most each can cost), so concurrent requests cannot spend the
      -- same credit twice; released when the request ends, or when expires_ms passes (a process died).
      CREATE TABLE holds (
        id             TEXT PRIMARY KEY,
        key_id         TEXT NOT NULL,
        team_id        TEXT NOT NULL,
        amount_micros  INTEGER NOT NULL,
        expires_ms     INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX holds_team ON holds (team_id);
      CREATE INDEX holds_key ON holds (key_id);

      -- Request-rate token buckets, one per key, shared by every process on the data directory.
      CREATE TABLE rate_buckets (
        key_id      TEXT PRIMARY KEY,
        tokens      REAL NOT NULL,
        updated_ms  INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 10,
    name: 'agent runs',
    sql: `
      -- Agent runs and their events. seq orders runs for cursor pagination (newest first); the request,
      -- output, cost and usage are JSON. owner and lease_until_ms: the process running it (as for monitor runs).
      CREATE TABLE agent_runs (
        seq             INTEGER PRIMARY KEY AUTOINCREMENT,
        id              TEXT NOT NULL UNIQUE,
        key_id          TEXT NOT NULL,
        status          TEXT NOT NULL,
        -- a zero-retention team's run: its request, output and events are erased (docs/agent.md)
        zero_retention  INTEGER NOT NULL DEFAULT 0,
        request         TEXT NOT NULL,
        output          TEXT,
        cost            TEXT,
        usage           TEXT,
        error           TEXT,
        stop_reason     TEXT,
        owner           TEXT,
        lease_until_ms  INTEGER,
        created_at      TEXT NOT NULL,
        started_at      TEXT,
        completed_at    TEXT,
        updated_at      TEXT NOT NULL
      ) STRICT;
      CREATE INDEX agent_runs_key ON agent_runs (key_id, seq);
      CREATE INDEX agent_runs_open ON agent_runs (status) WHERE status IN ('queued', 'running');
      -- Events of a run: seq is the event id (1, 2, ...), the SSE id a client resumes from.
      CREATE TABLE agent_events (
        run_id      TEXT NOT NULL,
        seq         INTEGER NOT NULL,
        event       TEXT NOT NULL,
        data        TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 11,
    name: 'mcp answer snapshots',
    sql: `
      -- The first answer of an MCP tool call that did not fit its token budget, kept so that a cursor
      -- continues exactly that answer (docs/mcp.md). owner: the API key id, or 'local' over stdio.
      CREATE TABLE mcp_snapshots (
        id          TEXT PRIMARY KEY,
        owner       TEXT NOT NULL,
        tool        TEXT NOT NULL,
        args_hash   TEXT NOT NULL,
        body        TEXT NOT NULL,
        created_ms  INTEGER NOT NULL,
        expires_ms  INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX mcp_snapshots_expiry ON mcp_snapshots (expires_ms);
    `,
  },
  {
    version: 12,
    name: 'mcp tasks',
    sql: `
      -- MCP tasks: tool calls that run on after their request (docs/mcp.md, src/mcp/tasks/). owner: the
      -- API key id, or 'local' over stdio; a task is visible to its owner only. seq orders tasks/list
      -- (newest first). result: the CallToolResult as JSON once the task ended. run_id: the agent run a
      -- task follows (its status and result come from the run). worker and lease_until_ms: the process
      -- doing in-process work, renewed while it works; a lapsed lease means that process died.
      CREATE TABLE mcp_tasks (
        seq               INTEGER PRIMARY KEY AUTOINCREMENT,
        id                TEXT NOT NULL UNIQUE,
        owner             TEXT NOT NULL,
        tool              TEXT NOT NULL,
        status            TEXT NOT NULL,
        status_message    TEXT,
        ttl_ms            INTEGER NOT NULL,
        poll_interval_ms  INTEGER NOT NULL,
        created_at        TEXT NOT NULL,
        last_updated_at   TEXT NOT NULL,
        updated_ms        INTEGER NOT NULL,
        expires_ms        INTEGER NOT NULL,
        result            TEXT,
        run_id            TEXT,
        worker            TEXT,
        lease_until_ms    INTEGER
      ) STRICT;
      CREATE INDEX mcp_tasks_owner ON mcp_tasks (owner, seq);
      CREATE INDEX mcp_tasks_expiry ON mcp_tasks (expires_ms);
    `,
  },
  {
    version: 13,
    name: 'agent run progress',
    sql: `
      -- An agent run's research state at its last completed step (JSON: the steps' results, the sources
      -- found, the searches and tokens counted), so that a run whose process died resumes from there.
      ALTER TABLE agent_runs ADD COLUMN progress TEXT;
    `,
  },
  {
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
  {
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
  {
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
  {
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
  {
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
];
