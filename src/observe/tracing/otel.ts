/**
 * The tracing port over the OpenTelemetry SDK: a tracer provider exporting OTLP over HTTP (protobuf, or
 * JSON per OTEL_EXPORTER_OTLP_PROTOCOL), undici's requests as client spans, W3C trace context read from
 * callers and written only where the operator allows (TRAWL_TRACE_PROPAGATE), and zero-retention
 * teams' spans exported content-free. Loaded by ./start.ts only when traces are on.
 */
import {
  context,
  createContextKey,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type Span as SdkSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import type { PropagationTarget, SpanHandle, SpanOptions, Tracing } from '../../lib/tracing.js';
import { contentFreeSpan } from './content-free.js';
import type { TracingSettings } from './settings.js';

/** Whose trace a span belongs to, shared by every span of one request or job in this process. */
interface Scope {
  contentFree: boolean;
}
const SCOPE = createContextKey('trawl.trace.scope');
/** Set by `propagating` where the setting allows: outgoing requests then carry the trace context. */
const PROPAGATE = createContextKey('trawl.trace.propagate');

/** W3C trace context, read from every caller, written only inside `propagating` (never on a page fetch). */
class GatedPropagator implements TextMapPropagator {
  private readonly w3c = new W3CTraceContextPropagator();
  inject(ctx: Context, carrier: unknown, setter: TextMapSetter): void {
    if (ctx.getValue(PROPAGATE) === true) this.w3c.inject(ctx, carrier, setter);
  }
  extract(ctx: Context, carrier: unknown, getter: TextMapGetter): Context {
    return this.w3c.extract(ctx, carrier, getter);
  }
  fields(): string[] {
    return this.w3c.fields();
  }
}

/** Exports a content-free view of each span whose trace is a zero-retention team's, or of no known team. */
class ContentFreeProcessor implements SpanProcessor {
  private readonly scopes = new WeakMap<object, Scope>();
  constructor(private readonly inner: SpanProcessor) {}
  onStart(span: SdkSpan, parent: Context): void {
    const scope = parent.getValue(SCOPE) as Scope | undefined;
    if (scope) this.scopes.set(span, scope);
    this.inner.onStart(span, parent);
  }
  onEnd(span: ReadableSpan): void {
    // decided at the end: a door learns whose request it serves after its span started
    const open = this.scopes.get(span)?.contentFree === false;
    this.inner.onEnd(open ? span : contentFreeSpan(span));
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

/**
 * The exporter of OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL, read from the environment as the SDK reads its
 * variables: http/protobuf (the default) or http/json. The exporter reads the headers, time-out and
 * compression variables itself.
 */
function exporterOf(settings: TracingSettings): SpanExporter {
  const env = process.env;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  const url = settings.tracesEndpoint ?? `${settings.endpoint!.replace(/\/+$/, '')}/v1/traces`;
  if (protocol === 'http/protobuf') return new OtlpProtobufExporter({ url });
  if (protocol === 'http/json') return new OtlpJsonExporter({ url });
  throw new Error(
    `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: Trawl exports traces over OTLP/HTTP only; set http/protobuf (the default) or http/json, and point the endpoint at the collector's HTTP port (4318).`,
  );
}

const KINDS = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT } as const;

/** A carrier of W3C trace context: only its string `traceparent` and `tracestate`. */
function carrierOf(source: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['traceparent', 'tracestate']) if (typeof source[name] === 'string') out[name] = source[name];
  return out;
}

/** The failure of `err` on `span`: error status, `error.type` (a ServiceError's tag, else the class). */
function recordFailure(span: Span, err: unknown): void {
  const e = err as { tag?: unknown; name?: unknown; message?: unknown };
  const type = typeof e?.tag === 'string' ? e.tag : typeof e?.name === 'string' ? e.name : 'Error';
  span.setAttribute('error.type', type);
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof e?.message === 'string' ? e.message : undefined });
}

/** The handle of work that records no span (a store call outside any trace). */
const NO_SPAN: SpanHandle = { set() {}, rename() {}, fail() {} };

function handleOf(span: Span): SpanHandle {
  return {
    set: (attributes) => {
      for (const [name, value] of Object.entries(attributes)) if (value !== undefined) span.setAttribute(name, value as never); // prettier-ignore
    },
    rename: (name) => void span.updateName(name),
    fail: (type) => {
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR });
    },
  };
}

