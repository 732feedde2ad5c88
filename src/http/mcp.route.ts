/**
 * MCP streamable HTTP at /mcp, stateless, both protocol revisions: the SDK's `createMcpHandler` serves
 * 2026-07-28 requests (each carries its version and capabilities in `_meta`) and, by its stateless
 * legacy fallback, 2025-11-25 clients that `initialize`; either way each POST gets a fresh server from
 * one factory (`buildMcpServer`), so a client that keeps no session works and any instance behind a
 * load balancer can answer. Same API keys as REST (a 401 carries a Bearer challenge), or none in the
 * keyless loopback mode; Host and Origin are checked against DNS rebinding.
 */
import type { Context, Hono } from 'hono';
import type { McpRequestContext } from '@modelcontextprotocol/server';
import type { Door, OAuthResource } from '../compose/door.js';
import { hasScope } from '../core/access/scopes.js';
import { grantOf } from '../core/accounts/oauth.js';
import { ServiceError } from '../errors.js';
import { BETA_HEADERS, parseBetas } from '../ops/betas.js';
import { narrowTools } from '../mcp/selection.js';
import type { Caller } from '../core/context.js';
import { authenticate, presentedKey } from './auth.js';
import { isJsonRequest, parseMeasuredJson, readBodyText } from './body.js';
import { ClientClosedError } from './errors.js';
import { HttpError } from './http-error.js';
import { createOriginGuard } from './origin-guard.js';
import { insufficientScopeChallenge, metadataPath } from './oauth/challenge.js';
import { metadataResponse } from './oauth/metadata.js';
import { scopesOfMessage } from './oauth/tool-scope.js';
import type { HttpEnv } from './env.js';
import { mcpOperationOf } from './request-metrics.js';

/**
 * Mounts /mcp serving `tools` (the configured selection); a request's `?tools=` (names or groups)
 * chooses within it.
 */
export function mountMcp(hono: Hono<HttpEnv>, app: Door, tools: readonly string[]): void {
  const guard = createOriginGuard({
    listenHost: app.config.host,
    allowedHosts: app.config.allowedHosts,
    allowedOrigins: app.config.allowedOrigins,
    keyless: app.config.mcpKeyless,
  });

  // The MCP SDK loads on the first /mcp request, so `trawl serve` is ready sooner.
  const sdk = () => Promise.all([import('../mcp/server.js'), import('@modelcontextprotocol/server')]);

  hono.post('/mcp', async (c) => {
    const headers = c.req.raw.headers;
    guard(headers);
    const caller = await callerOf(c, app);
    // tool calls count against the key's limits (src/mcp/server.ts), not the protocol's messages
    const betas = parseBetas(
      BETA_HEADERS.map((h) => c.req.header(h)),
      app.config.mcpBetas,
    );
    const chosen = toolsOf(c.req.queries('tools'), tools);
    const [{ buildMcpServer }, { createMcpHandler }] = await sdk();
    const { request, parsedBody } = await measuredMessage(c, app.config.maxBodyBytes);
    c.set('operation', mcpOperationOf(parsedBody));
    // one handler per POST, its factory holding this request's caller, betas and tools: the SDK builds
    // the server for the era the request is of (2026-07-28, or the stateless 2025-11-25 fallback)
    const mcp = createMcpHandler(
      ({ era }: McpRequestContext) => buildMcpServer(app, { caller, betas, tools: chosen, era }),
      { legacy: 'stateless', maxRequestBodySize: app.config.maxBodyBytes },
    );
    const res = await mcp.fetch(request, parsedBody === undefined ? {} : { parsedBody });
    // the SDK builds its own Response: carry over what the door set (the rate-limit headers)
    const out = new Response(res.body, { status: res.status, statusText: res.statusText, headers: res.headers });
    c.res.headers.forEach((value, name) => out.headers.set(name, value));
    return withRequestId(out, c.get('requestId'));
  });

  mountMcpRefusals(hono, guard, app);
}

/**
 * The request for the SDK's handler with its body read here, so that /mcp has the REST door's limits:
 * 413 past TRAWL_MAX_BODY_BYTES, 400 for a text over BODY_LIMITS (before it is parsed). A body that is
 * not JSON, or not sent as JSON, goes to the SDK as text, for its own JSON-RPC refusal.
 */
async function measuredMessage(
  c: Context<HttpEnv>,
  maxBytes: number,
): Promise<{ request: Request; parsedBody?: unknown }> {
  const text = await readBodyText(c, maxBytes);
  const incoming = c.env?.incoming;
  // a body cut short reads as bad JSON; the client went away, nobody is left to answer
  if (incoming && incoming.destroyed && !incoming.complete) throw new ClientClosedError('closed mid-body');
  const raw = c.req.raw;
  const request = new Request(raw.url, { method: raw.method, headers: raw.headers, body: text });
  if (text.trim() === '') return { request };
  const parsed = parseMeasuredJson(text); // measured whatever its type: no body reaches the SDK unmeasured
  return isJsonRequest(c) && 'body' in parsed ? { request, parsedBody: parsed.body } : { request };
}

/**
 * What /mcp refuses: GET and DELETE (405; the endpoint keeps no session). The OAuth discovery documents
 * MCP clients look for after a 401: with OAuth on, the protected-resource metadata (RFC 9728) of /mcp
 * and of the REST API; with it off, 404 (the API key is the credential). Trawl's own authorization
 * server, when on, serves its metadata on routes mounted before these.
 */
