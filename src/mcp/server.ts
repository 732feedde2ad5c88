/**
 * The MCP door: an McpServer whose tools are the registry's operations (same schemas, same handlers as
 * REST). Each tool returns a text rendering for the model plus `structuredContent`; failures are tool
 * results with `isError: true` whose text says what to change.
 */
import { setMaxListeners } from 'node:events';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { App } from '../app.js';
import type { Caller, ServiceContext } from '../core/context.js';
import { ServiceError, toServiceError } from '../errors.js';
import type { Operation } from '../ops/define-op.js';
import { invoke, newRequestId } from '../ops/invoke.js';
import { parseOrThrow } from '../ops/validation.js';
import { selectOperations } from '../ops/registry.js';
import { VERSION } from '../version.js';
import { withoutContent } from '../lib/logger.js';
import { createAgentRunOp, getAgentRunOp } from '../ops/agent-runs.ops.js';
import { fitToBudget } from './budget.js';
import { registerAgentRunResources, registerAgentRunTool } from './agent-tool.js';
import { clientModel } from './sampling.js';

export interface McpDoorOptions {
  /** The authenticated caller (HTTP), or null for the user's own stdio process. */
  caller: Caller | null;
  /** Beta tokens the calls run with. */
  betas: ReadonlySet<string>;
}

const INSTRUCTIONS =
  'Trawl searches the web and fetches clean page contents for coding work. Use `search` to find pages, ' +
  '`get_contents` to read URLs you already have, `get_code_context` for code examples of a library or API, ' +
  '`find_similar` for pages like a given one. `monitors` (one tool, with an `action`) schedules searches ' +
  'that post new results to a webhook. `agent_run` researches a longer task and waits for its answer (when it ' +
  'runs past the call window, call it again with the `runId` it gave).';

/**
 * Builds a server for one connection (stdio) or one HTTP request (stateless streamable HTTP), with the
 * configured tools (or `operations`, which tests pass).
 */
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Builds a server for one connection (stdio) or one HTTP request (stateless streamable HTTP), with the
 * configured tools (or `operations`, which tests pass). Operations of a tool group share one tool.
 */
