/**
 * What `trawl migrate` copies from a SQLite data directory into PostgreSQL: one entry per durable table
 * that has a PostgreSQL twin, in an order that keeps foreign keys satisfied, and every other SQLite table
 * named with why it stays behind. A table added to both schemas gets a line here; the unit test
 * test/unit/store-pg-copy-tables.test.ts fails until every table and column of both schemas is accounted for.
 */
import { CODE_CHANNEL_SQL, SOURCE_ROW } from './code-log.js';
import { DOCUMENTS_CHANNEL_SQL } from './document-log.js';

/** A column whose name, type or value differs between the two schemas. */
export interface ColumnMap {
  /** The SQLite column (or, with `sql`, the name its value is read under). */
  source: string;
  /** A SQLite expression over the table's row giving the value, for a column SQLite does not have. */
  sql?: string;
  /** The PostgreSQL column (default: the same name). */
  target?: string;
  /** The SQLite value as PostgreSQL takes it (default: as is). */
  convert?: (value: unknown) => unknown;
}

/** One table copied: how its rows are read, matched and written. */
export interface CopiedTable {
  /** The SQLite table. */
  name: string;
  /** The PostgreSQL table (default: the same name). */
  target?: string;
  /** The SQLite primary key: rows are read in its order, and a resumed copy goes on after the last key copied. */
  key: readonly string[];
  /** The PostgreSQL unique key (target names) a copied row is matched on (default: `key`). */
  match?: readonly string[];
  /** Columns copied: a name alike on both sides, or a mapping. */
  columns: readonly (string | ColumnMap)[];
  /** A PostgreSQL identity column (target name): copied as is, its sequence then moved past the largest value. */
  identity?: string;
  /** Columns (target names) holding secrets sealed under the operator key: handed to the copy's re-sealer, and never rewritten once copied (a sealed secret never changes). */
  sealed?: readonly string[];
  /** PostgreSQL columns without a SQLite twin, left to their defaults, each with why. */
  targetOnly?: Readonly<Record<string, string>>;
  /** SQL added to the SET of a row rewritten because it changed in SQLite. */
  alsoSet?: string;
  /** SQL run at the end of each batch's transaction. */
  afterBatch?: string;
  /** SQL run in the transaction of the table's last batch (`restart`: the copy started over). */
  afterTable?: (restart: boolean) => string;
  /** Rows read: only those matching this SQLite condition (also when counting). */
  where?: string;
  /** SQLite columns not copied as they are, each with why (read for `prepare` when it needs them). */
  dropped?: Readonly<Record<string, string>>;
  /** What the copy's `prepare` hook for this table must do to each batch of rows before it is written. */
  prepare?: string;
}

const COMPRESSED = "where the chunk's text is in SQLite's compressed blocks; PostgreSQL keeps code and doc whole";
const LOG_COLUMNS = 'its place in the document log, set by the write (document-log.ts)';

