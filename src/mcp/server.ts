/**
 * The MCP door: an McpServer whose tools are the registry's operations (same validation, same handlers
 * as REST), advertised compactly (src/mcp/catalog.ts) and answered within a token budget, with page
 * content fenced and cut answers continued by cursor (src/mcp/reply/). Failures are tool results with
 * `isError: true` whose text says what to change.
 */
import { setMaxListeners } from 'node:events';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Door } from '../compose/door.js';
import { ownerKeyId } from '../core/access/access.js';
import type { Caller, ServiceContext } from '../core/context.js';
import { toServiceError } from '../errors.js';
import { withoutContent } from '../lib/logger.js';
import { newRequestId } from '../ops/invoke.js';
import { advertised } from './catalog.js';
import { agentRunTool, registerAgentRunResources } from './agent-tool.js';
import { pagerFor } from './reply/store.js';
import { buildToolTable } from './tools.js';
import type { DoorTool, Extra, ToolDeps } from './types.js';
import { installLogging } from './logging.js';
import { INSTRUCTIONS, SERVER_INFO } from './handshake.js';
import { createDoorTasks, TASKS_CAPABILITY } from './tasks/door.js';
import { isTaskExtra } from './tasks/extra.js';
import { registerToolReference } from './reference.js';
import { clientModel } from './sampling.js';
import { resolveTools } from './selection.js';

export interface McpDoorOptions {
  /** The authenticated caller (HTTP), or null for the user's own stdio process. */
  caller: Caller | null;
  /** Beta tokens the calls run with. */
  betas: ReadonlySet<string>;
  /** The tools to serve (names from the catalog); default: the configured selection. */
  tools?: readonly string[];
}

export type { Extra } from './types.js';

/** Builds a server for one connection (stdio) or one HTTP request (stateless streamable HTTP). */
export function buildMcpServer(app: Door, options: McpDoorOptions): McpServer {
  // MCP tasks (src/mcp/tasks/): a store bound to this caller, so no key reads another's tasks
  const tasks = createDoorTasks(app, options.caller, {
    agentRun: () => table.get('agent_run') ?? agentRunTool(toolDeps),
    clientSampling: () => server.server.getClientCapabilities()?.sampling !== undefined,
  });
  // name and instructions as `trawl mcp` answers them before it loads this module (src/mcp/handshake.ts)
  const server = new McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    taskStore: tasks.store,
    capabilities: { logging: {}, tasks: TASKS_CAPABILITY },
  });
  const logging = installLogging(server.server);
  const owner = ownerKeyId(options.caller ?? null);

  /** The service context of one MCP request: caller, betas, a child logger, progress to the client's token. */
  const contextFor = (extra: Extra, tool: string): ServiceContext => {
    const requestId = newRequestId();
    // one call may run many fetches or model calls at once, each listening: not a leak
    setMaxListeners(1000, extra.signal);
    const base = options.caller?.zeroRetention ? withoutContent(app.logger) : app.logger;
    const progressToken = extra._meta?.progressToken;
    return {
      requestId,
      logger: base.child({ requestId, tool }),
      signal: extra.signal,
      caller: options.caller,
      clock: app.clock,
      betas: options.betas,
      // the client's own model writes answers when it offers sampling (docs/synthesis.md); a task outlives
      // the request that could reach it, so work inside a task has none
      clientModel: isTaskExtra(extra) ? undefined : clientModel(server.server.getClientCapabilities(), extra),
      onWarning: logging.warner(extra),
      ...(progressToken !== undefined
        ? {
            onProgress: (p) =>
              void extra
                .sendNotification({ method: 'notifications/progress', params: { progressToken, ...p } })
                .catch(() => undefined),
          }
        : {}),
    };
  };

  const names = options.tools ?? resolveTools(app.config.tools);
  const toolDeps: ToolDeps = {
    app,
    ops: app.ops,
    contextFor,
    failure,
    pager: pagerFor(app),
    owner,
    memoryOnly: options.caller?.zeroRetention === true,
  };
  const table = buildToolTable(names, toolDeps);

  server.server.registerCapabilities({ tools: { listChanged: false } });
  const list = { tools: names.map(advertised) };
  server.server.setRequestHandler(ListToolsRequestSchema, () => list);
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool: DoorTool | undefined = table.get(request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Tool ${request.params.name} not found; this server serves ${names.join(', ')}.`,
      );
    }
    // a tool call counts against the key's limits (protocol messages, tasks/* and resources do not)
    const entry = options.caller ? await app.accounts.enterRequest(options.caller) : null;
    if (entry && !entry.allowed) {
      const refusal = rateRefusal(entry.message, entry.retryAfterMs);
      // a task-augmented call answers a task or a JSON-RPC error, never a tool result
      if (request.params.task) throw new McpError(ErrorCode.InvalidRequest, refusal);
      return { isError: true, content: [{ type: 'text', text: refusal }] };
    }
    let slot = entry?.release;
    try {
      // a call with `task` answers the task at once; the work goes on (src/mcp/tasks/), holding the call's slot
      if (request.params.task) {
        const created = await tasks.start(tool, request.params, extra, slot);
        slot = undefined; // the task's now: given back when its work ends
        return created;
      }
      return await tool.call(request.params.arguments ?? {}, extra);
    } finally {
      slot?.();
    }
  });

  const deps = { ops: app.ops, contextFor, failure };
  if (names.includes('agent_run') || names.includes('agent_runs')) registerAgentRunResources(server, deps);
  registerToolReference(server, names);
  return server;
}

/** Why a tool call over the key's limits is refused, and when to retry. */
function rateRefusal(message: string, retryAfterMs: number): string {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return `RATE_LIMIT_EXCEEDED: ${message}; retry in ${seconds} s`;
}

/** A failure as a tool result: `TAG: message`, logged with its cause when it was unexpected. */
export function failure(thrown: unknown, logger: Door['logger']): CallToolResult {
  const err = toServiceError(thrown);
  if (err.tag === 'INTERNAL_ERROR') logger.error({ err: thrown }, 'tool call failed');
  else logger.info({ tag: err.tag }, 'tool call rejected');
  return { isError: true, content: [{ type: 'text', text: `${err.tag}: ${err.message}` }] };
}
