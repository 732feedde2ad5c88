/**
 * The door's tool table: each served tool's handler. A tool is what the registry's `MCP_TOOLS` says: one
 * operation (`search`), a group of them chosen by `action` (`monitors`, `agent_runs`), or a tool of the
 * door alone (`agent_run`, presented by agent-tool.ts). Every handler validates
 * with the endpoint's full schema (so options not advertised still work), then answers through the
 * pager: within the call's token budget, continued by cursor.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { requireScope } from '../core/access/scopes.js';
import { ServiceError } from '../errors.js';
import type { Operation } from '../ops/define-op.js';
import { MCP_TOOLS, groupOperations, mcpToolName, type McpTool } from '../ops/registry.js';
import type { QueueWait } from '../core/contents/admission.js';
import { safeHost } from '../lib/safe-text.js';
import type { Answer } from '../ops/reply.js';
import { notesOf } from '../ops/reply-notes.js';
import { parseOrThrow } from '../ops/validation.js';
import { coerceSpelledArgs } from './coerce-args.js';
import { AgentRunDoorInput, agentRunTool } from './agent-tool.js';
import { AnswerCursor, MaxTokens } from './reply/args.js';
import { isAnswerCursor, type CallKey } from './reply/pager.js';
import type { DoorTool, Extra, ToolDeps } from './types.js';

export type { DoorTool, ToolDeps } from './types.js';

/** How the door presents each of the registry's door-only tools: its handler and what it validates. */
const DOOR_ONLY: Readonly<Record<string, { handler: (deps: ToolDeps) => DoorTool; input: z.ZodObject }>> = {
  agent_run: { handler: agentRunTool, input: AgentRunDoorInput },
};

/** The door's presentation of a door-only tool of the registry. */
function doorOnly(name: string) {
  const presented = DOOR_ONLY[name];
  if (!presented) throw new Error(`the MCP door does not present the tool ${name}`);
  return presented;
}

/** The registry's MCP tool named `name` (a catalog name). */
function mcpTool(name: string): McpTool {
  const tool = MCP_TOOLS.find((t) => mcpToolName(t) === name);
  if (!tool) throw new Error(`no MCP tool named ${name}`);
  return tool;
}

/** Handlers for `names` (catalog tool names). */
export function buildToolTable(names: readonly string[], deps: ToolDeps): Map<string, DoorTool> {
  const table = new Map<string, DoorTool>();
  for (const name of names) {
    const tool = mcpTool(name);
    if (tool.kind === 'doorOnly') table.set(name, doorOnly(name).handler(deps));
    else if (tool.kind === 'group') table.set(name, groupTool(deps, name, groupOperations(name)));
    else table.set(name, { name, call: (args, extra) => callOp(deps, tool.op, name, args, args, extra) });
  }
  return table;
}

const doorSchemas = new WeakMap<Operation, z.ZodObject>();

/** The operation's tool input plus the door's `maxTokens` and (unless it pages by cursor itself) `cursor`. */
function doorInput(op: Operation): z.ZodObject {
  let schema = doorSchemas.get(op);
  if (!schema) {
    const own = 'cursor' in op.toolInput.shape;
    schema = op.toolInput.safeExtend({ maxTokens: MaxTokens, ...(own ? {} : { cursor: AnswerCursor }) });
    doorSchemas.set(op, schema);
  }
  return schema;
}

/**
 * One call of `op`: validate, then either continue a cut answer (an answer cursor: nothing is run or
 * charged again) or run the operation and answer its first part. `key` is what the caller sent, the
 * arguments a cursor must be repeated with.
 */
async function callOp(
  deps: ToolDeps,
  op: Operation,
  tool: string,
  args: Record<string, unknown>,
  key: Record<string, unknown>,
  extra: Extra,
): Promise<CallToolResult> {
  const ctx = deps.contextFor(extra, tool);
  try {
    // the key's scope first, before its arguments are read (money comes after, in invoke)
    if (ctx.caller && op.capability) requireScope(ctx.caller.scopes, op.capability, ctx.caller.keyId);
    const schema = doorInput(op);
    const parsed = parseOrThrow(schema, coerceSpelledArgs(schema, args), 'body') as Record<string, unknown>;
    const { maxTokens, cursor, ...input } = parsed;
    const budget = (maxTokens as number | undefined) ?? deps.app.config.mcpMaxTokens;
    const { cursor: _c, maxTokens: _m, ...same } = key;
    const call: CallKey = { tool, owner: deps.owner, args: same, memoryOnly: deps.memoryOnly };
    if (isAnswerCursor(cursor)) return await deps.pager.next(cursor, call, budget);
    const withDefaults = op.toolDefaults(cursor === undefined ? input : { ...input, cursor });
    const output = await deps.ops.invoke(op, withDefaults, ctx);
    ctx.logger.info({ ok: true }, 'tool call');
    const notes = notesOf(output);
    const answer = op.render(output, { input: withDefaults, notes });
    return await deps.pager.first(withQueueNote(answer, notes.queue), call, budget);
  } catch (thrown) {
    return deps.failure(thrown, ctx.logger);
  }
}

/** `answer` with a line saying how long its live fetches waited behind other work, when they did. */
function withQueueNote(answer: Answer, queue: QueueWait | undefined): Answer {
  if (!queue?.queued) return answer;
  const hosts = queue.hosts?.length ? ` on host ${queue.hosts.slice(0, 3).map(safeHost).join(', ')}` : '';
  return { ...answer, head: `${answer.head}\n(Queued ${queue.waitedMs} ms behind other work${hosts}.)` };
}

/** A group's one tool: `action` chooses the operation; arguments it does not take are an error naming those it does. */
function groupTool(deps: ToolDeps, name: string, ops: readonly Operation[]): DoorTool {
  const byAction = new Map(ops.map((op) => [op.toolGroup!.action, op]));
  const actions = [...byAction.keys()];
  return {
    name,
    call: async (args, extra) => {
      const { action, ...rest } = args;
      const op = typeof action === 'string' ? byAction.get(action) : undefined;
      if (!op) {
        const err = new ServiceError('INVALID_REQUEST_BODY', `action: must be one of ${actions.join(', ')}`, {
          field: 'action',
        });
        return deps.failure(err, deps.app.logger.child({ tool: name }));
      }
      const own = new Set(Object.keys(doorInput(op).shape));
      const stray = Object.keys(rest).filter((k) => !own.has(k) && rest[k] !== undefined);
      if (stray.length > 0) {
        const takes = [...own].filter((k) => k !== 'maxTokens').join(', ') || 'nothing';
        const err = new ServiceError(
          'INVALID_REQUEST_BODY',
          `${stray.join(', ')}: not an argument of action "${String(action)}" (it takes: ${takes})`,
          { field: stray[0] },
        );
        return deps.failure(err, deps.app.logger.child({ tool: name }));
      }
      return callOp(deps, op, name, rest, args, extra);
    },
  };
}

/**
 * Everything `name` accepts, as JSON Schema (per action for a group): the full reference that
 * tools/list leaves out to save an agent's context.
 */
export function fullInputSchema(name: string): Record<string, unknown> {
  const json = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  const tool = mcpTool(name);
  if (tool.kind === 'doorOnly') return json(doorOnly(name).input);
  if (tool.kind === 'operation') return json(doorInput(tool.op));
  return Object.fromEntries(groupOperations(name).map((o) => [o.toolGroup!.action, json(doorInput(o))]));
}
