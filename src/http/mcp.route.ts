/**
 * MCP streamable HTTP at /mcp, stateless: each POST gets a fresh server and transport, so a client that
 * keeps no session works and any instance behind a load balancer can answer. Same API keys as REST;
 * Host and Origin are checked against DNS rebinding.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Hono } from 'hono';
import type { App } from '../app.js';
import { ServiceError } from '../errors.js';
import { buildMcpServer } from '../mcp/server.js';
import { BETA_HEADERS, parseBetas } from '../ops/betas.js';
import type { Operation } from '../ops/define-op.js';
import { authenticate } from './auth.js';
import { createOriginGuard } from './origin-guard.js';
import type { HttpEnv } from './server.js';

/** Mounts /mcp serving `tools` (the configured selection of the HTTP app's operations). */
export function mountMcp(hono: Hono<HttpEnv>, app: App, tools: readonly Operation[]): void {
  const guard = createOriginGuard({
    listenHost: app.config.host,
    allowedHosts: app.config.allowedHosts,
    allowedOrigins: app.config.allowedOrigins,
  });

  hono.post('/mcp', async (c) => {
    const headers = c.req.raw.headers;
    guard(headers);
    const caller = authenticate(headers, app.services.keys);
    const betas = parseBetas(
      BETA_HEADERS.map((h) => c.req.header(h)),
      app.config.mcpBetas,
    );
    const server = buildMcpServer(app, { caller, betas }, tools);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
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
