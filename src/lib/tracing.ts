/**
 * The tracing port: what the doors, the operations and the composition root's wrappers of the store,
 * the providers and the webhook sender call to make spans. Free of OpenTelemetry: the implementation
 * (src/observe/tracing/) loads the SDK only when the operator turned traces on; until then every call
 * is `noTracing`'s, which runs the work and records nothing.
 */

/** A span attribute's value; `undefined` leaves the attribute out. */
export type SpanValue = string | number | boolean | readonly string[] | undefined;
export type SpanAttributes = Record<string, SpanValue>;

/** The span a piece of work runs in, for what it learns as it goes (a status code, a count). */
export interface SpanHandle {
  set(attributes: SpanAttributes): void;
  /** Renames the span once its name is known (an HTTP server span, to its route's template). */
  rename(name: string): void;
  /** Marks the span failed (a 5xx it answered, a failed attempt that threw nothing); `type`: `error.type`. */
  fail(type: string): void;
}

/** What the outgoing calls within `propagating` are: they carry `traceparent` if the setting allows it. */
export type PropagationTarget = 'providers' | 'webhooks';

export interface SpanOptions {
  /** `server`: the door's span of a request; `client`: a call to another service; default `internal`. */
  kind?: 'internal' | 'server' | 'client';
  attributes?: SpanAttributes;
  /**
   * A caller's W3C trace context (`traceparent`, `tracestate`: HTTP headers, MCP `params._meta`): the
   * span continues that trace. A malformed value is ignored (a new trace, or the active one, goes on).
   */
  carrier?: Readonly<Record<string, unknown>>;
  /**
   * Whose trace this is, when the span starts one of its own (a door's request, a job): `false` for a
   * caller not yet known (the door marks a zero-retention team's with `markContentFree`). Spans that
   * start without one (background work of an unknown team) are content-free.
   */
  contentFree?: boolean;
  /** Record the span only inside a trace already going (the store's calls: no trace of their own). */
  childOnly?: boolean;
}

export interface Tracing {
  /** Whether spans are recorded (OTLP export configured); `false`: every method only runs the work. */
  readonly enabled: boolean;
  /** Runs `work` in a new span (a child of the active one), ended when it returns or settles; errors pass through. */
  span<T>(name: string, options: SpanOptions, work: (span: SpanHandle) => T): T;
  /** The items of `source` (made on the first pull) in one span that ends with them; each pull runs in it. */
  iterate<T>(name: string, options: SpanOptions, source: (span: SpanHandle) => AsyncIterable<T>): AsyncIterable<T>;
  /** The trace of the active span is a zero-retention team's: its spans are exported without content. */
  markContentFree(): void;
  /** Runs `work` so that its outgoing HTTP calls carry the trace context, if TRAWL_TRACE_PROPAGATE allows `target`. */
  propagating<T>(target: PropagationTarget, work: () => T): T;
  /** Exports the spans still buffered, then stops (the app's close). */
  shutdown(): Promise<void>;
}

const NO_SPAN: SpanHandle = { set() {}, rename() {}, fail() {} };

/** Tracing off: the work runs, nothing is recorded, no OpenTelemetry module is loaded. */
export const noTracing: Tracing = {
  enabled: false,
  span: (_name, _options, work) => work(NO_SPAN),
  iterate: (_name, _options, source) => ({ [Symbol.asyncIterator]: () => source(NO_SPAN)[Symbol.asyncIterator]() }),
  markContentFree() {},
  propagating: (_target, work) => work(),
  shutdown: () => Promise.resolve(),
};
