/**
 * Whether traces are on, and the tracing port of a process: `noTracing` when they are off (nothing of
 * OpenTelemetry is loaded), else the SDK's (./otel.ts), imported on first use and started once per
 * process, since the OpenTelemetry API's tracer provider, context manager and propagator are globals.
 */
import { noTracing, type Tracing } from '../../lib/tracing.js';
import type { TracingSettings } from './settings.js';

export type { TracingSettings } from './settings.js';

/** Traces are on when an OTLP endpoint is set and the SDK is not disabled. */
export function tracesWanted(settings: Pick<TracingSettings, 'endpoint' | 'tracesEndpoint' | 'disabled'>): boolean {
  return !settings.disabled && Boolean(settings.tracesEndpoint || settings.endpoint);
}

let started: Promise<Tracing> | undefined;

/**
 * The process's tracing port: `noTracing` when traces are off; else the SDK's, started on the first call
 * (later calls share it until its `shutdown`). Throws on a protocol other than OTLP/HTTP, naming it.
 */
export function startTracing(settings: TracingSettings): Promise<Tracing> {
  if (!tracesWanted(settings)) return Promise.resolve(noTracing);
  started ??= import('./otel.js').then(({ createOtelTracing }) => {
    const tracing = createOtelTracing(settings);
    return {
      ...tracing,
      async shutdown() {
        started = undefined;
        await tracing.shutdown();
      },
    };
  });
  // a start that failed (a bad protocol) is not kept: the error reaches every caller that asks again
  started.catch(() => (started = undefined));
  return started;
}
