/**
 * The MCP door's side of the `agent_run` tool (defined in the registry: src/ops/agent-run.tool.ts) and
 * the `trawl://agent-runs/{id}` resources. A call answers with the run's result when it ended within the
 * call window (within the call's token budget, continued by cursor), else with the run id to wait on
 * again, or the run's failure. docs/mcp.md.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
  type CallToolResult,
  type McpServer,
  type ReadResourceResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ServiceContext } from '../core/context.js';
import { toServiceError } from '../errors.js';
import type { Logger } from '../lib/logger.js';
import { listAgentRunsOp, getAgentRunOp } from '../ops/agent-runs.ops.js';
import { AGENT_RUN_WAIT_SECONDS, agentRunTool as agentRunDef, type Run } from '../ops/agent-run.tool.js';
import type { OpRunner } from '../ops/invoke.js';
import { parseOrThrow } from '../ops/validation.js';
import type { Answer } from '../ops/reply.js';
import type { DoorTool, Extra, ToolDeps } from './types.js';
import { AnswerCursor, MaxTokens } from './reply/args.js';
import { isAnswerCursor } from './reply/pager.js';

const RESOURCE_PREFIX = 'trawl://agent-runs/';
const ENDED = new Set(['completed', 'failed', 'cancelled']);

/** What the door validates: the tool's input plus the answer budget and the cursor of a cut answer. */
export const AgentRunDoorInput = agentRunDef.input.safeExtend({ maxTokens: MaxTokens, cursor: AnswerCursor });

/** What the agent run resources need of the door. */
export interface ResourceDeps {
  /** The operations (the list and get of agent runs, with their scope and owner checks). */
  ops: OpRunner;
  /** The service context of one MCP request (caller, betas, logger). */
  contextFor: (ctx: ServerContext, tool: string) => ServiceContext;
  /** A failure as a tool result (`TAG: message`, `isError: true`). */
  failure: (thrown: unknown, logger: Logger) => CallToolResult;
}

/** The `agent_run` tool of the door's table. */
export function agentRunTool(deps: ToolDeps): DoorTool {
  return { name: agentRunDef.name, call: (args, extra) => runTool(deps, args, extra) };
}

async function runTool(deps: ToolDeps, raw: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  const ctx = deps.contextFor(extra, agentRunDef.name);
  try {
    const { maxTokens, cursor, ...args } = parseOrThrow(AgentRunDoorInput, raw, 'body');
    const budget = maxTokens ?? deps.app.config.mcpMaxTokens;
    const { maxTokens: _m, cursor: _c, ...same } = raw;
    const call = { tool: agentRunDef.name, owner: deps.owner, args: same, memoryOnly: deps.memoryOnly };
    // the rest of an answer cut by the budget: from its snapshot, starting or waiting on nothing
    if (isAnswerCursor(cursor)) return await deps.pager.next(cursor, call, budget);
    // not through invoke: the tool charges nothing itself; the operations it runs do, through invoke
    const run = await agentRunDef.run({ ops: deps.ops, agentRuns: deps.app.agentRuns }, args, ctx);
    ctx.logger.info({ ok: true, runId: run.id, status: run.status }, 'tool call');
    const waitSeconds = args.waitSeconds ?? AGENT_RUN_WAIT_SECONDS;
    return await toolResult(run, waitSeconds, (answer) => deps.pager.first(answer, call, budget));
  } catch (thrown) {
    return deps.failure(thrown, ctx.logger);
  }
}

/** The answer of a call: the result of an ended run, or the id of one still going (not an error). */
async function toolResult(
  run: Run,
  waitSeconds: number,
  respond: (answer: Answer) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const { output: _output, ...structuredContent } = run as Record<string, unknown>;
  if (run.status === 'failed') {
    const error = run.error ?? { code: 'internal_error', message: 'the run failed' };
    const text = `${error.code}: ${error.message} (agent run ${run.id} failed; start a new one to try again)`;
    return { isError: true, content: [{ type: 'text', text }], structuredContent };
  }
  if (!ENDED.has(run.status)) {
    const text =
      `Agent run ${run.id} is still ${run.status} after ${waitSeconds} s; it goes on without this call. ` +
      `To wait for its answer, call agent_run with {"runId": "${run.id}"}. ` +
      `It can also be read as the resource ${RESOURCE_PREFIX}${run.id}.`;
    return { content: [{ type: 'text', text }], structuredContent };
  }
  return respond(runAnswer(run));
}

