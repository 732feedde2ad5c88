/**
 * The sources of the metrics read at scrape time (src/observe/metrics/gauges.ts): the queues in the
 * store (one COUNT/MIN each), this machine's indexes (counts held in memory, segments and merges from
 * small tables, the file's pages), and a replica's lag from its last heartbeat.
 */
import type { Db } from '../store/sqlite/database.js';
import type { Stores } from '../store/contracts/stores.js';
import { createIndexStats } from '../store/search-index/index-stats.js';
import type { Services } from '../core/ports.js';
import type { GaugeSource, Reading } from '../observe/metrics/gauges.js';
import { VERSION } from '../version.js';
import type { Lifecycle } from './lifecycle.js';

export interface MetricsParts {
  db: Db;
  stores: Stores;
  services: Pick<Services, 'searchIndex' | 'code'>;
  lifecycle: Pick<Lifecycle, 'replicaLag'>;
  /** Whether this process is a replica on PostgreSQL (its lag is reported). */
  replica: boolean;
  now: () => number;
}

/** The sources: `queues` and `code` (the store), `index` (this machine), `replica` (with PostgreSQL), `build`. */
export function metricsSources(parts: MetricsParts): GaugeSource[] {
  const indexStats = createIndexStats(parts.db);
  const sources: GaugeSource[] = [
    {
      name: 'queues',
      async read() {
        const now = parts.now();
        return (await parts.stores.queues.read()).flatMap((q): Reading[] => {
          const oldest = q.oldestAt ? Date.parse(q.oldestAt) : NaN;
          const age = Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1000) : 0;
          return [
            { gauge: 'queueDepth', labels: [q.queue], value: q.depth },
            { gauge: 'queueAge', labels: [q.queue], value: age },
          ];
        });
      },
    },
    {
      name: 'code',
      read: async () => [{ gauge: 'codeSources', labels: [], value: await parts.stores.queues.codeSources() }],
    },
    {
      name: 'index',
      read() {
        const { indexes, databaseBytes } = indexStats();
        const counts = { search: parts.services.searchIndex.count(), code: parts.services.code.count() };
        return [
          ...indexes.flatMap((ix): Reading[] => [
            { gauge: 'indexDocuments', labels: [ix.index], value: counts[ix.index] },
            { gauge: 'indexMerges', labels: [ix.index], value: ix.merges },
            ...Object.entries(ix.segments).map(([state, n]): Reading => ({ gauge: 'indexSegments', labels: [ix.index, state], value: n })), // prettier-ignore
          ]),
          { gauge: 'databaseBytes', labels: [], value: databaseBytes },
        ];
      },
    },
    { name: 'build', read: () => [{ gauge: 'buildInfo', labels: [VERSION], value: 1 }] },
  ];
  if (parts.replica) {
    sources.push({
      name: 'replica',
      read() {
        const lag = parts.lifecycle.replicaLag();
        if (!lag) return []; // not following (a bulk command), or no heartbeat yet
        return [
          { gauge: 'replicaBehind', labels: [], value: lag.behindDocuments },
          { gauge: 'replicaLag', labels: [], value: lag.seconds },
        ];
      },
    });
  }
  return sources;
}
