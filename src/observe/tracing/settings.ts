/** The settings of traces, as the composition root hands them to ./start.ts and ./otel.ts. */

/** What the composition root reads from the configuration; the SDK reads the other `OTEL_*` variables itself. */
export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL (`/v1/traces` is added). */
  endpoint?: string;
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: the full URL; wins over `endpoint`. */
  tracesEndpoint?: string;
  /** OTEL_SDK_DISABLED. */
  disabled: boolean;
  /** TRAWL_TRACE_PROPAGATE: which outgoing calls carry the trace context. */
  propagate: 'none' | 'providers' | 'webhooks' | 'all';
  serviceVersion: string;
}
