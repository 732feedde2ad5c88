/**
 * Every HTTP request counted and timed by door and operation (src/lib/observe.ts →
 * `trawl_requests_total`, `trawl_request_duration_seconds`). The labels are bounded: the door from a
 * fixed set by path, the operation a registry name (set by the route that ran it), an MCP method or
 * tool of the catalogue, or a fixed route name; never the path, a URL, a key or a query.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { observe, since, type Door } from '../lib/observe.js';
import { toolNameOf } from '../ops/define-op.js';
import { OPERATIONS } from '../ops/registry.js';
import type { HttpEnv } from './env.js';

/** The door a path belongs to. */
function doorOf(path: string): Door {
  if (path === '/mcp') return 'mcp';
  if (path === '/console' || path.startsWith('/console/')) return 'console';
  if (path.startsWith('/v1/')) return 'responses';
  if (path.startsWith('/oauth/') || path.startsWith('/.well-known/')) return 'oauth';
  if (SYSTEM_ROUTES.has(path)) return 'system';
  return 'rest';
}

/** Routes of the door itself, named by their path. */
const SYSTEM_ROUTES = new Map([
  ['/health', 'health'],
  ['/ready', 'ready'],
  ['/metrics', 'metrics'],
  ['/openapi.json', 'openapi'],
]);

/** The MCP methods a request may be counted under (others are `other`). */
const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
  'tasks/update',
  'logging/setLevel',
  'completion/complete',
  'server/discover',
]);

/** Every tool name of the catalogue. */
const TOOLS = new Set([...OPERATIONS.filter((op) => !op.restOnly).map(toolNameOf), 'agent_run']);

/**
 * The operation of one MCP message: `tool:<name>` for a call of a catalogued tool, the method for a
 * known one, `notification` for a notification, `batch` or `other` otherwise.
 */
export function mcpOperationOf(body: unknown): string {
  if (Array.isArray(body)) return 'batch';
  const message = body as { method?: unknown; params?: { name?: unknown }; id?: unknown } | null;
  const method = typeof message?.method === 'string' ? message.method : undefined;
  if (!method) return 'other';
  if (method.startsWith('notifications/')) return 'notification';
  if (method === 'tools/call') {
    const name = message?.params?.name;
    return typeof name === 'string' && TOOLS.has(name) ? `tool:${name}` : method;
  }
  return MCP_METHODS.has(method) ? method : 'other';
}

/** The operation a request is counted under: what its route set, else by path. */
function operationOf(c: Context<HttpEnv>): string {
  const set = c.get('operation');
  if (set) return set;
  const path = c.req.path;
  const named = SYSTEM_ROUTES.get(path);
  if (named) return named;
  if (path.startsWith('/console')) return path.startsWith('/console/api/') ? 'other' : 'console_page';
  if (path.startsWith('/oauth/') || path.startsWith('/.well-known/')) return 'oauth';
  if (path.startsWith('/v1/')) return 'responses';
  return 'other';
}

/** Middleware: counts and times each request once its answer (or a stream's head) is made. */
export const observeRequests: MiddlewareHandler<HttpEnv> = async (c, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    observe.request(doorOf(c.req.path), operationOf(c), c.res.status, since(started));
  }
};
