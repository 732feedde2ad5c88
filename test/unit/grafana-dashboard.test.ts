/**
 * The Grafana dashboard in the repository (docs/grafana/trawl.json) reads only metrics Trawl exports:
 * every metric name its expressions use is a family of a real scrape of `GET /metrics` (strictly
 * parsed), a histogram's `_bucket` only on a histogram; and it covers what operators watch.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startTestServer, type TestServer } from '../helpers/app.js';
import { parsePrometheus, type MetricFamily } from '../helpers/prometheus.js';

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
}

const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/grafana/trawl.json'), 'utf8')) as { panels: Panel[] }; // prettier-ignore
const expressions = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
/** The metric names an expression reads (Trawl's and the standard process ones). */
const namesIn = (expr: string) => [...new Set(expr.match(/\b(?:trawl|process|nodejs)_[a-z0-9_]+\b/g) ?? [])];

let t: TestServer;
let families: Map<string, MetricFamily>;

beforeAll(async () => {
  t = await startTestServer();
  const res = await fetch(`${t.url}/metrics`, { headers: { 'x-api-key': t.key } });
  expect(res.status).toBe(200);
  families = parsePrometheus(await res.text());
});
afterAll(() => t?.close());

describe('the Grafana dashboard', () => {
  it('uses only metrics a scrape exports', () => {
    const missing: string[] = [];
    for (const { panel, expr } of expressions) {
      for (const name of namesIn(expr)) {
        const histogram = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
        const ok = families.has(name) || (histogram !== undefined && families.get(histogram)?.type === 'histogram');
        if (!ok) missing.push(`${panel}: ${name}`);
      }
    }
    expect(expressions.length).toBeGreaterThan(15);
    expect(missing).toEqual([]);
  });

  it('shows requests, latency, errors, queues, index, replica lag, credits and the process', () => {
    const used = new Set(expressions.flatMap(({ expr }) => namesIn(expr)));
    for (const name of [
      'trawl_requests_total',
      'trawl_request_duration_seconds_bucket',
      'trawl_operation_errors_total',
      'trawl_queue_depth',
      'trawl_queue_oldest_age_seconds',
      'trawl_index_documents',
      'trawl_index_segments',
      'trawl_index_merges_total',
      'trawl_replica_lag_seconds',
      'trawl_replica_behind_documents',
      'trawl_spent_dollars_total',
      'trawl_provider_calls_total',
      'trawl_page_cache_requests_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(used, name).toContain(name);
    }
  });
});
