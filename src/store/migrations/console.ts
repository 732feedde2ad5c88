/**
 * Migrations of the web console (issue 36): its sign-in sessions, the latency of every metered request
 * (the usage charts' p50 and p95, beside `spend`'s counts and money), and the operator's background jobs
 * started from the console (a crawl, an import of an uploaded file, a code index), whose progress any
 * replica can show.
 */
import type { Migration, MigrationEntry } from './migration.js';

/** What differs between the dialects: the integer type, STRICT tables, and an auto-numbered key. */
interface Dialect {
  integer: 'INTEGER' | 'BIGINT';
  strict: string;
  serial: string;
}

const consoleTables = (version: number, { integer, strict, serial }: Dialect): Migration => ({
  version,
  name: 'console sessions, request latency and operator jobs',
  sql: `
      -- a console sign-in: the SHA-256 of the cookie's value (never the value), the key it acts as, and
      -- the CSRF token every request of the session must echo; it ends at expires_ms, on sign-out,
      -- or when its key is revoked or its team blocked (checked on every request)
      CREATE TABLE console_sessions (
        id_hash       TEXT PRIMARY KEY,
        key_id        TEXT NOT NULL,
        team_id       TEXT NOT NULL,
        csrf          TEXT NOT NULL,
        -- the scopes of the sign-in when narrower than the key's (an OAuth grant's), comma-separated
        scopes        TEXT,
        created_ms    ${integer} NOT NULL,
        expires_ms    ${integer} NOT NULL,
        last_seen_ms  ${integer} NOT NULL
      )${strict};
      CREATE INDEX console_sessions_key ON console_sessions (key_id);
      CREATE INDEX console_sessions_expiry ON console_sessions (expires_ms);
      -- how long metered requests took, per key, UTC day and operation, as counts in log buckets
      -- (bucket b holds durations in [1.2^(b-1), 1.2^b) ms): p50 and p95 to within 20 %
      CREATE TABLE request_latency (
        key_id     TEXT NOT NULL,
        team_id    TEXT NOT NULL,
        day        TEXT NOT NULL,
        operation  TEXT NOT NULL,
        bucket     ${integer} NOT NULL,
        requests   ${integer} NOT NULL,
        PRIMARY KEY (key_id, day, operation, bucket)
      )${strict};
      CREATE INDEX request_latency_team ON request_latency (team_id, day);
      -- a job an operator started from the console: kind crawl, import or code; progress and result JSON;
      -- state running, completed, failed or interrupted; owner and lease_until_ms: the process running it
      -- (a lapsed lease reads interrupted); seq orders the list and its cursor
      CREATE TABLE operator_jobs (
        seq          ${serial},
        id           TEXT NOT NULL UNIQUE,
        kind         TEXT NOT NULL,
        key_id       TEXT NOT NULL,
        team_id      TEXT NOT NULL,
        input        TEXT NOT NULL,
        state        TEXT NOT NULL,
        progress     TEXT,
        result       TEXT,
        error        TEXT,
        owner        TEXT,
        lease_until_ms ${integer},
        created_at   TEXT NOT NULL,
        updated_at   TEXT NOT NULL
      )${strict};
    `,
});

export const CONSOLE: readonly MigrationEntry[] = [
  {
    id: 'console',
    sqlite: consoleTables(22, { integer: 'INTEGER', strict: ' STRICT', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT' }),
    pg: consoleTables(19, { integer: 'BIGINT', strict: '', serial: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY' }),
  },
];
