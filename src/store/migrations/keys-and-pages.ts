/**
 * The first store migrations (the whole list is ./index.ts): API keys and teams, then PostgreSQL's
 * first schema of accounts, MCP answers, agent runs and monitors, and the documents and crawl tables
 * both dialects made early. Append only: a released entry never changes.
 */
import type { MigrationEntry } from './migration.js';

export const KEYS_AND_PAGES: readonly MigrationEntry[] = [
  {
    id: 'api-keys',
    sqlite: {
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
    pg: {
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
  },
  {
    id: 'rate-buckets',
    sqlite: { none: 'SQLite: in migration 9 (accounts)' },
    pg: {
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
  },
  {
    id: 'spend-and-holds',
    sqlite: { none: 'SQLite: in migration 9 (accounts)' },
    pg: {
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
  },
  {
    id: 'mcp-snapshots-and-tasks',
    sqlite: { none: 'SQLite: migrations 11 (mcp answer snapshots) and 12 (mcp tasks)' },
    pg: {
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
  },
  {
    id: 'agent-runs',
    sqlite: { none: 'SQLite: migrations 10 (agent runs) and 13 (agent run progress)' },
    pg: {
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
  },
  {
    id: 'monitors',
    sqlite: { none: 'SQLite: migration 8 (monitors)' },
    pg: {
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
  },
  {
    id: 'documents',
    sqlite: {
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
    pg: {
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
  },
  {
    id: 'crawl',
    sqlite: {
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
    pg: {
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
  },
];
