/**
 * The MCP door: an McpServer whose tools are the registry's operations (same validation, same handlers
 * as REST), advertised compactly (src/mcp/catalog.ts) and answered within a token budget, with page
 * content fenced and cut answers continued by cursor (src/mcp/reply/). Failures are tool results with
 * `isError: true` whose text says what to change.
 */
import { setMaxListeners } from 'node:events';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type ClientCapabilities,
  type LoggingLevel,
  type Result,
  type ServerContext,
} from '@modelcontextprotocol/server';
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
import type { DoorTool, Era, Extra, ToolDeps } from './types.js';
import { installLogging } from './logging.js';
import { CACHE_HINTS, INSTRUCTIONS, MODERN_PROTOCOL_VERSION, SERVER_INFO } from './handshake.js';
import { createDoorTasks, TASKS_CAPABILITY, TASKS_EXTENSION } from './tasks/door.js';
import { isTaskExtra } from './tasks/extra.js';
import { installTaskHandlers, modernTask } from './tasks/handlers.js';
import { roundStateCodec, samplingRound, withRound } from './input-required.js';
import { registerToolReference } from './reference.js';
import { clientModel } from './sampling.js';
import { resolveTools } from './selection.js';
import { tracedTools } from './trace.js';

export interface McpDoorOptions {
  /** The authenticated caller (HTTP), or null for the user's own stdio process. */
  caller: Caller | null;
  /** Beta tokens the calls run with. */
  betas: ReadonlySet<string>;
  /** The tools to serve (names from the catalog); default: the configured selection. */
  tools?: readonly string[];
  /**
   * The protocol era the server serves (the SDK's serving entry says which: `createMcpHandler` per
   * HTTP request, `serveStdio` per connection); default `legacy`, a server a 2025-11-25 client
   * `initialize`s.
   */
  era?: Era;
}

