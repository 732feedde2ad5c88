/**
 * Traces in the real process: `trawl serve` (dist/bin/cli.js) with the standard OTEL variables exports
 * its spans over OTLP/HTTP protobuf (the default protocol) to a loopback receiver, continuing a caller's
 * trace; without them, no OpenTelemetry module is loaded at all (the start-up budgets hold). A preload
 * (test/fixtures/preload/loaded-modules.mjs) lists what the process loaded when it exits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, postJson, tempDir } from '../helpers/app.js';
import { serve } from '../helpers/crash.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

const PRELOAD = path.join(ROOT, 'test/fixtures/preload/loaded-modules.mjs');

let otlp: OtlpReceiver;
const dirs: (() => void)[] = [];

beforeAll(async () => {
  otlp = await startOtlpReceiver();
});
afterAll(async () => {
  await otlp?.close();
  for (const cleanup of dirs) cleanup();
});

/** Runs `trawl serve` with `env`, calls /search once with a caller's traceparent, stops it: what it loaded. */
async function serveOnce(
  env: Record<string, string>,
): Promise<{ traceId: string; parentId: string; loaded: string[] }> {
  const { dir, cleanup } = tempDir();
  dirs.push(cleanup);
  const list = path.join(dir, 'loaded.json');
  const server = await serve(path.join(dir, 'data'), [], {
    env: { NODE_OPTIONS: `--import ${PRELOAD}`, TRAWL_TEST_LOADED_MODULES: list, ...env },
  });
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  try {
    const res = await postJson(
      server.url,
      '/search',
      { query: 'connection pooling', numResults: 3 },
      {
        'x-api-key': server.key,
        traceparent: `00-${traceId}-${parentId}-01`,
      },
    );
    expect(res.status).toBe(200);
  } finally {
    await server.stop(); // SIGTERM: the app closes, exporting the spans it still holds
  }
  return { traceId, parentId, loaded: JSON.parse(fs.readFileSync(list, 'utf8')) as string[] };
}

describe('trawl serve', () => {
  it('loads no OpenTelemetry module when no OTLP endpoint is set', async () => {
    const { loaded } = await serveOnce({});
    expect(loaded).toEqual([]);
  });

  it('loads no OpenTelemetry module when OTEL_SDK_DISABLED=true, whatever the endpoint', async () => {
    const { loaded } = await serveOnce({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SDK_DISABLED: 'true' });
    expect(loaded).toEqual([]);
    expect(otlp.requests).toHaveLength(0);
  });

  it('exports the request’s spans as OTLP protobuf to OTEL_EXPORTER_OTLP_ENDPOINT, continuing the caller’s trace', async () => {
    const { traceId, parentId, loaded } = await serveOnce({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    expect(loaded.some((file) => file.includes('/@opentelemetry/sdk-trace-node/'))).toBe(true);
    const spans = await otlp.trace(traceId, (found) => found.some((s) => s.name === 'op search'));
    expect(otlp.requests.every((r) => r.path === '/v1/traces' && r.contentType === 'application/x-protobuf')).toBe(true); // prettier-ignore
    const door = spans.find((s) => s.name === 'POST /search')!;
    expect(door).toMatchObject({ parentSpanId: parentId, kind: 2, encoding: 'application/x-protobuf' });
    expect(door.attributes).toMatchObject({ 'http.route': '/search', 'http.response.status_code': 200 });
    expect(spans.find((s) => s.name === 'op search')!.parentSpanId).toBe(door.spanId);
  });
});
