/**
 * The HTTP door's span of each request (OpenTelemetry's HTTP server conventions): `METHOD /route`, a
 * continuation of the caller's trace when it sent `traceparent`, its status once answered. Health,
 * readiness and metrics probes are left out: they come every few seconds and say nothing of a request.
 */
import type { MiddlewareHandler } from 'hono';
import type { Tracing } from '../lib/tracing.js';
import type { HttpEnv } from './env.js';

const UNTRACED = new Set(['/health', '/ready', '/metrics']);

/** The middleware that runs each request in its server span (nothing when traces are off). */
export function traceRequests(tracing: Tracing): MiddlewareHandler<HttpEnv> {
  if (!tracing.enabled) return (_c, next) => next();
  return (c, next) => {
    if (UNTRACED.has(c.req.path)) return next();
    const method = c.req.method;
    const carrier = { traceparent: c.req.header('traceparent'), tracestate: c.req.header('tracestate') };
    const attributes = {
      'http.request.method': method,
      'url.path': c.req.path,
      'url.scheme': new URL(c.req.url).protocol.replace(':', ''),
      'user_agent.original': c.req.header('user-agent'),
      'trawl.door': c.req.path === '/mcp' ? 'mcp' : 'rest',
    };
    // the caller is known only once the route authenticated it: the trace is marked content-free then
    return tracing.span(method, { kind: 'server', carrier, attributes, contentFree: false }, async (span) => {
      await next();
      const route = c.req.routePath;
      span.rename(`${method} ${route}`);
      span.set({ 'http.route': route, 'http.response.status_code': c.res.status, 'trawl.request_id': c.get('requestId') }); // prettier-ignore
      if (c.res.status >= 500) span.fail(String(c.res.status));
      if (c.get('zeroRetention')) tracing.markContentFree();
    });
  };
}