/** A run for a model to read: its answer and sources (a model's words and pages' titles: untrusted), then status and cost. */
export function runAnswer(run: Run): Answer {
  const output = run.output;
  const sources = new Map<string, string>();
  for (const entry of output?.grounding ?? []) {
    for (const c of (entry.citations ?? []) as { url: string; title?: string | null }[]) {
      if (!sources.has(c.url)) sources.set(c.url, c.title || c.url);
    }
  }
  const parts: string[] = [];
  if (output?.text) parts.push(output.text);
  if (sources.size > 0) {
    parts.push(['Sources:', ...[...sources].map(([url, title], i) => `[${i + 1}] ${title} — ${url}`)].join('\n'));
  }
  const effort = (run.request as { effort?: string }).effort;
  const cost = (run.costDollars as { total?: number } | undefined)?.total;
  const facts = [`Agent run ${run.id}: ${run.status}`];
  if (effort) facts.push(`effort ${effort}`);
  if (typeof cost === 'number') facts.push(`cost $${cost}`);
  if (run.error) facts.push(`error ${run.error.code}: ${run.error.message}`);
  const { output: _output, ...structured } = run as Record<string, unknown>;
  return {
    head: `${facts.join(', ')}. Resource: ${RESOURCE_PREFIX}${run.id}`,
    blocks: parts.length ? [{ label: 'Answer:', source: 'agent run output', content: parts.join('\n\n') }] : [],
    structured,
  };
}

/** The same as plain text (the resource's text/plain rendering). */
export function renderRun(run: Run): string {
  const answer = runAnswer(run);
  return [...answer.blocks.map((b) => b.content ?? ''), answer.head].filter(Boolean).join('\n\n');
}

/** Registers the `trawl://agent-runs/{id}` resource template: the caller's runs, as JSON and as text. */
export function registerAgentRunResources(server: McpServer, deps: ResourceDeps): void {
  const template = new ResourceTemplate(`${RESOURCE_PREFIX}{id}`, {
    list: async (extra) => {
      const ctx = deps.contextFor(extra, 'agent run resources');
      try {
        const page = (await deps.ops.invoke(listAgentRunsOp, { limit: 20 }, ctx)) as { data: Run[] };
        return { resources: page.data.map(toResource) };
      } catch (thrown) {
        // a key without the agent scope lists no runs rather than failing the whole list
        ctx.logger.info({ tag: toServiceError(thrown).tag }, 'agent run resources not listed');
        return { resources: [] };
      }
    },
  });
  server.registerResource(
    'agent-run',
    template,
    {
      title: 'Agent run',
      description: 'An agent run: its status, answer, sources, cost and usage (JSON, and a text rendering).',
      mimeType: 'application/json',
    },
    async (uri, variables, extra) => {
      const ctx = deps.contextFor(extra, 'agent run resources');
      const id = String([variables.id].flat()[0] ?? '');
      try {
        const run = (await deps.ops.invoke(getAgentRunOp, { id }, ctx)) as Run;
        return readResult(uri.href, run);
      } catch (thrown) {
        throw toMcpError(thrown, ctx.logger);
      }
    },
  );
}

function toResource(run: Run) {
  const task = String((run.request as { query?: unknown }).query ?? '').replace(/\s+/g, ' ');
  return {
    uri: `${RESOURCE_PREFIX}${run.id}`,
    name: run.id,
    title: `${run.status}: ${task.length > 80 ? `${task.slice(0, 79)}…` : task}`,
    mimeType: 'application/json',
  };
}

function readResult(uri: string, run: Run): ReadResourceResult {
  return {
    contents: [
      { uri, mimeType: 'application/json', text: JSON.stringify(run, null, 2) },
      { uri, mimeType: 'text/plain', text: renderRun(run) },
    ],
  };
}

/**
 * A failed read as a JSON-RPC error: -32002 (resource not found) for a run the caller cannot see (the
 * SDK answers it as -32602 on the wire, as the 2026-07-28 spec has it).
 */
function toMcpError(thrown: unknown, logger: Logger): ProtocolError {
  const err = toServiceError(thrown);
  if (err.tag === 'INTERNAL_ERROR') {
    logger.error({ err: thrown }, 'agent run resource read failed');
    return new ProtocolError(ProtocolErrorCode.InternalError, `${err.tag}: ${err.message}`);
  }
  const code = err.tag === 'NOT_FOUND' ? ProtocolErrorCode.ResourceNotFound : ProtocolErrorCode.InvalidParams;
  return new ProtocolError(code, `${err.tag}: ${err.message}`);
}
