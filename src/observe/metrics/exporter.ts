/**
 * The Prometheus exporter of one process: prom-client's registry holding the process metrics
 * (`process_*`, `nodejs_*`), what the observation port recorded (src/lib/observe.ts) and the metrics
 * read at scrape time (./gauges.ts). prom-client (about 100 ms to load) is imported on the first scrape,
 * or when a worker of `--workers N` joins the primary's aggregation; what was observed before is
 * exported all the same, since the port keeps it.
 */
import type * as PromClientModule from 'prom-client';
import type { Metric, Registry } from 'prom-client';
import type { Logger } from '../../lib/logger.js';
import { FAMILIES, observed, type Family, type FamilyName } from '../../lib/observe.js';
import { GAUGES, type GaugeFamily, type GaugeName, type GaugeSource, type Reading } from './gauges.js';

/** A scrape: the exposition text and its content type. */
export interface Scrape {
  contentType: string;
  text: string;
}

export interface MetricsExporter {
  /** This process's metrics in the Prometheus text format. */
  scrape(): Promise<Scrape>;
  /** A worker of `--workers N`: answers the primary's requests for its metrics (prom-client's cluster messages). */
  joinCluster(): Promise<void>;
}

type PromClient = typeof PromClientModule;
let loading: Promise<PromClient> | undefined;
/** prom-client, loaded once per process when first needed. */
export const loadPromClient = (): Promise<PromClient> =>
  // a CommonJS module: bundled, its exports are the namespace's default
  (loading ??= import('prom-client').then((m) => ('Registry' in m ? m : (m as { default: PromClient }).default)));

/** What prom-client's registry reads of a metric: its head and `get()` (its values now). */
interface Exported {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Value[] }>;
  reset(): void;
}

interface Value {
  value: number;
  labels: Record<string, string>;
  metricName?: string;
}

const labelsOf = (names: readonly string[], values: readonly string[]) =>
  Object.fromEntries(names.map((name, i) => [name, values[i] ?? '']));

/** A family of the observation port as prom-client values: a counter, or a histogram's buckets, sum and count. */
function observedValues(family: Family, name: FamilyName): Value[] {
  return observed(name).flatMap((series): Value[] => {
    const labels = labelsOf(family.labels, series.labels);
    if (!family.buckets) return [{ value: series.value, labels }];
    let cumulative = 0;
    const bounds = [...family.buckets.map(String), '+Inf'];
    const buckets = bounds.map((le, i) => {
      cumulative += series.buckets![i]!;
      return { value: cumulative, labels: { ...labels, le }, metricName: `${family.name}_bucket` };
    });
    return [
      ...buckets,
      { value: series.sum!, labels, metricName: `${family.name}_sum` },
      { value: series.value, labels, metricName: `${family.name}_count` },
    ];
  });
}

/** The exported form of a metric whose values `values()` gives at each read. */
function exported(
  head: { name: string; help: string; type: string; aggregator: string },
  values: () => Promise<Value[]> | Value[],
): Exported {
  return { ...head, get: async () => ({ ...head, values: await values() }), reset() {} };
}

/**
 * The readings of every source: prom-client reads each metric on its own, all at once, so the reads of
 * one scrape share one read of the sources (the one in flight); a source that fails is logged and
 * reported by `trawl_metrics_source_up`.
 */
function readingsOf(sources: readonly GaugeSource[], logger: Logger): () => Promise<Reading[]> {
  let pending: Promise<Reading[]> | undefined;
  const readAll = async (): Promise<Reading[]> => {
    const parts = await Promise.all(
      sources.map(async (source) => {
        try {
          const readings = await source.read();
          return [...readings, { gauge: 'sourceUp', labels: [source.name], value: 1 } as Reading];
        } catch (err) {
          logger.warn({ err, source: source.name }, 'a metrics source could not be read');
          return [{ gauge: 'sourceUp', labels: [source.name], value: 0 } as Reading];
        }
      }),
    );
    return parts.flat();
  };
  return () => (pending ??= readAll().finally(() => (pending = undefined)));
}

/** The registry: process metrics, the port's families and the scrape-time ones. */
async function buildRegistry(prom: PromClient, sources: readonly GaugeSource[], logger: Logger): Promise<Registry> {
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  const register = (metric: Exported) => registry.registerMetric(metric as unknown as Metric);
  for (const name of Object.keys(FAMILIES) as FamilyName[]) {
    const family: Family = FAMILIES[name];
    register(exported({ ...family, aggregator: 'sum' }, () => observedValues(family, name)));
  }
  const readings = readingsOf(sources, logger);
  for (const name of Object.keys(GAUGES) as GaugeName[]) {
    const gauge: GaugeFamily = GAUGES[name];
    const { labels, ...head } = gauge;
    register(
      exported(head, async () =>
        (await readings())
          .filter((r) => r.gauge === name)
          .map((r) => ({ value: r.value, labels: labelsOf(labels, r.labels) })),
      ),
    );
  }
  return registry;
}

/** The exporter over the port and `sources`; nothing is loaded until the first scrape. */
export function createMetricsExporter(options: { sources: readonly GaugeSource[]; logger: Logger }): MetricsExporter {
  let registry: Promise<Registry> | undefined;
  const registryOf = () => (registry ??= loadPromClient().then((prom) => buildRegistry(prom, options.sources, options.logger))); // prettier-ignore
  return {
    async scrape() {
      const reg = await registryOf();
      return { contentType: reg.contentType, text: await reg.metrics() };
    },
    async joinCluster() {
      const prom = await loadPromClient();
      prom.AggregatorRegistry.setRegistries([await registryOf()]);
      new prom.AggregatorRegistry(); // in a worker, its constructor answers the primary's requests
    },
  };
}
