/**
 * What a zero-retention team's spans may carry when they are exported: an allowlist of attributes that
 * say what happened and how it went (method, route template, status, operation, model, token counts,
 * store method), never what was asked or fetched. Anything not listed is dropped, whatever its name
 * (a URL, a query, a host, an error message), as src/lib/content-free.ts does for log lines.
 */
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-node';

/** Attributes a content-free span keeps (with a number, a boolean or a short token as value). */
export const CONTENT_FREE_ATTRIBUTES: ReadonlySet<string> = new Set([
  'http.request.method',
  'http.request.method_original',
  'http.response.status_code',
  'http.route',
  'url.scheme',
  'network.protocol.version',
  'error.type',
  'exception.type',
  'mcp.method.name',
  'gen_ai.tool.name',
  'gen_ai.operation.name',
  'gen_ai.provider.name',
  'gen_ai.request.model',
  'gen_ai.request.max_tokens',
  'gen_ai.request.temperature',
  'gen_ai.response.model',
  'gen_ai.response.finish_reasons',
  'gen_ai.output.type',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'db.system.name',
  'db.operation.name',
  'db.collection.name',
  'trawl.request_id',
  'trawl.operation',
  'trawl.door',
  'trawl.team_id',
  'trawl.provider',
  'trawl.search.result_count',
  'trawl.embeddings.input_count',
  'trawl.webhook.event_type',
  'trawl.webhook.ok',
  'trawl.webhook.attempt_ms',
]);

/** A string value kept: a short token (a tag, an id, a method, a route template), never a URL or words. */
const TOKEN = /^[\w.:/{}-]{1,80}$/;

function safeValue(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const token = (v: unknown) => typeof v === 'string' && !v.includes('//') && TOKEN.test(v);
  if (typeof value === 'string') return token(value) ? value : undefined;
  if (Array.isArray(value) && value.every(token)) return value;
  return undefined;
}

/** The allowlisted attributes of `attributes` whose values are safe. */
export function contentFreeAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (!CONTENT_FREE_ATTRIBUTES.has(name)) continue;
    const safe = safeValue(value);
    if (safe !== undefined) out[name] = safe;
  }
  return out;
}

/**
 * The span as a zero-retention team's trace exports it: its ids, name, kind, times and status code as
 * they are; attributes and events' attributes allowlisted; no status message, no links' attributes.
 * A view over the ended span (its prototype), so the SDK's own span is left as it was.
 */
export function contentFreeSpan(span: ReadableSpan): ReadableSpan {
  const events: TimedEvent[] = span.events.map((event) => ({
    ...event,
    ...(event.attributes ? { attributes: contentFreeAttributes(event.attributes) } : {}),
  }));
  return Object.create(span, {
    attributes: { value: { ...contentFreeAttributes(span.attributes), 'trawl.content_free': true } },
    events: { value: events },
    status: { value: { code: span.status.code } },
    links: { value: span.links.map((link) => ({ context: link.context })) },
  }) as ReadableSpan;
}