/** The protocol versions the door serves: 2026-07-28, and every 2025-era one the SDK negotiates. */
export const PROTOCOL_VERSIONS = [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

export type { Extra } from './types.js';

/**
 * Builds a server for one connection (stdio), or one HTTP request (stateless streamable HTTP), of
 * either era: the same tools, budgets, fences, resources, logging and tasks, each in its era's shape.
 */
export function buildMcpServer(app: Door, options: McpDoorOptions): McpServer {
  const era = options.era ?? 'legacy';
  let capabilities: ClientCapabilities | undefined; // the last request's (2025-11-25: its initialize)
  // MCP tasks (src/mcp/tasks/): a store bound to this caller, so no key reads another's tasks
  const tasks = createDoorTasks(app, options.caller, {
    agentRun: () => table.get('agent_run') ?? agentRunTool(toolDeps),
    clientSampling: () => era === 'legacy' && capabilities?.sampling !== undefined,
  });
  // name and instructions as `trawl mcp` answers them before it loads this module (src/mcp/handshake.ts)
  const server = new McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    supportedProtocolVersions: PROTOCOL_VERSIONS,
    cacheHints: CACHE_HINTS,
    // 2026-07-28: the signed state of the client's model's answers across input_required rounds
    ...(era === 'modern' ? { requestState: { verify: (state, ctx) => roundStateCodec().verify(state, ctx) } } : {}),
    capabilities: {
      logging: {},
      ...(era === 'legacy' ? { tasks: TASKS_CAPABILITY } : { extensions: { [TASKS_EXTENSION]: {} } }),
    },
  });
  const logging = installLogging(server.server);
  const owner = ownerKeyId(options.caller ?? null);

  /** The door's view of one request (src/mcp/types.ts `Extra`). */
  const toExtra = (ctx: ServerContext): Extra => {
    const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
    capabilities =
      era === 'modern'
        ? (envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)
        : server.server.getClientCapabilities();
    const logLevel = envelope[LOG_LEVEL_META_KEY] as LoggingLevel | undefined;
    return {
      era,
      signal: ctx.mcpReq.signal,
      ...(ctx.mcpReq._meta ? { _meta: ctx.mcpReq._meta } : {}),
      ...(capabilities ? { clientCapabilities: capabilities } : {}),
      ...(logLevel ? { logLevel } : {}),
      sendNotification: (n) => ctx.mcpReq.notify(n),
      // 2026-07-28 has no server-sent requests: a tool call may answer input_required instead (below)
      ...(era === 'legacy'
        ? { requestSampling: (params, opts) => ctx.mcpReq.requestSampling(params, opts) as Promise<never> }
        : {}),
    };
  };

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
      clientModel: isTaskExtra(extra) ? undefined : clientModel(extra),
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
  // each call in its span, continuing the client's trace when its `_meta` carries a traceparent
  const table = tracedTools(app.tracing, options.caller, buildToolTable(names, toolDeps));

  server.server.registerCapabilities({ tools: { listChanged: false } });
  // the catalog's order (deterministic); 2026-07-28 has no `execution` (a task is the server's choice)
  const list = {
    tools: names.map(advertised).map((t) => (era === 'modern' ? withoutExecution(t) : t)),
  } as { tools: never[] };
  server.server.setRequestHandler('tools/list', () => list);
  server.server.setRequestHandler('tools/call', async (request, ctx) => {
    let extra = toExtra(ctx);
    const tool: DoorTool | undefined = table.get(request.params.name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Tool ${request.params.name} not found; this server serves ${names.join(', ')}.`,
      );
    }
    // 2025-11-25: the client asks for a task (`task`); 2026-07-28: the server decides (agent_run, when
    // the client's capabilities name the Tasks extension and the caller's results may wait in the store)
    const asTask =
      era === 'legacy'
        ? request.params.task !== undefined
        : tool.name === 'agent_run' &&
          extra.clientCapabilities?.extensions?.[TASKS_EXTENSION] !== undefined &&
          !options.caller?.zeroRetention;
    // a tool call counts against the key's limits (protocol messages, tasks/* and resources do not)
    const entry = options.caller ? await app.accounts.enterRequest(options.caller) : null;
    if (entry && !entry.allowed) {
      const refusal = rateRefusal(entry.message, entry.retryAfterMs);
      // a call that asked for a task answers a task or a JSON-RPC error, never a tool result
      if (asTask && era === 'legacy') throw new ProtocolError(ProtocolErrorCode.InvalidRequest, refusal);
      return { isError: true, content: [{ type: 'text', text: refusal }] };
    }
    let slot = entry?.release;
    try {
      // a call with `task` answers the task at once; the work goes on (src/mcp/tasks/), holding the call's slot
      if (asTask) {
        const created = await tasks.start(tool, request.params, extra, slot);
        slot = undefined; // the task's now: given back when its work ends
        // `content: []`: the SDK validates every tools/call result as a tool result, and a task carries
        // none (2025-11-25 clients read `task`, 2026-07-28 ones the flat task of `resultType: "task"`)
        const task = era === 'legacy' ? created : { resultType: 'task', ...modernTask(created.task) };
        return { content: [], ...task } as never;
      }
      // 2026-07-28, the local caller's client offering its model: asked by input_required (input-required.ts)
      const round =
        era === 'modern' && options.caller === null && extra.clientCapabilities?.sampling && tool.name !== 'agent_run'
          ? samplingRound(ctx)
          : undefined;
      if (round) extra = withRound(extra, round);
      const result = (await tool.call(request.params.arguments ?? {}, extra)) as Result as CallToolResult;
      return round?.waiting() ? ((await round.ask(ctx)) ?? result) : result;
    } finally {
      slot?.();
    }
  });

  installTaskHandlers(server.server, era, tasks.store);
  const deps = { ops: app.ops, contextFor: (ctx: ServerContext, tool: string) => contextFor(toExtra(ctx), tool), failure }; // prettier-ignore
  if (names.includes('agent_run') || names.includes('agent_runs')) registerAgentRunResources(server, deps);
  registerToolReference(server, names);
  return server;
}

/** A tools/list entry without the 2025-11-25 `execution` field. */
function withoutExecution(tool: Record<string, unknown>): Record<string, unknown> {
  const { execution: _execution, ...rest } = tool;
  return rest;
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
