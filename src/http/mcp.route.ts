/**
 * MCP streamable HTTP at /mcp, stateless: each POST gets a fresh server and transport, so a client that
 * keeps no session works and any instance behind a load balancer can answer. Same API keys as REST;
 * Host and Origin are checked against DNS rebinding.
 */
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { App } from '../app.js';
import { ServiceError } from '../errors.js';
import { BETA_HEADERS, parseBetas } from '../ops/betas.js';
import type { Operation } from '../ops/define-op.js';
import { authenticate } from './auth.js';
import { enforceRate } from './rate-limit.js';
import { createOriginGuard } from './origin-guard.js';
import type { HttpEnv } from './server.js';

/** Mounts /mcp serving `tools` (the configured selection of the HTTP app's operations). */
export function mountMcp(hono: Hono<HttpEnv>, app: App, tools: readonly Operation[]): void {
  const guard = createOriginGuard({
    listenHost: app.config.host,
    allowedHosts: app.config.allowedHosts,
    allowedOrigins: app.config.allowedOrigins,
  });

  const limit = bodyLimit({
    maxSize: app.config.maxBodyBytes,
    onError: () => {
      throw new ServiceError(
        'PAYLOAD_TOO_LARGE',
        `Request body is larger than ${app.config.maxBodyBytes} bytes (TRAWL_MAX_BODY_BYTES).`,
      );
    },
  });
  // The MCP SDK loads on the first /mcp request, so `trawl serve` is ready sooner.
  const sdk = () =>
    Promise.all([import('../mcp/server.js'), import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')]);

  hono.post('/mcp', limit, async (c) => {
    const headers = c.req.raw.headers;
    guard(headers);
    const caller = authenticate(headers, app.services.keys);
    enforceRate(c, app, caller);
    const betas = parseBetas(
      BETA_HEADERS.map((h) => c.req.header(h)),
      app.config.mcpBetas,
    );
    const [{ buildMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await sdk();
    const server = buildMcpServer(app, { caller, betas }, tools);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const res = await transport.handleRequest(c.req.raw);
    // the transport builds its own Response: carry over what the door set (the rate-limit headers)
    c.res.headers.forEach((value, name) => res.headers.set(name, value));
    return res;
  });

  hono.on(['GET', 'DELETE'], '/mcp', (c) => {
    guard(c.req.raw.headers);
    throw new ServiceError(
      'METHOD_NOT_ALLOWED',
      'This MCP endpoint is stateless: send JSON-RPC messages with POST; there is no session stream to open or delete.',
      { headers: { allow: 'POST' } },
    );
  });
}