/** Starts and registers the SDK; the port over it. One per process (the API's globals are the process's). */
export function createOtelTracing(settings: TracingSettings): Tracing {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'trawl', 'service.version': settings.serviceVersion }))
    .merge(detectResources({ detectors: [envDetector] })); // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win
  const processor = new ContentFreeProcessor(new BatchSpanProcessor(exporterOf(settings)));
  // the sampler is the SDK's from OTEL_TRACES_SAMPLER(_ARG); parent-based always-on by default
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register({ propagator: new GatedPropagator() });
  // undici's requests (page fetches, provider and webhook calls) as client spans, inside a trace only
  // (enabled on construction: its `enabled` setting is also read on every request, so it stays true)
  const undici = new UndiciInstrumentation({ requireParentforSpans: true });
  undici.setTracerProvider(provider);
  const tracer = provider.getTracer('trawl', settings.serviceVersion);
  const allowed = (target: PropagationTarget) => settings.propagate === 'all' || settings.propagate === target;

  /** A new span under `options`' parent: the active span, or the caller's; undefined when `childOnly` has none. */
  const open = (name: string, options: SpanOptions): { span: Span; ctx: Context } | undefined => {
    const active = context.active();
    const parent = options.carrier ? propagation.extract(active, carrierOf(options.carrier)) : active;
    if (options.childOnly && !trace.getSpan(parent)) return undefined;
    const inherited = parent.getValue(SCOPE) as Scope | undefined;
    const scoped = inherited ? parent : parent.setValue(SCOPE, { contentFree: options.contentFree ?? true });
    const attributes = Object.fromEntries(Object.entries(options.attributes ?? {}).filter(([, v]) => v !== undefined)); // prettier-ignore
    const span = tracer.startSpan(name, { kind: KINDS[options.kind ?? 'internal'], attributes: attributes as never }, scoped); // prettier-ignore
    return { span, ctx: trace.setSpan(scoped, span) };
  };

  return {
    enabled: true,
    span(name, options, work) {
      const opened = open(name, options);
      if (!opened) return work(NO_SPAN);
      const { span, ctx } = opened;
      let result;
      try {
        result = context.with(ctx, () => work(handleOf(span)));
      } catch (err) {
        recordFailure(span, err);
        span.end();
        throw err;
      }
      if (!(result instanceof Promise)) {
        span.end();
        return result;
      }
      return result.then(
        (value: unknown) => (span.end(), value),
        (err: unknown) => {
          recordFailure(span, err);
          span.end();
          throw err;
        },
      ) as typeof result;
    },
    iterate(name, options, source) {
      return {
        [Symbol.asyncIterator]() {
          let opened: { span: Span; ctx: Context } | undefined;
          let iterator: AsyncIterator<unknown> | undefined;
          let ended = false;
          const end = (err?: unknown) => {
            if (ended || !opened) return;
            ended = true;
            if (err !== undefined) recordFailure(opened.span, err);
            opened.span.end();
          };
          const start = () => {
            if (!iterator) {
              opened = open(name, options);
              const ctx = opened?.ctx ?? context.active();
              iterator = context.with(ctx, () =>
                source(opened ? handleOf(opened.span) : NO_SPAN)[Symbol.asyncIterator](),
              );
            }
            return { ctx: opened?.ctx ?? context.active(), it: iterator };
          };
          return {
            async next() {
              const { ctx, it } = start();
              try {
                const step = await context.with(ctx, () => it.next());
                if (step.done) end();
                return step;
              } catch (err) {
                end(err);
                throw err;
              }
            },
            async return(value?: unknown) {
              try {
                return (await iterator?.return?.(value)) ?? { done: true, value };
              } finally {
                end();
              }
            },
          } as AsyncIterator<never>;
        },
      };
    },
    markContentFree() {
      const scope = context.active().getValue(SCOPE) as Scope | undefined;
      if (scope) scope.contentFree = true;
    },
    propagating(target, work) {
      return allowed(target) ? context.with(context.active().setValue(PROPAGATE, true), work) : work();
    },
    async shutdown() {
      undici.disable();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