/** The tables copied, in order (crawl_jobs before crawl_frontier, which references it). */
export const COPIED_TABLES: readonly CopiedTable[] = [
  {
    name: 'teams',
    key: ['id'],
    columns: ['id', 'name', 'blocked_at', 'enterprise', 'zero_retention', 'credits_micros', 'budget_micros',
      'budget_period', 'created_at'], // prettier-ignore
  },
  {
    name: 'api_keys',
    key: ['id'],
    columns: ['id', 'name', 'hash', 'created_at', 'last_used_at', 'revoked_at', 'team_id', 'scopes', 'budget_micros',
      'budget_period', 'qps', 'identity'], // prettier-ignore
  },
  {
    name: 'audit_log',
    key: ['seq'],
    identity: 'seq',
    columns: ['seq', 'at', 'team_id', 'actor_key_id', 'actor_team_id', 'action', 'target', 'detail'],
  },
  {
    name: 'spend',
    key: ['key_id', 'day', 'operation'],
    columns: ['key_id', 'team_id', 'day', 'operation', 'requests', 'micros'],
  },
  {
    name: 'request_latency',
    key: ['key_id', 'day', 'operation', 'bucket'],
    columns: ['key_id', 'team_id', 'day', 'operation', 'bucket', 'requests'],
  },
  {
    name: 'usage_months',
    key: ['team_id', 'key_id', 'month', 'operation'],
    columns: ['team_id', 'key_id', 'month', 'operation', 'requests', 'micros'],
  },
  {
    name: 'latency_months',
    key: ['team_id', 'key_id', 'month', 'operation', 'bucket'],
    columns: ['team_id', 'key_id', 'month', 'operation', 'bucket', 'requests'],
  },
  {
    // a job running in the copied directory's process is copied running: its lease lapses, it reads interrupted
    name: 'operator_jobs',
    key: ['seq'],
    match: ['id'],
    identity: 'seq',
    columns: ['seq', 'id', 'kind', 'key_id', 'team_id', 'input', 'state', 'progress', 'result', 'error', 'owner',
      'lease_until_ms', 'created_at', 'updated_at'], // prettier-ignore
  },
  {
    name: 'holds',
    key: ['id'],
    columns: ['id', 'key_id', 'team_id', 'amount_micros', 'expires_ms'],
  },
  {
    name: 'monitors',
    key: ['seq'],
    match: ['id'],
    identity: 'seq',
    sealed: ['secret'],
    columns: ['seq', 'id', 'name', 'status', 'search', 'period', 'output_schema', 'metadata', 'webhook_url',
      'webhook_events', 'secret', 'key_id', 'team_id', 'anchor_ms', 'next_run_ms', 'key_failures', 'created_at', 'updated_at'], // prettier-ignore
  },
  {
    name: 'monitor_runs',
    key: ['seq'],
    match: ['id'],
    identity: 'seq',
    columns: ['seq', 'id', 'monitor_id', 'status', 'origin', 'output', 'fail_reason', 'fail_detail', 'started_at',
      'completed_at', 'failed_at', 'cancelled_at', 'duration_ms', 'owner', 'lease_until_ms', 'created_at', 'updated_at'], // prettier-ignore
  },
  {
    name: 'webhook_deliveries',
    key: ['seq'],
    match: ['event_id'],
    identity: 'seq',
    sealed: ['secret'],
    columns: ['seq', 'event_id', 'monitor_id', 'event_type', 'url', 'secret', 'body', 'status', 'attempts',
      'next_attempt_ms', 'lease_until_ms', 'give_up_ms', 'last_error', 'created_at', 'delivered_at', 'team_id'], // prettier-ignore
  },
  {
    name: 'webhook_attempts',
    key: ['delivery_seq', 'attempt'],
    columns: ['delivery_seq', 'attempt', 'at', 'status', 'error', 'duration_ms'],
  },
  {
    name: 'agent_runs',
    key: ['seq'],
    match: ['id'],
    identity: 'seq',
    columns: ['seq', 'id', 'key_id', 'team_id', 'status', 'zero_retention', 'request', 'output', 'cost', 'usage', 'error',
      'stop_reason', 'owner', 'lease_until_ms', 'progress', 'created_at', 'started_at', 'completed_at', 'updated_at'], // prettier-ignore
  },
  {
    name: 'agent_events',
    key: ['run_id', 'seq'],
    // PostgreSQL partitions events by month: its unique key holds the partition key (migration retention)
    match: ['run_id', 'seq', 'created_at'],
    columns: ['run_id', 'seq', 'event', 'data', 'created_at'],
  },
  {
    name: 'mcp_snapshots',
    key: ['id'],
    columns: ['id', 'owner', 'team_id', 'tool', 'args_hash', 'body', 'created_ms', 'expires_ms'],
  },
  {
    name: 'mcp_tasks',
    key: ['seq'],
    match: ['id'],
    identity: 'seq',
    columns: ['seq', 'id', 'owner', 'team_id', 'tool', 'status', 'status_message', 'ttl_ms', 'poll_interval_ms', 'created_at',
      'last_updated_at', 'updated_ms', 'expires_ms', 'result', 'run_id', 'worker', 'lease_until_ms'], // prettier-ignore
  },
  {
    name: 'documents',
    key: ['url'],
    columns: ['url', 'title', 'text', 'author', 'published_date', 'kind', 'metadata', 'origin', 'collection',
      'content_hash', 'fetched_at', 'updated_at'], // prettier-ignore
    targetOnly: {
      change_xid: LOG_COLUMNS,
      change_seq: LOG_COLUMNS,
      markdown: 'SQLite keeps no Markdown of a page; a page fetched again on PostgreSQL gets it',
    },
    // a rewritten document takes a new place in the log, as documents.ts writes it, so replicas follow
    alsoSet: "change_xid = pg_current_xact_id(), change_seq = nextval('documents_change_seq')",
    // wakes replicas following the log (the channel of document-log.ts)
    afterBatch: `SELECT pg_notify(${DOCUMENTS_CHANNEL_SQL}, '')`,
  },
  {
    name: 'crawl_jobs',
    key: ['id'],
    columns: ['id', 'seeds', 'scope', 'state', 'sitemaps_done', 'created_at', 'updated_at', 'team_id', 'owner', 'lease_until_ms'], // prettier-ignore
  },
  {
    name: 'crawl_frontier',
    key: ['id'],
    match: ['job_id', 'url'],
    identity: 'id',
    columns: ['id', 'job_id', 'url', 'depth', 'state', 'error_tag', 'error', 'http_status', 'updated_at'],
  },
  {
    name: 'code_sources',
    key: ['name'],
    columns: ['name', 'kind', 'location', 'indexed_at'],
  },
  {
    name: 'code_files',
    key: ['source', 'path'],
    columns: ['source', 'path', 'size', 'mtime_ms', 'hash', 'chunks',
      // when its chunks were written: as its index entries say, else when its source was last indexed
      { source: 'indexed_ms', sql: `COALESCE(
          (SELECT MAX(d.crawled_at) FROM code_chunks c JOIN code_docs d ON d.id = c.id
           WHERE c.source = code_files.source AND c.path = code_files.path),
          (SELECT CAST(ROUND((julianday(s.indexed_at) - 2440587.5) * 86400000) AS INTEGER)
           FROM code_sources s WHERE s.name = code_files.source), 0)` },
    ], // prettier-ignore
  },
  {
    name: 'code_chunks',
    key: ['id'],
    match: ['source', 'path', 'start_line', 'end_line'],
    columns: ['source', 'path', 'start_line', 'end_line', 'language', 'kind', 'symbol', 'doc', 'code'],
    dropped: {
      id: "the chunk's id in this machine's index; PostgreSQL keys a chunk by its place in its file",
      text: COMPRESSED,
      text_at: COMPRESSED,
      code_len: COMPRESSED,
      doc_at: COMPRESSED,
      doc_len: COMPRESSED,
    },
    prepare: "set each row's code and doc, whole, from SQLite's compressed blocks (code_texts)",
    // PostgreSQL's chunks belong to a file row (a foreign key); SQLite has none to enforce it
    where: 'EXISTS (SELECT 1 FROM code_files f WHERE f.source = code_chunks.source AND f.path = code_chunks.path)',
    // every file and source placed in the code log (code-log.ts) once their chunks are all there, so
    // replicas following it index them; started over, every entry is placed again (followers re-read)
    afterTable: (restart) => `
      INSERT INTO code_changes (source, path)
        SELECT source, path FROM code_files UNION ALL SELECT name, '${SOURCE_ROW}' FROM code_sources
      ON CONFLICT (source, path) DO ${restart ? "UPDATE SET change_xid = pg_current_xact_id(), change_seq = nextval('code_change_seq')" : 'NOTHING'};
      SELECT pg_notify(${CODE_CHANNEL_SQL}, '')`,
  },
];

