/** Settings of OpenTelemetry traces: whether they are exported (the standard variables) and where the trace context may go. */
import { z } from 'zod';

/** Where a trace's context goes besides Trawl's own spans: `none`, the providers' APIs, webhook receivers, or both. */
export const TRACE_PROPAGATION = ['none', 'providers', 'webhooks', 'all'] as const;

/** `true` in any case, as the OpenTelemetry SDK reads its booleans; any other word is false. */
const otelBoolean = z.union([z.boolean(), z.string().transform((v) => v.trim().toLowerCase() === 'true')]);

/** Rows of SETTINGS (../settings.ts): env var, CLI flag, schema, default and the line docs/configuration.md shows. */
export const TRACING_SETTINGS = {
  otlpEndpoint: {
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    flag: '--otlp-endpoint',
    schema: z.url({ protocol: /^https?$/ }),
    default: undefined,
    doc: 'The standard OpenTelemetry variable: the OTLP/HTTP collector spans are exported to (`/v1/traces` is added), e.g. `http://127.0.0.1:4318`. Set, it turns traces on (docs/operations.md#traces); the SDK reads the other `OTEL_*` variables itself.',
  },
  otlpTracesEndpoint: {
    env: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    flag: '--otlp-traces-endpoint',
    schema: z.url({ protocol: /^https?$/ }),
    default: undefined,
    doc: 'The standard OpenTelemetry variable: the full URL spans are exported to (nothing added); wins over `OTEL_EXPORTER_OTLP_ENDPOINT`. Set, it turns traces on.',
  },
  otelSdkDisabled: {
    env: 'OTEL_SDK_DISABLED',
    flag: '--otel-sdk-disabled',
    schema: otelBoolean,
    default: false,
    doc: 'The standard OpenTelemetry variable: `true` keeps traces off whatever the endpoints say (the SDK is not even loaded).',
  },
  tracePropagate: {
    env: 'TRAWL_TRACE_PROPAGATE',
    flag: '--trace-propagate',
    schema: z.enum(TRACE_PROPAGATION),
    default: 'none',
    doc: 'Which outgoing calls carry the trace context (`traceparent`, `tracestate`): `none`, `providers` (the model, embeddings and web-search APIs), `webhooks` (monitors’ receivers) or `all`. Fetches of web pages never do; by default no third party learns trace ids.',
  },
} as const;
