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
import { postMcp } from '../helpers/mcp.js';

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
const has =
  (...names: string[]) =>
  (spans: ReceivedSpan[]) =>
    names.every((n) => spans.some((s) => s.name === n));

/** The MCP tools/call of a JSON-RPC POST to /mcp (stateless, 2025-06-18). */
function mcpCall(t: TestServer, key: string, params: Json): Promise<Response> {
  return postMcp(t.url, key, { id: 1, method: 'tools/call', params });
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
    const res = await postJson(
      t.url,
      '/contents',
      { urls: [`${site.url}/articles/rust-async`], text: true },
      {
        'x-api-key': t.key,
        traceparent: caller.traceparent,
      },
    );
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
    const fetchSpan = spans.find(
      (s) => s.name === 'GET' && String(s.attributes['url.full']).includes('/articles/rust-async'),
    )!;
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

  it('continues an MCP client’s trace from params._meta.traceparent: tools/call, then the operation', async () => {
    const caller = callerTrace();
    const res = await mcpCall(t, t.key, {
      name: 'get_contents',
      arguments: { urls: [`${site.url}/articles/rust-async`] },
      _meta: { traceparent: caller.traceparent },
    });
    expect(res.status).toBe(200);
    await res.text();
    const spans = await otlp.trace(caller.traceId, has('tools/call get_contents', 'op contents'));
    const call = byName(spans, 'tools/call get_contents')!;
    expect(call).toMatchObject({ parentSpanId: caller.parentId, kind: 2 });
    expect(call.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'get_contents' });
    expect(byName(spans, 'op contents')!.parentSpanId).toBe(call.spanId);
  });

  it('traces the model (gen_ai attributes) and web search; neither provider learns the trace', async () => {
    const caller = callerTrace();
    model.requests.length = 0;
    providers.seen.length = 0;
    const headers = { 'x-api-key': t.key, traceparent: caller.traceparent };
    const url = `${site.url}/articles/rust-async`;
    const summary = await postJson(t.url, '/contents', { urls: [url], summary: { query: 'async' } }, headers);
    expect(summary.status).toBe(200);
    const search = await postJson(t.url, '/search', { query: 'rust async runtimes', numResults: 3 }, headers);
    expect(search.status).toBe(200);
    const spans = await otlp.trace(caller.traceId, has('web_search searxng', `chat ${model.requests[0]?.body.model}`));
    const chat = spans.find((s) => s.name.startsWith('chat '))!;
    expect(chat.kind).toBe(3);
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': model.requests[0]!.body.model,
    });
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    const web = byName(spans, 'web_search searxng')!;
    expect(web.attributes).toMatchObject({ 'trawl.provider': 'searxng', 'trawl.search.query': 'rust async runtimes' });
    // the model's and the provider's HTTP calls are spans of the trace, without its context on the wire
    expect(spans.filter((s) => s.kind === 3 && s.parentSpanId === chat.spanId)).toHaveLength(1);
    expect(model.requests.every((r) => r.headers.traceparent === undefined)).toBe(true);
    expect(providers.seen.length).toBeGreaterThan(0);
    expect(providers.seen.every((r) => r.headers.traceparent === undefined)).toBe(true);
  });

  it('exports a zero-retention team’s spans without URL, query or text', async () => {
    const team = await t.app.services.accounts.teams.create('private', { zeroRetention: true }, null);
    const key = (await t.app.services.keys.create('zr', { teamId: team.id }, null)).key;
    const caller = callerTrace();
    const headers = { 'x-api-key': key, traceparent: caller.traceparent };
    const url = `${site.url}/articles/rust-async`;
    // a summary not asked before (none cached): the model is called
    expect((await postJson(t.url, '/contents', { urls: [url], summary: { query: 'private summary question' } }, headers)).status).toBe(200); // prettier-ignore
    expect((await postJson(t.url, '/search', { query: 'private words here', numResults: 3 }, headers)).status).toBe(200); // prettier-ignore
    const mcp = await mcpCall(t, key, { name: 'get_contents', arguments: { urls: [url] }, _meta: { traceparent: caller.traceparent } }); // prettier-ignore
    await mcp.text();
    const spans = await otlp.trace(
      caller.traceId,
      (found) =>
        has('POST /contents', 'POST /search', 'tools/call get_contents', 'web_search searxng', 'GET')(found) &&
        found.some((s) => s.name.startsWith('chat ')),
    );
    const text = JSON.stringify(spans.map((s) => s.attributes));
    for (const content of [
      'url.full',
      'url.path',
      'url.query',
      'server.address',
      'trawl.search.query',
      'user_agent.original',
    ]) {
      expect(text).not.toContain(content);
    }
    expect(text).not.toContain('private');
    expect(text).not.toContain('rust-async');
    expect(text).not.toContain('127.0.0.1');
    // every span is marked, but the key's lookup, which ends before the door knows whose key it is: it
    // carries the repository and method only
    const unmarked = spans.filter((s) => s.attributes['trawl.content_free'] !== true);
    expect(unmarked.every((s) => s.name.startsWith('store apiKeys.'))).toBe(true);
    expect(unmarked.flatMap((s) => Object.keys(s.attributes)).every((name) => name.startsWith('db.'))).toBe(true);
    // what happened and how it went stays
    expect(byName(spans, 'POST /search')!.attributes).toMatchObject({ 'http.route': '/search', 'http.response.status_code': 200 }); // prettier-ignore
    expect(spans.find((s) => s.name.startsWith('chat '))!.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
  });

  it('sends a webhook without the trace context, its attempt a content-free span', async () => {
    const before = otlp.spans.length;
    const created = await postJson(t.url, '/monitors', { search: { query: 'release notes' }, webhook: { url: hooks.url } }, { 'x-api-key': t.key }); // prettier-ignore
    expect(created.status).toBe(201);
    await t.app.services.monitors.engine.flush();
    expect(hooks.deliveries.length).toBeGreaterThan(0);
    expect(hooks.deliveries.every((d) => d.headers.traceparent === undefined)).toBe(true);
    const send = await waitForSpan(before, 'webhook send');
    expect(send.attributes).toMatchObject({ 'trawl.webhook.event_type': 'monitor.created', 'trawl.webhook.ok': true, 'trawl.content_free': true }); // prettier-ignore
    const attempt = await otlp.trace(send.traceId, (found) => found.some((s) => s.parentSpanId === send.spanId));
    expect(JSON.stringify(attempt.map((s) => s.attributes))).not.toContain(hooks.url);
  });
});