function mountMcpRefusals(hono: Hono<HttpEnv>, guard: (headers: Headers) => void, app: Door): void {
  hono.on(['GET', 'DELETE'], '/mcp', (c) => {
    guard(c.req.raw.headers);
    throw new HttpError(
      'METHOD_NOT_ALLOWED',
      'This MCP endpoint is stateless: send JSON-RPC messages with POST; there is no session stream to open or delete.',
      { headers: { allow: 'POST' } },
    );
  });

  // After a 401, MCP clients look for OAuth metadata (RFC 9728, RFC 8414). Without OAuth there is none:
  // the API key is the credential, so they should ask for one rather than start a login.
  const noOAuth = () => {
    const issuers = app.auth.enabled() ? app.auth.authorizationServers() : [];
    throw new ServiceError(
      'NOT_FOUND',
      issuers.length > 0
        ? `Not here: Trawl accepts access tokens of ${issuers.join(', ')}; read its metadata there, and this resource's at ${metadataPath('mcp')}.`
        : 'Trawl has no OAuth server: /mcp takes an API key ("x-api-key: KEY" or "Authorization: Bearer KEY"). Create one with: trawl keys create --name NAME',
    );
  };
  const resourceMetadata = (kind: OAuthResource) => (c: Context<HttpEnv>) =>
    app.auth.enabled() ? metadataResponse(c, app.auth, kind) : noOAuth();
  hono.get(metadataPath('mcp'), resourceMetadata('mcp'));
  hono.get(metadataPath('rest'), resourceMetadata('rest'));
  for (const doc of ['oauth-protected-resource', 'oauth-authorization-server', 'openid-configuration']) {
    hono.get(`/.well-known/${doc}`, noOAuth);
    hono.get(`/.well-known/${doc}/*`, noOAuth);
  }
}

/** The spec's tag for the HTTP status of a transport error (the SDK answers those itself). */
function tagOfStatus(status: number): string {
  const tags: Record<number, string> = {
    400: 'INVALID_REQUEST_BODY',
    404: 'NOT_FOUND',
    405: 'METHOD_NOT_ALLOWED',
    413: 'PAYLOAD_TOO_LARGE',
    415: 'UNSUPPORTED_MEDIA_TYPE',
  };
  return tags[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST');
}

/**
 * `res` with `x-request-id`, and for a transport error (a JSON-RPC error the SDK answered with a 4xx or
 * 5xx: bad JSON, a wrong Accept or Content-Type) `requestId` and `tag` in its `error.data`, so a client
 * can quote the request to an operator.
 */
async function withRequestId(res: Response, requestId: string): Promise<Response> {
  res.headers.set('x-request-id', requestId);
  if (res.status < 400 || !/json/i.test(res.headers.get('content-type') ?? '')) return res;
  const text = await res.text();
  let message: { error?: { data?: unknown } } | undefined;
  try {
    message = JSON.parse(text) as typeof message;
  } catch {
    return new Response(text, { status: res.status, headers: res.headers });
  }
  if (message?.error && typeof message.error === 'object') {
    const data = message.error.data && typeof message.error.data === 'object' ? message.error.data : {};
    message.error.data = { ...data, requestId, tag: tagOfStatus(res.status) };
  }
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(message), { status: res.status, headers });
}

/**
 * The caller of a /mcp request: the key's (an API key, or an access token for /mcp standing for one), or
 * the local user (null, as over stdio) when keyless mode is on and no credential was sent. A credential
 * that was sent is checked either way; a 401 carries the Bearer challenge. A token without the scope a
 * `tools/call` of the body needs is answered 403 with an `insufficient_scope` challenge (step-up).
 */
async function callerOf(c: Context<HttpEnv>, app: Door): Promise<Caller | null> {
  const headers = c.req.raw.headers;
  if (app.config.mcpKeyless && presentedKey(headers) === undefined) return null;
  const caller = await authenticate(headers, app, { challenge: true, resource: 'mcp' });
  const grant = grantOf(caller);
  if (!grant) return caller;
  const parsed = parseMeasuredJson(await readBodyText(c, app.config.maxBodyBytes));
  const missing = 'body' in parsed ? scopesOfMessage(parsed.body).filter((s) => !hasScope(caller.scopes, s)) : [];
  if (missing.length === 0) return caller;
  throw new HttpError(
    'INSUFFICIENT_SCOPE',
    `The access token lacks the "${missing.join(' ')}" scope this call needs (it grants: ${caller.scopes?.join(' ') || 'none'} of its key's); sign in again asking for it.`,
    { headers: { 'www-authenticate': insufficientScopeChallenge(app.auth, 'mcp', missing.join(' ')) } },
  );
}

/** The tools `?tools=a,b&tools=c` asks for within the server's; unknown or not enabled: 400 naming them. */
function toolsOf(values: string[] | undefined, allowed: readonly string[]): readonly string[] {
  if (!values) return allowed;
  try {
    return narrowTools(
      allowed,
      values.flatMap((v) => v.split(',')),
    );
  } catch (err) {
    throw new ServiceError('INVALID_REQUEST_QUERY', `tools: ${(err as Error).message}`, { field: 'tools' });
  }
}
