/**
 * OpenTelemetry traces end to end, in process: the real HTTP door on loopback with tracing started as
 * `openApp` starts it, spans exported over OTLP/HTTP (JSON here; protobuf in traces-serve.test.ts) to a
 * loopback receiver. Checks the spans' names, parents and attributes; a caller's trace continued from
 * `traceparent` (REST header, MCP `params._meta`); the trace context kept from web pages always, and
 * from providers and webhooks unless TRAWL_TRACE_PROPAGATE allows them; zero-retention teams' spans
 * without URL, query or text.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tracing } from '../../src/lib/tracing.js';
import { startTracing } from '../../src/observe/tracing/start.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { startProviderServer, type ProviderServer } from '../fixtures/providers/server.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// the SDK reads these from the environment, as it does in a deployment
process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let otlp: OtlpReceiver;
let site: FixtureSite;
let providers: ProviderServer;
let model: ModelServer;
let hooks: Receiver;

beforeAll(async () => {
  [otlp, site, providers, model, hooks] = await Promise.all([
    startOtlpReceiver(),
    startFixtureSite(),
    startProviderServer(),
    startModelServer({ reply: 'A short summary of the page.' }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await Promise.all([otlp?.close(), site?.close(), providers?.close(), model?.close(), hooks?.close()]);
});

/** A W3C traceparent of a new trace: its ids, and the header value. */
function callerTrace(): { traceId: string; parentId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

/** A tracing server: tracing started with `propagate`, the door on loopback with a model and SearXNG. */
async function tracedServer(propagate: 'none' | 'all'): Promise<{ t: TestServer; tracing: Tracing }> {
  const tracing = await startTracing({ endpoint: otlp.url, disabled: false, propagate, serviceVersion: 'test' });
  const t = await startTestServer(
    {
      privateAllowlist: ['127.0.0.1'],
      modelBaseUrl: model.baseUrl,
      searxngUrl: `${providers.base}/searxng`,
      allowInsecureWebhooks: true,
    },
    { tracing },
  );
  return { t, tracing };
}

const byName = (spans: ReceivedSpan[], name: string) => spans.find((s) => s.name === name);
const has = (...names: string[]) => (spans: ReceivedSpan[]) => names.every((n) => spans.some((s) => s.name === n));

/** The MCP tools/call of a JSON-RPC POST to /mcp (stateless, 2025-06-18). */
function mcpCall(t: TestServer, key: string, params: Json): Promise<Response> {
  return fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-api-key': key,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
  });
}

describe('with TRAWL_TRACE_PROPAGATE=none (the default)', () => {
  let t: TestServer;
  let tracing: Tracing;
  beforeAll(async () => ({ t, tracing } = await tracedServer('none')));
  afterAll(async () => {
    await t?.close(); // the app's close shuts the SDK down, exporting what it still holds
    await tracing?.shutdown();
  });

  it('continues a REST caller’s trace: door, operation, store and fetch spans, parent to child', async () => {
    const caller = callerTrace();
    site.requests.length = 0;
    const res = await postJson(t.url, '/contents', { urls: [`${site.url}/articles/rust-async`], text: true }, {
      'x-api-key': t.key,
      traceparent: caller.traceparent,
    });
    expect(res.status).toBe(200);
    const spans = await otlp.trace(caller.traceId, has('POST /contents', 'op contents', 'GET'));
    const door = byName(spans, 'POST /contents')!;
    expect(door).toMatchObject({ parentSpanId: caller.parentId, kind: 2 });
    expect(door.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/contents',
      'http.response.status_code': 200,
    });
    const op = byName(spans, 'op contents')!;
    expect(op.parentSpanId).toBe(door.spanId);
    expect(op.attributes).toMatchObject({ 'trawl.operation': 'contents' });
    // the page fetch: undici's client span, under the operation's
    const fetchSpan = spans.find((s) => s.name === 'GET' && String(s.attributes['url.full']).includes('/articles/rust-async'))!;
    expect(fetchSpan.kind).toBe(3);
    const ancestors = (s: ReceivedSpan): string[] => {
      const parent = spans.find((p) => p.spanId === s.parentSpanId);
      return parent ? [parent.name, ...ancestors(parent)] : [];
    };
    expect(ancestors(fetchSpan)).toContain('op contents');
    // the key's lookup: a repository call in the trace
    expect(spans.some((s) => s.name.startsWith('store ') && s.attributes['db.system.name'] === 'sqlite')).toBe(true);
    // a web page never learns the trace
    const pageRequest = site.requests.find((r) => r.path === '/articles/rust-async')!;
    expect(pageRequest.headers.traceparent).toBeUndefined();
  });
});
