/**
 * The metrics read at scrape time rather than recorded as things happen: queue depths and ages, the
 * indexes, replica lag, read from the store and the process by the sources the composition root gives
 * (src/compose/metrics.ts). Each has a fixed name, fixed label names, and its rule for `--workers N`,
 * where the primary sums the workers' scrapes (prom-client's aggregators: a store-wide figure is the
 * same from every worker, so it is taken once, `max`).
 */

/** One metric read at scrape time. */
export interface GaugeFamily {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  labels: readonly string[];
  /** How the workers' values combine under `--workers N` (prom-client's aggregator names). */
  aggregator: 'sum' | 'max' | 'min' | 'first';
}

/** Every metric read at scrape time. */
export const GAUGES = {
  queueDepth: {
    name: 'trawl_queue_depth',
    help: 'Items waiting or in progress in each queue of work (store-wide: every replica reports the same).',
    type: 'gauge',
    labels: ['queue'],
    aggregator: 'max',
  },
  queueAge: {
    name: 'trawl_queue_oldest_age_seconds',
    help: 'Age of the oldest open item of each queue (0 when it is empty).',
    type: 'gauge',
    labels: ['queue'],
    aggregator: 'max',
  },
  indexDocuments: {
    name: 'trawl_index_documents',
    help: "Entries in this machine's indexes: documents in the search index, chunks in the code index.",
    type: 'gauge',
    labels: ['index'],
    aggregator: 'max',
  },
  indexSegments: {
    name: 'trawl_index_segments',
    help: "Segments of this machine's indexes, by state (open, sealed, building, merging, retired).",
    type: 'gauge',
    labels: ['index', 'state'],
    aggregator: 'max',
  },
  indexMerges: {
    name: 'trawl_index_merges_total',
    help: 'Segment merges published since the index was made or rebuilt.',
    type: 'counter',
    labels: ['index'],
    aggregator: 'max',
  },
  databaseBytes: {
    name: 'trawl_index_database_bytes',
    help: "Bytes in use in this machine's SQLite file, which holds the indexes (and on SQLite the whole store).",
    type: 'gauge',
    labels: [],
    aggregator: 'max',
  },
  codeSources: {
    name: 'trawl_code_sources',
    help: 'Folders, repositories and packages in the code index (the store).',
    type: 'gauge',
    labels: [],
    aggregator: 'max',
  },
  replicaBehind: {
    name: 'trawl_replica_behind_documents',
    help: "Documents in the shared PostgreSQL store this replica's index does not hold yet (its last heartbeat).",
    type: 'gauge',
    labels: [],
    aggregator: 'max',
  },
  replicaLag: {
    name: 'trawl_replica_lag_seconds',
    help: 'Seconds since this replica last read the document log to its end, while it is behind (0 when not).',
    type: 'gauge',
    labels: [],
    aggregator: 'max',
  },
  sourceUp: {
    name: 'trawl_metrics_source_up',
    help: 'Whether each source of the scrape-time metrics was read (1) or failed (0; the log says why).',
    type: 'gauge',
    labels: ['source'],
    aggregator: 'min',
  },
  buildInfo: {
    name: 'trawl_build_info',
    help: 'Always 1; the version of Trawl this process runs.',
    type: 'gauge',
    labels: ['version'],
    aggregator: 'max',
  },
} as const satisfies Record<string, GaugeFamily>;

export type GaugeName = keyof typeof GAUGES;

/** One value of a scrape-time metric, its labels in the family's order. */
export interface Reading {
  gauge: GaugeName;
  labels: readonly string[];
  value: number;
}

/** A source of scrape-time metrics: named (for `trawl_metrics_source_up`), read once per scrape. */
export interface GaugeSource {
  name: string;
  read(): Promise<Reading[]> | Reading[];
}
