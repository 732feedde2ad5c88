/**
 * The tracing settings and the content-free allowlist: when traces are on, what a bad protocol or
 * propagation setting says, and what a zero-retention team's span keeps of its attributes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { contentFreeAttributes } from '../../../src/observe/tracing/content-free.js';
import { startTracing, tracesWanted } from '../../../src/observe/tracing/start.js';

describe('tracesWanted', () => {
  it('is on with either OTLP endpoint, off without one or when the SDK is disabled', () => {
    expect(tracesWanted({ endpoint: 'http://127.0.0.1:4318', disabled: false })).toBe(true);
    expect(tracesWanted({ tracesEndpoint: 'http://127.0.0.1:4318/v1/traces', disabled: false })).toBe(true);
    expect(tracesWanted({ disabled: false })).toBe(false);
    expect(tracesWanted({ endpoint: 'http://127.0.0.1:4318', disabled: true })).toBe(false);
  });

  it('reads the standard variables and TRAWL_TRACE_PROPAGATE through the configuration', () => {
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SDK_DISABLED: 'TRUE',
      TRAWL_TRACE_PROPAGATE: 'providers',
    });
    expect(config).toMatchObject({ otlpEndpoint: 'http://collector:4318', otelSdkDisabled: true, tracePropagate: 'providers' }); // prettier-ignore
    expect(loadConfig({ OTEL_SDK_DISABLED: 'no' }).otelSdkDisabled).toBe(false);
    expect(() => loadConfig({ TRAWL_TRACE_PROPAGATE: 'everyone' })).toThrow(/TRAWL_TRACE_PROPAGATE="everyone"/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});

describe('startTracing', () => {
  afterEach(() => {
    delete process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  });

  it('refuses a protocol other than OTLP/HTTP, naming the variable and the port to use', async () => {
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'grpc';
    const start = startTracing({ endpoint: 'http://127.0.0.1:4317', disabled: false, propagate: 'none', serviceVersion: 't' }); // prettier-ignore
    await expect(start).rejects.toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc.*http\/protobuf.*4318/);
  });
});

describe('contentFreeAttributes', () => {
  it('keeps the allowlisted attributes with token values, and drops everything else', () => {
    const kept = contentFreeAttributes({
      'http.route': '/monitors/{id}',
      'http.response.status_code': 200,
      'gen_ai.response.finish_reasons': ['stop'],
      'trawl.webhook.ok': false,
      'url.full': 'https://example.com/a?q=secret',
      'server.address': 'example.com',
      'trawl.search.query': 'private words',
      'user_agent.original': 'Trawl/0.2',
      // an allowlisted name cannot carry content either
      'trawl.operation': 'https://example.com/',
      'gen_ai.request.model': 'a model name with spaces',
      'error.type': 'INVALID_URLS',
    });
    expect(kept).toEqual({
      'http.route': '/monitors/{id}',
      'http.response.status_code': 200,
      'gen_ai.response.finish_reasons': ['stop'],
      'trawl.webhook.ok': false,
      'error.type': 'INVALID_URLS',
    });
  });
});
