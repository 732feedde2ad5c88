/**
 * Migrations of retention (issue 37): the lease of the retention sweep (`maintenance`), the monthly
 * totals usage is folded into before its daily rows go (`usage_months`, `latency_months`), the indexes
 * SQLite's batched deletes walk, and on PostgreSQL the growing tables (spend, request latency, agent
 * events) converted to tables partitioned by month, rows kept: a month past retention is then dropped
 * whole. A partitioned table's unique keys must hold its partition key: spend and latency keys already
 * hold `day`; agent events' key becomes (run_id, seq, created_at), and (run_id, seq) stays unique because
 * a run's events are numbered under its lock (pg/agent-runs.ts `append`).
 */
import type { Migration, MigrationEntry } from './migration.js';

/** What differs between the dialects: the integer type and SQLite's table options. */
interface Dialect {
  integer: 'INTEGER' | 'BIGINT';
  strict: string;
  withoutRowid: string;
}

const commonTables = ({ integer, strict, withoutRowid }: Dialect) => `
      -- a background job of the whole store (name 'retention': the sweep), held by one process at a time
      -- under a lease (store/contracts/leases.ts); next_run_ms: when the periodic sweep is next due
      CREATE TABLE maintenance (
        name            TEXT PRIMARY KEY,
        owner           TEXT,
        lease_until_ms  ${integer},
        next_run_ms     ${integer} NOT NULL DEFAULT 0,
        last_run_ms     ${integer},
        last_report     TEXT
      )${strict};
      INSERT INTO maintenance (name) VALUES ('retention');
      -- spend folded by month (YYYY-MM) once its days are past retention: with spend's rows, the same sums
      CREATE TABLE usage_months (
        team_id    TEXT NOT NULL,
        key_id     TEXT NOT NULL,
        month      TEXT NOT NULL,
        operation  TEXT NOT NULL,
        requests   ${integer} NOT NULL,
        micros     ${integer} NOT NULL,
        PRIMARY KEY (team_id, key_id, month, operation)
      )${strict}${withoutRowid};
      CREATE INDEX usage_months_month ON usage_months (month);
      -- request latency buckets folded by month, as spend is
      CREATE TABLE latency_months (
        team_id    TEXT NOT NULL,
        key_id     TEXT NOT NULL,
        month      TEXT NOT NULL,
        operation  TEXT NOT NULL,
        bucket     ${integer} NOT NULL,
        requests   ${integer} NOT NULL,
        PRIMARY KEY (team_id, key_id, month, operation, bucket)
      )${strict}${withoutRowid};
      CREATE INDEX latency_months_month ON latency_months (month);`;

const sqliteRetention = (version: number): Migration => ({
  version,
  name: 'retention',
  sql: `${commonTables({ integer: 'INTEGER', strict: ' STRICT', withoutRowid: ', WITHOUT ROWID' })}
      -- the sweep's batches walk these: spend and latency by day, runs and crawls by their end
      CREATE INDEX spend_day ON spend (day);
      CREATE INDEX request_latency_day ON request_latency (day);
      CREATE INDEX agent_runs_ended ON agent_runs (updated_at) WHERE status NOT IN ('queued', 'running');
      CREATE INDEX monitor_runs_ended ON monitor_runs (updated_at) WHERE status NOT IN ('pending', 'running');
      CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at) WHERE status <> 'pending';
    `,
});

/**
 * The SQL that turns `table` into a table partitioned by month on `column` with its rows: a partitioned
 * twin with the same columns and primary key `key` (which holds `column`), a partition for every month
 * its rows have (`<table>_y2026m11`, as pg/retention.ts names them), a default partition for any other
 * month (the first sweep makes this month's and the next two, moving their rows in), the rows copied,
 * the old table dropped, `indexes` made again.
 */
function byMonth(table: string, column: string, key: string, indexes: string): string {
  const twin = `${table}_by_month`;
  return `
      CREATE TABLE ${twin} (LIKE ${table} INCLUDING DEFAULTS, PRIMARY KEY (${key})) PARTITION BY RANGE (${column});
      CREATE TABLE ${table}_default PARTITION OF ${twin} DEFAULT;
      DO $$
      DECLARE m text;
      BEGIN
        FOR m IN
          SELECT DISTINCT substr(${column}, 1, 7) FROM ${table} WHERE ${column} ~ '^[0-9]{4}-[0-9]{2}'
        LOOP
          EXECUTE format('CREATE TABLE %I PARTITION OF ${twin} FOR VALUES FROM (%L) TO (%L)',
            '${table}_y' || substr(m, 1, 4) || 'm' || substr(m, 6, 2), m || '-01',
            to_char(to_date(m || '-01', 'YYYY-MM-DD') + interval '1 month', 'YYYY-MM-DD'));
        END LOOP;
      END $$;
      INSERT INTO ${twin} SELECT * FROM ${table};
      DROP TABLE ${table};
      ALTER TABLE ${twin} RENAME TO ${table};
      ALTER TABLE ${table} RENAME CONSTRAINT ${twin}_pkey TO ${table}_pkey;${indexes}`;
}

const pgRetention = (version: number): Migration => ({
  version,
  name: 'retention, and the growing tables partitioned by month',
  sql: `${commonTables({ integer: 'BIGINT', strict: '', withoutRowid: '' })}
      -- a run's events are dropped by the run's end (agent_runs.updated_at once it ended)
      CREATE INDEX agent_runs_ended ON agent_runs (updated_at) WHERE status NOT IN ('queued', 'running');
      CREATE INDEX monitor_runs_ended ON monitor_runs (updated_at) WHERE status NOT IN ('pending', 'running');
      CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at) WHERE status <> 'pending';
      ${byMonth('spend', 'day', 'key_id, day, operation', '\n      CREATE INDEX spend_team ON spend (team_id, day);')}
      ${byMonth('request_latency', 'day', 'key_id, day, operation, bucket', '\n      CREATE INDEX request_latency_team ON request_latency (team_id, day);')}
      ${byMonth('agent_events', 'created_at', 'run_id, seq, created_at', '')}
    `,
});

export const RETENTION: readonly MigrationEntry[] = [
  { id: 'retention', sqlite: sqliteRetention(23), pg: pgRetention(20) },
];
