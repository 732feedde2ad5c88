/**
 * GET /metrics on the main listener, end to end on SQLite and PostgreSQL: every scrape parsed by the
 * strict Prometheus text-format parser (test/helpers/prometheus.ts); requests, errors, search and
 * fetch stages, page-cache lookups, provider calls and dollars spent move by exactly what the test
 * did; the store-read queue gauges count what the store holds; only an `admin` key reads it; and no
 * label value carries a URL, a query or a key the test sent.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startServerOn } from '../helpers/backend-server.js';
import { postJson, teamWithKey, type TestServer } from '../helpers/app.js';
import { parsePrometheus, valueOf, type MetricFamily } from '../helpers/prometheus.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { startProviderServer, type ProviderServer } from '../fixtures/providers/server.js';

type Families = Map<string, MetricFamily>;

const QUERY = 'zebrafish metrics-canary-query';
const PAGE_PATH = '/metrics-canary/page';
const PAGE = `<!doctype html><html><head><title>Canary page</title></head><body><main><h1>Canary</h1>
<p>${'A page about zebrafish and their habits, long enough to be the main content. '.repeat(8)}</p></main></body></html>`;

describe.each(BACKENDS)('GET /metrics on %s', (backend) => {
  let t: TestServer;
  let site: FixtureSite;
  let providers: ProviderServer;
  let teamAdmin: string;
  let plainKey: string;
  const texts: string[] = [];

  /** A scrape with the operator key, kept for the label scan and parsed strictly. */
  const scrape = async (): Promise<Families> => {
    const res = await fetch(`${t.url}/metrics`, { headers: { 'x-api-key': t.key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    texts.push(text);
    return parsePrometheus(text);
  };
  const search = (body: Record<string, unknown>) => postJson(t.url, '/search', body, { 'x-api-key': t.key });
  const delta = (before: Families, after: Families, name: string, labels: Record<string, string> = {}) =>
    valueOf(after, name, labels) - valueOf(before, name, labels);

  beforeAll(async () => {
    site = await startFixtureSite();
    site.setPage(PAGE_PATH, PAGE);
    providers = await startProviderServer();
    t = await startServerOn(backend, {
      privateAllowlist: ['127.0.0.1'],
      allowInsecureWebhooks: true,
      searxngUrl: `${providers.base}/searxng`,
      providerTimeoutMs: 2000,
    });
    teamAdmin = await teamWithKey(t.url, t.key, `metrics-team-${backend}`, ['search', 'admin:team']);
    plainKey = (await t.app.services.keys.create('plain', {}, null)).key;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await Promise.all([site?.close(), providers?.close()]);
  });

  it('is the operator’s: no key 401, a key without `admin` 403 (a team admin’s too)', async () => {
    const none = await fetch(`${t.url}/metrics`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { tag: string }).tag).toBe('INVALID_API_KEY');
    for (const key of [plainKey, teamAdmin]) {
      const res = await fetch(`${t.url}/metrics`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(403);
      const body = (await res.json()) as { tag: string; error: string };
      expect(body.tag).toBe('INSUFFICIENT_SCOPE');
      expect(body.error).toMatch(/"admin" scope/);
    }
  });

  it(
    'counts requests, errors, stages, cache lookups, provider calls and spend exactly',
    { timeout: 90_000 },
    async () => {
      const before = await scrape();
      let spent = 0;
      for (let i = 0; i < 3; i++) {
        const res = await search({ query: QUERY, numResults: 3 });
        expect(res.status).toBe(200);
        spent += (res.body as { costDollars: { total: number } }).costDollars.total;
      }
      expect((await search({ query: QUERY, numResults: 500 })).status).toBe(400);
      const mcp = new Client({ name: 'metrics-test', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { 'x-api-key': t.key } } })); // prettier-ignore
      const tool = (await mcp.callTool({ name: 'search', arguments: { query: QUERY, numResults: 2 } })) as { structuredContent?: { costDollars?: { total: number } } }; // prettier-ignore
      spent += tool.structuredContent?.costDollars?.total ?? 0;
      await mcp.close();
      // the page cache and live fetches, on their own: a miss that fetches, then a hit
      const mid = await scrape();
      const url = `${site.url}${PAGE_PATH}?q=${encodeURIComponent(QUERY)}`;
      const first = await postJson(t.url, '/contents', { urls: [url], text: true }, { 'x-api-key': t.key });
      expect(first.status).toBe(200);
      const again = await postJson(t.url, '/contents', { urls: [url], text: true }, { 'x-api-key': t.key });
      expect((again.body as { statuses: { source: string }[] }).statuses[0]!.source).toBe('cached');
      for (const r of [first, again]) spent += (r.body as { costDollars: { total: number } }).costDollars.total;
      const after = await scrape();

      const rest = { door: 'rest', operation: 'search' };
      expect(delta(before, after, 'trawl_requests_total', { ...rest, code: '200' })).toBe(3);
      expect(delta(before, after, 'trawl_requests_total', { ...rest, code: '400' })).toBe(1);
      expect(delta(before, after, 'trawl_request_duration_seconds_count', rest)).toBe(4);
      expect(delta(before, after, 'trawl_requests_total', { door: 'rest', operation: 'contents', code: '200' })).toBe(2); // prettier-ignore
      expect(delta(before, after, 'trawl_requests_total', { door: 'mcp', operation: 'tool:search', code: '200' })).toBe(1); // prettier-ignore
      // the scrapes before this one are counted in this one
      expect(delta(before, after, 'trawl_requests_total', { door: 'system', operation: 'metrics', code: '200' })).toBe(2); // prettier-ignore
      // 3 REST searches and the tool's ran every stage of a local search; SearXNG was asked each time
      expect(delta(before, after, 'trawl_search_stage_duration_seconds_count', { stage: 'local' })).toBe(4);
      expect(delta(before, after, 'trawl_search_stage_duration_seconds_count', { stage: 'rank' })).toBe(4);
      expect(delta(before, after, 'trawl_provider_calls_total', { kind: 'search', provider: 'searxng', outcome: 'ok' })).toBe(4); // prettier-ignore
      expect(delta(before, after, 'trawl_provider_call_duration_seconds_count', { kind: 'search', provider: 'searxng' })).toBe(4); // prettier-ignore
      // one live fetch (it missed the cache), then a hit
      expect(delta(mid, after, 'trawl_page_cache_requests_total', { result: 'miss' })).toBe(1);
      expect(delta(mid, after, 'trawl_page_cache_requests_total', { result: 'hit' })).toBe(1);
      expect(delta(before, after, 'trawl_fetch_stage_duration_seconds_count', { stage: 'fetch' })).toBe(1);
      expect(delta(before, after, 'trawl_fetch_stage_duration_seconds_count', { stage: 'extract' })).toBe(1);
      expect(delta(before, after, 'trawl_fetch_stage_duration_seconds_count', { stage: 'store' })).toBe(1);
      expect(delta(before, after, 'trawl_operation_errors_total')).toBe(0);
      expect(spent).toBeGreaterThan(0);
      expect(delta(before, after, 'trawl_spent_dollars_total')).toBeCloseTo(spent, 9);
      // the fetched page is in this machine's index
      expect(valueOf(after, 'trawl_index_documents', { index: 'search' })).toBe(t.app.services.searchIndex.count());
      expect(valueOf(after, 'trawl_index_documents', { index: 'search' })).toBeGreaterThanOrEqual(1);
    },
  );

  it('reads the queues from the store at scrape time', { timeout: 60_000 }, async () => {
    const before = await scrape();
    expect(valueOf(before, 'trawl_metrics_source_up', { source: 'queues' })).toBe(1);
    // a monitor's creation puts its `monitor.created` event in the outbox; no engine runs here to send it
    const made = await postJson(t.url, '/monitors', { search: { query: 'pooling' }, webhook: { url: `${site.url}/hook` } }, { 'x-api-key': t.key }); // prettier-ignore
    expect(made.status).toBe(201);
    const run = await postJson(t.url, '/agent/runs', { query: 'connection pooling', effort: 'minimal' }, { 'x-api-key': t.key }); // prettier-ignore
    expect(run.status).toBe(201);
    const after = await scrape();
    expect(delta(before, after, 'trawl_queue_depth', { queue: 'webhook_outbox' })).toBe(1);
    expect(delta(before, after, 'trawl_queue_depth', { queue: 'agent_runs' })).toBe(1); // queued: no engine here
    expect(valueOf(after, 'trawl_queue_oldest_age_seconds', { queue: 'agent_runs' })).toBeGreaterThanOrEqual(0);
    for (const queue of ['monitor_runs', 'mcp_tasks', 'crawl_frontier']) {
      expect(after.get('trawl_queue_depth')!.samples.some((s) => s.labels.queue === queue)).toBe(true);
    }
    // process metrics, by their standard names
    expect(valueOf(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(after.get('nodejs_eventloop_lag_seconds')?.type).toBe('gauge');
  });

  it.runIf(backend === 'postgres')(
    'reports a following replica’s lag from its heartbeat',
    { timeout: 60_000 },
    async () => {
      const before = await scrape();
      expect(before.get('trawl_replica_lag_seconds')!.samples).toEqual([]); // not following yet
      t.app.workers.startIndexing(); // follows the shared logs and beats, as `trawl serve` does
      let families = before;
      const deadline = Date.now() + 30_000;
      while (families.get('trawl_replica_behind_documents')!.samples.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        families = await scrape();
      }
      expect(valueOf(families, 'trawl_metrics_source_up', { source: 'replica' })).toBe(1);
      // every document in the shared store is in this replica's index: nothing behind, no lag
      expect(families.get('trawl_replica_behind_documents')!.samples.map((s) => s.value)).toEqual([0]);
      expect(families.get('trawl_replica_lag_seconds')!.samples.map((s) => s.value)).toEqual([0]);
    },
  );

  it('carries no URL, query or key in any label or value', () => {
    expect(texts.length).toBeGreaterThan(2);
    for (const text of texts) {
      for (const secret of [QUERY, 'zebrafish', PAGE_PATH, site.url, '127.0.0.1', t.key, plainKey, teamAdmin]) {
        expect(text).not.toContain(secret);
      }
    }
  });
});