/** The first span named `name` received after the first `from` spans (polled). */
async function waitForSpan(from: number, name: string): Promise<ReceivedSpan> {
  for (let i = 0; i < 600; i++) {
    const span = otlp.spans.slice(from).find((s) => s.name === name);
    if (span) return span;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no span ${name} received`);
}

describe('with TRAWL_TRACE_PROPAGATE=all', () => {
  let t: TestServer;
  let tracing: Tracing;
  beforeAll(async () => ({ t, tracing } = await tracedServer('all')));
  afterAll(async () => {
    await t?.close();
    await tracing?.shutdown();
  });

  it('sends the trace context to the model and the web-search provider, still never to a web page', async () => {
    const caller = callerTrace();
    model.requests.length = 0;
    providers.seen.length = 0;
    site.requests.length = 0;
    const headers = { 'x-api-key': t.key, traceparent: caller.traceparent };
    const url = `${site.url}/articles/rust-async`;
    expect((await postJson(t.url, '/contents', { urls: [url], summary: { query: 'async' }, maxAgeHours: 0 }, headers)).status).toBe(200); // prettier-ignore
    expect((await postJson(t.url, '/search', { query: 'rust async runtimes', numResults: 3 }, headers)).status).toBe(200); // prettier-ignore
    const spans = await otlp.trace(caller.traceId, has('web_search searxng'));
    const sentTo = (header: unknown) => String(header).split('-')[1];
    expect(model.requests.length).toBeGreaterThan(0);
    expect(model.requests.every((r) => sentTo(r.headers.traceparent) === caller.traceId)).toBe(true);
    expect(providers.seen.every((r) => sentTo(r.headers.traceparent) === caller.traceId)).toBe(true);
    // the traceparent a provider got names the client span of its own request
    const parentSent = String(providers.seen[0]!.headers.traceparent).split('-')[2];
    expect(spans.find((s) => s.spanId === parentSent)?.kind).toBe(3);
    expect(site.requests.length).toBeGreaterThan(0);
    expect(site.requests.every((r) => r.headers.traceparent === undefined)).toBe(true);
  });

  it('sends the trace context to a webhook receiver', async () => {
    const before = otlp.spans.length;
    hooks.deliveries.length = 0;
    const created = await postJson(t.url, '/monitors', { search: { query: 'release notes' }, webhook: { url: hooks.url } }, { 'x-api-key': t.key }); // prettier-ignore
    expect(created.status).toBe(201);
    await t.app.services.monitors.engine.flush();
    const send = await waitForSpan(before, 'webhook send');
    const delivered = hooks.deliveries.find((d) => d.headers.traceparent !== undefined)!;
    expect(String(delivered.headers.traceparent).split('-')[1]).toBe(send.traceId);
  });
});