export function buildMcpServer(
  app: App,
  options: McpDoorOptions,
  operations: readonly Operation[] = selectOperations(app.config.tools),
): McpServer {
  const server = new McpServer({ name: 'trawl', title: 'Trawl', version: VERSION }, { instructions: INSTRUCTIONS });

  /** The service context of one MCP request: caller, betas, a child logger, progress to the client's token. */
  const contextFor = (extra: Extra, tool: string): ServiceContext => {
    const requestId = newRequestId();
    // one call may run many fetches or model calls at once, each listening: not a leak
    setMaxListeners(1000, extra.signal);
    const base = options.caller?.zeroRetention ? withoutContent(app.logger) : app.logger;
    const progressToken = extra._meta?.progressToken;
    return {
      notes: {},
      requestId,
      logger: base.child({ requestId, tool }),
      signal: extra.signal,
      caller: options.caller,
      clock: app.clock,
      betas: options.betas,
      // the client's own model writes answers when it offers sampling (docs/synthesis.md)
      clientModel: clientModel(server.server.getClientCapabilities(), extra),
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

  /** One call of `op` with already-validated arguments: the text for the model and the structured output. */
  const call = async (op: Operation, args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> => {
    const ctx = contextFor(extra, op.tool);
    const { logger } = ctx;
    try {
      const input = op.toolDefaults(args);
      const output = await invoke(op, app.services, input, ctx);
      logger.info({ ok: true }, 'tool call');
      const info = { input, notes: ctx.notes ?? {} };
      const fitted = fitToBudget(output, (out) => op.render(out, info), app.config.mcpMaxTokens);
      return {
        content: [{ type: 'text', text: fitted.text }],
        structuredContent: fitted.output as Record<string, unknown>,
      };
    } catch (thrown) {
      return failure(thrown, logger);
    }
  };

  const groups = new Map<string, Operation[]>();
  for (const op of operations) {
    if (op.toolGroup) {
      groups.set(op.toolGroup.tool, [...(groups.get(op.toolGroup.tool) ?? []), op]);
      continue;
    }
    server.registerTool(
      op.tool,
      {
        title: op.title,
        description: op.description,
        inputSchema: op.toolInput,
        outputSchema: op.output as typeof op.toolInput,
        annotations: { title: op.title, ...op.annotations },
      },
      (args, extra) => call(op, args, extra),
    );
  }
  for (const [tool, ops] of groups) {
    const byAction = new Map(ops.map((op) => [op.toolGroup!.action, op]));
    server.registerTool(tool, groupTool(tool, ops), (args, extra) => {
      const { action, ...rest } = args as { action: string } & Record<string, unknown>;
      const op = byAction.get(action)!;
      try {
        const own = new Set(Object.keys(op.toolInput.shape));
        const stray = Object.keys(rest).filter((k) => !own.has(k) && rest[k] !== undefined);
        if (stray.length > 0) {
          throw new ServiceError(
            'INVALID_REQUEST_BODY',
            `${stray.join(', ')}: not an argument of action "${action}" (it takes: ${[...own].join(', ') || 'nothing'})`,
            { field: stray[0] },
          );
        }
        return call(op, parseOrThrow(op.toolInput, rest, 'body') as Record<string, unknown>, extra);
      } catch (thrown) {
        return Promise.resolve(failure(thrown, app.logger.child({ tool })));
      }
    });
  }
  // agent_run rides with create_agent_run (it is not a registry operation, so --tools cannot name it)
  const agentDeps = { services: app.services, contextFor, failure, maxTokens: app.config.mcpMaxTokens };
  if (operations.some((op) => op.name === createAgentRunOp.name)) registerAgentRunTool(server, agentDeps);
  if (operations.some((op) => op.name === getAgentRunOp.name)) registerAgentRunResources(server, agentDeps);
  return server;
}

function failure(thrown: unknown, logger: App['logger']): CallToolResult {
  const err = toServiceError(thrown);
  if (err.tag === 'INTERNAL_ERROR') logger.error({ err: thrown }, 'tool call failed');
  else logger.info({ tag: err.tag }, 'tool call rejected');
  return { isError: true, content: [{ type: 'text', text: `${err.tag}: ${err.message}` }] };
}

/**
 * The one tool of a group: `action` chooses the operation; the other arguments are the union of the
 * operations' arguments, all optional here (each action checks its own, with its own defaults).
 */
function groupTool(tool: string, ops: readonly Operation[]) {
  const actions = ops.map((op) => op.toolGroup!.action) as [string, ...string[]];
  const variants = new Map<string, z.ZodType[]>();
  for (const op of ops) {
    for (const [key, schema] of Object.entries(op.toolInput.shape) as [string, z.ZodType][]) {
      const bare = schema instanceof z.ZodDefault ? (schema.unwrap() as z.ZodType) : schema;
      const seen = variants.get(key) ?? [];
      if (!seen.includes(bare)) variants.set(key, [...seen, bare]);
    }
  }
  const shape: Record<string, z.ZodType> = {
    action: z.enum(actions).describe(`What to do: ${actions.join(', ')}.`),
  };
  for (const [key, list] of variants) {
    const one = list.length === 1 ? list[0]! : z.union(list as [z.ZodType, z.ZodType, ...z.ZodType[]]);
    shape[key] = one.optional();
  }
  const lines = ops.map((op) => `- ${op.toolGroup!.action}: ${op.description}`);
  return {
    title: tool[0]!.toUpperCase() + tool.slice(1),
    description: `${GROUP_INTRO[tool] ?? ''}Actions:\n${lines.join('\n')}`,
    inputSchema: z.object(shape),
    annotations: {
      title: tool,
      readOnlyHint: ops.every((op) => op.annotations.readOnlyHint),
      destructiveHint: ops.some((op) => op.annotations.destructiveHint === true),
      idempotentHint: false,
      openWorldHint: ops.some((op) => op.annotations.openWorldHint),
    },
  };
}

const GROUP_INTRO: Record<string, string> = {
  monitors:
    'Monitors: searches that run on a schedule (or when triggered) and post what is new to a signed HTTPS ' +
    'webhook. `create` returns the webhook secret once. Pass the arguments the action needs.\n',
};