const DERIVED_SEARCH = 'the search index, derived from documents: each replica builds its own from the document log';
const DERIVED_CODE =
  "the code index's search structures, derived from code_chunks: each replica builds its own from the code log";
const VECTORS =
  "the index's embedded chunks: their vectors are copied to embedding_vectors, keyed by text (core/migrate/embeddings.ts)";
const CODE_VECTORS =
  'code embeddings, by index chunk id: replicas embed code chunks again (their texts are not rebuilt here)';

/** SQLite tables not copied, and why. Names ending in `*` are prefixes (sqlite-vec's tables per model). */
export const SKIPPED_TABLES: Readonly<Record<string, string>> = {
  rate_buckets: 'ephemeral: request-rate token buckets refill within seconds',
  maintenance: "the retention sweep's lease and when it is next due: the target's own, made by its migration",
  replica_state: "this machine's place in a shared database's logs, not data",
  search_docs: DERIVED_SEARCH,
  search_blocks: DERIVED_SEARCH,
  search_segments: DERIVED_SEARCH,
  search_deleted: DERIVED_SEARCH,
  search_stats: DERIVED_SEARCH,
  search_chunks: VECTORS,
  search_embedded: VECTORS,
  'search_vectors*': VECTORS,
  code_docs: DERIVED_CODE,
  code_blocks: DERIVED_CODE,
  code_segments: DERIVED_CODE,
  code_deleted: DERIVED_CODE,
  code_stats: DERIVED_CODE,
  code_texts: COMPRESSED,
  code_vec_chunks: CODE_VECTORS,
  code_embedded: CODE_VECTORS,
  'code_vectors*': CODE_VECTORS,
  oauth_state:
    "the authorization server's sign-ins, grants and tokens: people sign in again after the move (short-lived by design)",
  sealed_secrets:
    "the authorization server keys, sealed under one machine's key: made anew in the shared store on first start",
  console_sessions: "the web console's sign-ins: people sign in again after the move (they end within a day anyway)",
  'sqlite_*': "SQLite's own bookkeeping",
};

/** Why a SQLite table is not copied, with the entry of SKIPPED_TABLES that says so; undefined when none does. */
export function whySkipped(table: string): { pattern: string; why: string } | undefined {
  const entry = Object.entries(SKIPPED_TABLES).find(([name]) =>
    name.endsWith('*') ? table.startsWith(name.slice(0, -1)) : table === name,
  );
  return entry && { pattern: entry[0], why: entry[1] };
}

/** A column's SQLite name (for a computed one, the name its value is read under). */
export const sourceOf = (c: string | ColumnMap): string => (typeof c === 'string' ? c : c.source);
/** What a SELECT reads for a column. */
export const selectOf = (c: string | ColumnMap): string =>
  typeof c === 'string' ? c : c.sql ? `(${c.sql}) AS ${c.source}` : c.source;
/** A column's PostgreSQL name. */
export const targetOf = (c: string | ColumnMap): string => (typeof c === 'string' ? c : (c.target ?? c.source));
