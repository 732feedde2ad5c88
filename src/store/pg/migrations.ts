/**
 * The PostgreSQL schema, as migrations applied in order (`migratePg`). Within a release line they are
 * additive, so a replica of the previous version keeps running on the new schema during a rolling
 * restart. Times are ISO-8601 text, as in the SQLite store, so both backends return the same rows.
 */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'teams and API keys',
    sql: `
      CREATE TABLE teams (
        id              TEXT PRIMARY KEY,
        name            TEXT NOT NULL UNIQUE,
        blocked_at      TEXT,
        enterprise      INTEGER NOT NULL DEFAULT 0,
        zero_retention  INTEGER NOT NULL DEFAULT 0,
        credits_micros  BIGINT,
        budget_micros   BIGINT,
        budget_period   TEXT,
        created_at      TEXT NOT NULL
      );
      INSERT INTO teams (id, name, created_at)
        VALUES ('team_default', 'default', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
      CREATE TABLE api_keys (
        id            TEXT PRIMARY KEY,
        name          TEXT NOT NULL,
        hash          TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        last_used_at  TEXT,
        revoked_at    TEXT,
        team_id       TEXT NOT NULL DEFAULT 'team_default',
        scopes        TEXT,
        budget_micros BIGINT,
        budget_period TEXT,
        qps           DOUBLE PRECISION
      );
      CREATE INDEX api_keys_active ON api_keys (revoked_at);
      CREATE INDEX api_keys_team ON api_keys (team_id);
    `,
  },
  {
    version: 2,
    name: 'rate buckets',
    sql: `
      CREATE TABLE rate_buckets (
        key_id      TEXT PRIMARY KEY,
        tokens      DOUBLE PRECISION NOT NULL,
        updated_ms  BIGINT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'spend and holds',
    sql: `
      CREATE TABLE spend (
        key_id     TEXT NOT NULL,
        team_id    TEXT NOT NULL,
        day        TEXT NOT NULL,
        operation  TEXT NOT NULL,
        requests   BIGINT NOT NULL,
        micros     BIGINT NOT NULL,
        PRIMARY KEY (key_id, day, operation)
      );
      CREATE INDEX spend_team ON spend (team_id, day);
      CREATE TABLE holds (
        id             TEXT PRIMARY KEY,
        key_id         TEXT NOT NULL,
        team_id        TEXT NOT NULL,
        amount_micros  BIGINT NOT NULL,
        expires_ms     BIGINT NOT NULL
      );
      CREATE INDEX holds_team ON holds (team_id);
      CREATE INDEX holds_key ON holds (key_id);
    `,
  },
  {
    version: 4,
    name: 'MCP answer snapshots and tasks',
    sql: `
      CREATE TABLE mcp_snapshots (
        id          TEXT PRIMARY KEY,
        owner       TEXT NOT NULL,
        tool        TEXT NOT NULL,
        args_hash   TEXT NOT NULL,
        body        TEXT NOT NULL,
        created_ms  BIGINT NOT NULL,
        expires_ms  BIGINT NOT NULL
      );
      CREATE INDEX mcp_snapshots_expiry ON mcp_snapshots (expires_ms);
      CREATE TABLE mcp_tasks (
        seq               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id                TEXT NOT NULL UNIQUE,
        owner             TEXT NOT NULL,
        tool              TEXT NOT NULL,
        status            TEXT NOT NULL,
        status_message    TEXT,
        ttl_ms            BIGINT NOT NULL,
        poll_interval_ms  BIGINT NOT NULL,
        created_at        TEXT NOT NULL,
        last_updated_at   TEXT NOT NULL,
        updated_ms        BIGINT NOT NULL,
        expires_ms        BIGINT NOT NULL,
        result            TEXT,
        run_id            TEXT,
        worker            TEXT,
        lease_until_ms    BIGINT
      );
      CREATE INDEX mcp_tasks_owner ON mcp_tasks (owner, seq);
      CREATE INDEX mcp_tasks_expiry ON mcp_tasks (expires_ms);
    `,
  },
  {
    version: 5,
    name: 'agent runs and their events',
    sql: `
      CREATE TABLE agent_runs (
        seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id              TEXT NOT NULL UNIQUE,
        key_id          TEXT NOT NULL,
        status          TEXT NOT NULL,
        zero_retention  INTEGER NOT NULL DEFAULT 0,
        request         TEXT NOT NULL,
        output          TEXT,
        cost            TEXT,
        usage           TEXT,
        error           TEXT,
        stop_reason     TEXT,
        owner           TEXT,
        lease_until_ms  BIGINT,
        progress        TEXT,
        created_at      TEXT NOT NULL,
        started_at      TEXT,
        completed_at    TEXT,
        updated_at      TEXT NOT NULL
      );
      CREATE INDEX agent_runs_key ON agent_runs (key_id, seq);
      CREATE INDEX agent_runs_open ON agent_runs (status) WHERE status IN ('queued', 'running');
      CREATE TABLE agent_events (
        run_id      TEXT NOT NULL,
        seq         BIGINT NOT NULL,
        event       TEXT NOT NULL,
        data        TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
    `,
  },
  {
    version: 6,
    name: 'monitors, their runs and the webhook outbox',
    sql: `
      CREATE TABLE monitors (
        seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id              TEXT NOT NULL UNIQUE,
        name            TEXT,
        status          TEXT NOT NULL,
        search          TEXT NOT NULL,
        period          TEXT,
        output_schema   TEXT,
        metadata        TEXT,
        webhook_url     TEXT NOT NULL,
        webhook_events  TEXT,
        secret          TEXT NOT NULL,
        key_id          TEXT,
        anchor_ms       BIGINT NOT NULL,
        next_run_ms     BIGINT,
        key_failures    INTEGER NOT NULL DEFAULT 0,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL
      );
      CREATE INDEX monitors_due ON monitors (next_run_ms) WHERE next_run_ms IS NOT NULL;
      CREATE INDEX monitors_status ON monitors (status, seq);
      CREATE TABLE monitor_runs (
        seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
        duration_ms      BIGINT,
        owner            TEXT,
        lease_until_ms   BIGINT,
        created_at       TEXT NOT NULL,
        updated_at       TEXT NOT NULL
      );
      CREATE INDEX monitor_runs_monitor ON monitor_runs (monitor_id, seq);
      CREATE INDEX monitor_runs_open ON monitor_runs (status) WHERE status IN ('pending', 'running');
      CREATE TABLE webhook_deliveries (
        seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id         TEXT NOT NULL UNIQUE,
        monitor_id       TEXT NOT NULL,
        event_type       TEXT NOT NULL,
        url              TEXT NOT NULL,
        secret           TEXT NOT NULL,
        body             TEXT NOT NULL,
        status           TEXT NOT NULL,
        attempts         INTEGER NOT NULL DEFAULT 0,
        next_attempt_ms  BIGINT,
        lease_until_ms   BIGINT,
        give_up_ms       BIGINT NOT NULL,
        last_error       TEXT,
        created_at       TEXT NOT NULL,
        delivered_at     TEXT
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_ms) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_monitor ON webhook_deliveries (monitor_id, seq);
      CREATE TABLE webhook_attempts (
        delivery_seq  BIGINT NOT NULL,
        attempt       INTEGER NOT NULL,
        at            TEXT NOT NULL,
        status        INTEGER,
        error         TEXT,
        duration_ms   BIGINT NOT NULL,
        PRIMARY KEY (delivery_seq, attempt)
      );
    `,
  },
  {
    version: 7,
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
      );
      CREATE INDEX documents_updated ON documents (updated_at);
      CREATE INDEX documents_collection ON documents (collection);
    `,
  },
  {
    version: 8,
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
      );
      CREATE TABLE crawl_frontier (
        id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        job_id      TEXT NOT NULL REFERENCES crawl_jobs (id) ON DELETE CASCADE,
        url         TEXT NOT NULL,
        depth       INTEGER NOT NULL,
        state       TEXT NOT NULL CHECK (state IN ('queued', 'done', 'failed')),
        error_tag   TEXT,
        error       TEXT,
        http_status INTEGER,
        updated_at  TEXT NOT NULL,
        UNIQUE (job_id, url)
      );
      CREATE INDEX crawl_frontier_next ON crawl_frontier (job_id, state, depth, id);
    `,
  },
  {
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
  {
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
  {
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
  {
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
  {
    version: 13,
    name: "a fetched page's Markdown, for its code examples",
    sql: `
      -- The stored text of an HTML page is plain; the code examples each replica puts in its code index
      -- come from the fences of its Markdown (core/code/index/doc-examples.ts), kept for pages with fences.
      ALTER TABLE documents ADD COLUMN markdown TEXT;
    `,
  },
  {
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
  {
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
];
