/**
 * Store migrations, continued (the whole list is ./index.ts): SQLite's tables of monitors, accounts,
 * agent runs and MCP answers and tasks (PostgreSQL made its own in ./keys-and-pages.ts). Append only:
 * a released entry never changes.
 */
import type { MigrationEntry } from './migration.js';

export const JOBS_AND_ACCOUNTS: readonly MigrationEntry[] = [
  {
    id: 'monitors-sqlite',
    sqlite: {
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
    pg: { none: 'PostgreSQL: migration 6 (monitors, their runs and the webhook outbox)' },
  },
  {
    id: 'accounts',
    sqlite: {
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
    pg: { none: 'PostgreSQL: migrations 1 (teams and API keys), 2 (rate buckets) and 3 (spend and holds)' },
  },
  {
    id: 'agent-runs-sqlite',
    sqlite: {
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
    pg: { none: 'PostgreSQL: migration 5 (agent runs and their events)' },
  },
  {
    id: 'mcp-snapshots',
    sqlite: {
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
    pg: { none: 'PostgreSQL: migration 4 (MCP answer snapshots and tasks)' },
  },
  {
    id: 'mcp-tasks',
    sqlite: {
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
    pg: { none: 'PostgreSQL: migration 4 (MCP answer snapshots and tasks)' },
  },
  {
    id: 'agent-run-progress',
    sqlite: {
      version: 13,
      name: 'agent run progress',
      sql: `
      -- An agent run's research state at its last completed step (JSON: the steps' results, the sources
      -- found, the searches and tokens counted), so that a run whose process died resumes from there.
      ALTER TABLE agent_runs ADD COLUMN progress TEXT;
    `,
    },
    pg: { none: 'PostgreSQL: agent_runs.progress is in migration 5 (agent runs and their events)' },
  },
];
