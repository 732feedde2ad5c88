/**
 * The MCP door: an McpServer whose tools are the registry's operations (same schemas, same handlers as
 * REST). Each tool returns a text rendering for the model plus `structuredContent`; failures are tool
 * results with `isError: true` whose text says what to change.
 */
import { setMaxListeners } from 'node:events';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import type { Caller, ServiceContext } from '../core/context.js';
import { toServiceError } from '../errors.js';
import type { Operation } from '../ops/define-op.js';
import { invoke, newRequestId } from '../ops/invoke.js';
import { selectOperations } from '../ops/registry.js';
import { VERSION } from '../version.js';
import { fitToBudget } from './budget.js';
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
  '`find_similar` for pages like a given one. Monitors and agent runs are for recurring and long tasks.';

/**
 * Builds a server for one connection (stdio) or one HTTP request (stateless streamable HTTP), with the
 * configured tools (or `operations`, which tests pass).
 */
export function buildMcpServer(
  app: App,
  options: McpDoorOptions,
  operations: readonly Operation[] = selectOperations(app.config.tools),
): McpServer {
  const server = new McpServer({ name: 'trawl', title: 'Trawl', version: VERSION }, { instructions: INSTRUCTIONS });
  for (const op of operations) {
    server.registerTool(
      op.tool,
      {
        title: op.title,
        description: op.description,
        inputSchema: op.toolInput,
        outputSchema: op.output as typeof op.toolInput,
        annotations: { title: op.title, ...op.annotations },
      },
      async (args, extra): Promise<CallToolResult> => {
        const requestId = newRequestId();
        // one call may run many fetches or model calls at once, each listening: not a leak
        setMaxListeners(1000, extra.signal);
        const logger = app.logger.child({ requestId, tool: op.tool });
        const progressToken = extra._meta?.progressToken;
        const ctx: ServiceContext = {
          notes: {},
          requestId,
          logger,
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
          const err = toServiceError(thrown);
          if (err.tag === 'INTERNAL_ERROR') logger.error({ err: thrown }, 'tool call failed');
          else logger.info({ tag: err.tag }, 'tool call rejected');
          return { isError: true, content: [{ type: 'text', text: `${err.tag}: ${err.message}` }] };
        }
      },
    );
  }
  return server;
}
