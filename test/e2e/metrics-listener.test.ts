/**
 * The metrics' own listener (`TRAWL_METRICS_LISTEN`) on a real `trawl serve`: keyless on loopback while
 * the main listener's `/metrics` answers 404; refused on a public address unless allowed; and with
 * `--workers 2`, the primary's scrape sums the workers' counters and takes store-wide gauges once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { cli, run, serve, until, type ServeProcess } from '../helpers/crash.js';
import { parsePrometheus, valueOf } from '../helpers/prometheus.js';

const DOCS = [
  { url: 'https://docs.example.com/undici/pool', title: 'Connection pooling in undici', text: 'An undici Pool keeps sockets open to one origin.' }, // prettier-ignore
  { url: 'https://docs.example.com/undici/agent', title: 'The undici Agent', text: 'An undici Agent manages one pool per origin.' }, // prettier-ignore
];

const servers: ServeProcess[] = [];
const dirs: { cleanup(): void }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  for (const d of dirs.splice(0)) d.cleanup();
});

/** A data directory holding two imported pages. */
function dataDir(): string {
  const d = tempDir('trawl-metrics-listener-');
  dirs.push(d);
  const file = path.join(d.dir, 'docs.jsonl');
  fs.writeFileSync(file, DOCS.map((doc) => JSON.stringify(doc)).join('\n'));
  expect(cli(['import', file, '--data-dir', d.dir]).code).toBe(0);
  return d.dir;
}

/** The metrics URL the server logged. */
const metricsUrl = (s: ServeProcess) => /metrics at (http:\/\/[\d.:]+\/metrics)/.exec(s.log())![1]!;

const search = (s: ServeProcess, key: string) =>
  fetch(`${s.url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: 'undici pool' }),
  }).then((r) => r.status);

describe('the metrics listener', () => {
  it(
    'serves /metrics without a key on loopback; the main listener’s /metrics is 404',
    { timeout: 60_000 },
    async () => {
      const dir = dataDir();
      const s = await serve(dir, ['--metrics-listen', '127.0.0.1:0']);
      servers.push(s);
      const key = fs.readFileSync(path.join(dir, 'first-api-key'), 'utf8').trim();
      expect(await search(s, key)).toBe(200);
      expect((await fetch(`${s.url}/metrics`, { headers: { 'x-api-key': key } })).status).toBe(404);
      const res = await fetch(metricsUrl(s));
      expect(res.status).toBe(200);
      const families = parsePrometheus(await res.text());
      expect(valueOf(families, 'trawl_requests_total', { door: 'rest', operation: 'search', code: '200' })).toBe(1);
      expect(valueOf(families, 'trawl_index_documents', { index: 'search' })).toBe(2);
      expect((await fetch(metricsUrl(s).replace('/metrics', '/other'))).status).toBe(404);
    },
  );

  it('refuses a public address unless TRAWL_METRICS_PUBLIC allows it', { timeout: 30_000 }, async () => {
    const d = tempDir('trawl-metrics-public-');
    dirs.push(d);
    const refused = await run(['serve', '--data-dir', d.dir, '--port', '0', '--metrics-listen', '0.0.0.0:0']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /TRAWL_METRICS_LISTEN .*0\.0\.0\.0.*not a loopback address.*TRAWL_METRICS_PUBLIC=true/s,
    );
    const bad = await run(['serve', '--data-dir', d.dir, '--port', '0', '--metrics-listen', 'localhost:99999']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Invalid flag --metrics-listen="localhost:99999": must be HOST:PORT/);
    const allowed = await serve(d.dir, ['--metrics-listen', '0.0.0.0:0', '--metrics-public']);
    servers.push(allowed);
    const port = new URL(metricsUrl(allowed)).port;
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
  });

  it('sums the workers of --workers 2 on the primary’s listener', { timeout: 90_000 }, async () => {
    const dir = dataDir();
    const s = await serve(dir, ['--workers', '2', '--metrics-listen', '127.0.0.1:0']);
    servers.push(s);
    // both workers listen (each has joined the aggregation before it listens)
    await until(async () => (s.log().match(/listening on/g)?.length ?? 0) >= 2 || undefined, 30_000);
    const key = fs.readFileSync(path.join(dir, 'first-api-key'), 'utf8').trim();
    // new connections each time, so both workers answer some
    for (let i = 0; i < 8; i++) expect(await search(s, key)).toBe(200);
    const families = parsePrometheus(await (await fetch(metricsUrl(s))).text());
    expect(valueOf(families, 'trawl_requests_total', { door: 'rest', operation: 'search', code: '200' })).toBe(8);
    expect(valueOf(families, 'trawl_request_duration_seconds_count', { operation: 'search' })).toBe(8);
    // a store-wide figure is taken once, not summed over the workers
    expect(valueOf(families, 'trawl_index_documents', { index: 'search' })).toBe(2);
    expect(valueOf(families, 'trawl_queue_depth', { queue: 'agent_runs' })).toBe(0);
    expect(valueOf(families, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});
