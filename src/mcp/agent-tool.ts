/**
 * The `agent_run` MCP tool and the `trawl://agent-runs/{id}` resources. One call starts a run (or waits
 * on one by id), reports the run's events as progress notifications, and answers with the result when
 * the run ends within the call window, else with the run id to wait on again. docs/mcp.md.
 */
import { setMaxListeners } from 'node:events';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type CallToolResult, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ServiceContext } from '../core/context.js';
import type { AgentEvent } from '../core/agent/agent-runs.service.js';
import type { Services } from '../core/ports.js';
import { ServiceError, toServiceError } from '../errors.js';
import type { Logger } from '../lib/logger.js';
import { quotedUrl } from '../lib/safe-text.js';
import { createAgentRunOp, getAgentRunOp, listAgentRunsOp } from '../ops/agent-runs.ops.js';
import { invoke } from '../ops/invoke.js';
import { parseOrThrow } from '../ops/validation.js';
import { type AgentRun, AgentRunIdParams, CreateAgentRunRequest, Effort } from '../schemas/agent-runs.schema.js';
import type { Answer } from '../ops/answer.js';
import type { DoorTool, Extra, ToolDeps } from './types.js';
import { AnswerCursor, MaxTokens } from './answer/args.js';
import { isAnswerCursor } from './answer/pager.js';

type Run = z.output<typeof AgentRun>;

/** How long one call waits for its run unless `waitSeconds` says otherwise; past it, it answers the id. */
export const AGENT_RUN_WAIT_SECONDS = 50;
/** The longest `waitSeconds` a call may ask for. */
export const AGENT_RUN_MAX_WAIT_SECONDS = 600;

const RESOURCE_PREFIX = 'trawl://agent-runs/';
const ENDED = new Set(['completed', 'failed', 'cancelled']);

// the create request's own field schemas (its refinements run again on the assembled request)
const { query, systemPrompt } = CreateAgentRunRequest.shape;

/** Start (`query`, `effort`, `systemPrompt`) or resume (`runId`), plus the call window. */
export const AgentRunToolInput = z.strictObject({
  query: query.optional().describe('The task, to start a run. Give this or runId.'),
  effort: Effort.optional().describe(`${Effort.description ?? ''} Default auto. Only when starting a run.`),
  systemPrompt: systemPrompt.describe('Instructions for the run. Only when starting a run.'),
  runId: AgentRunIdParams.shape.id
    .optional()
    .describe('A run to wait on instead of starting one: the id an earlier agent_run call answered.'),
  waitSeconds: z
    .number()
    .min(0)
    .max(AGENT_RUN_MAX_WAIT_SECONDS)
    .optional()
    .describe(
      `How long this call waits for the run, in seconds (default ${AGENT_RUN_WAIT_SECONDS}, at most ${AGENT_RUN_MAX_WAIT_SECONDS}). Past it the answer is the run id; the run goes on.`,
    ),
});
type AgentRunToolInput = z.output<typeof AgentRunToolInput>;

/** What the door validates: the tool's input plus the answer budget and the cursor of a cut answer. */
export const AgentRunDoorInput = AgentRunToolInput.safeExtend({ maxTokens: MaxTokens, cursor: AnswerCursor });

/** What the agent run resources need of the door. */
export interface ResourceDeps {
  services: Services;
  /** The service context of one MCP request (caller, betas, logger, progress to the client's token). */
  contextFor: (extra: Extra, tool: string) => ServiceContext;
  /** A failure as a tool result (`TAG: message`, `isError: true`). */
  failure: (thrown: unknown, logger: Logger) => CallToolResult;
}

/** The `agent_run` tool of the door's table. */
export function agentRunTool(deps: ToolDeps): DoorTool {
  return { name: 'agent_run', call: (args, extra) => runTool(deps, args, extra) };
}

async function runTool(deps: ToolDeps, raw: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  const ctx = deps.contextFor(extra, 'agent_run');
  try {
    const { maxTokens, cursor, ...args } = parseOrThrow(AgentRunDoorInput, raw, 'body');
    const budget = maxTokens ?? deps.app.config.mcpMaxTokens;
    const { maxTokens: _m, cursor: _c, ...same } = raw;
    const call = { tool: 'agent_run', owner: deps.owner, args: same, memoryOnly: deps.memoryOnly };
    // the rest of an answer cut by the budget: from its snapshot, starting or waiting on nothing
    if (isAnswerCursor(cursor)) return await deps.pager.next(cursor, call, budget);
    const started = await startOrFind(deps.app.services, args, ctx);
    const waitSeconds = args.waitSeconds ?? AGENT_RUN_WAIT_SECONDS;
    const ownQuery = (started.request as { query?: string } | undefined)?.query;
    const run = await follow(deps.app.services, { id: started.id, ownQuery }, waitSeconds, ctx);
    ctx.logger.info({ ok: true, runId: run.id, status: run.status }, 'tool call');
    return await toolResult(run, waitSeconds, (answer) => deps.pager.first(answer, call, budget));
  } catch (thrown) {
    return deps.failure(thrown, ctx.logger);
  }
}

/** The run to wait on: a new one (the create operation, with its checks), or the caller's `runId`. */
async function startOrFind(services: Services, args: AgentRunToolInput, ctx: ServiceContext): Promise<Run> {
  const { runId, waitSeconds: _window, ...start } = args;
  if (runId === undefined) {
    if (start.query === undefined) {
      throw new ServiceError(
        'INVALID_REQUEST_BODY',
        'query: is required to start a run (or give runId to wait on one)',
        { field: 'query' },
      );
    }
    const input = parseOrThrow(CreateAgentRunRequest, start, 'body');
    return (await invoke(createAgentRunOp, services, input, ctx)) as Run;
  }
  const stray = Object.keys(start).filter((k) => start[k as keyof typeof start] !== undefined);
  if (stray.length > 0) {
    throw new ServiceError(
      'INVALID_REQUEST_BODY',
      `${stray.join(', ')}: only for starting a run; with runId, give only waitSeconds`,
      { field: stray[0] },
    );
  }
  return (await invoke(getAgentRunOp, services, { id: runId }, ctx)) as Run;
}

/**
 * Follows the run's events (progress to the client) until it ends, the window passes, or the client
 * cancels the call; returns the run as it is then. Ending the wait never cancels the run.
 */
async function follow(
  services: Services,
  { id, ownQuery }: { id: string; ownQuery?: string },
  waitSeconds: number,
  ctx: ServiceContext,
): Promise<Run> {
  const window = new AbortController();
  const timer = setTimeout(() => window.abort(), waitSeconds * 1000);
  const signal = AbortSignal.any([ctx.signal, window.signal]);
  setMaxListeners(1000, signal);
  try {
    for await (const event of services.agentRuns.stream(id, ctx.caller, { afterId: 0, follow: true, signal })) {
      // the event id is its sequence number in the run: the count of its events so far
      ctx.onProgress?.({ progress: event.id, message: progressMessage(event, ownQuery) });
    }
  } finally {
    clearTimeout(timer);
  }
  return (await services.agentRuns.get(id, ctx.caller)) as Run;
}

/**
 * A short human line for one run event: Trawl's words, so never a page's title nor a query a model
 * wrote (both may carry a page's instructions); the run's own query (the caller's) is named, a source
 * by its URL as normalised.
 */
export function progressMessage(event: AgentEvent, ownQuery?: string): string {
  const data = event.data;
  switch (event.event) {
    case 'agent_run.created':
      return 'Queued';
    case 'agent_run.started':
      return 'Started researching';
    case 'agent_run.search':
      return data.query === ownQuery && ownQuery !== undefined
        ? `Searching: ${ownQuery}`
        : 'Searching: a further query';
    case 'agent_run.source.added':
      return `Found: ${quotedUrl(String(data.url))}`;
    case 'agent_run.tool.progress': {
      const results = (data.item as { results?: number } | undefined)?.results;
      return results === undefined ? 'Search done' : `Search done: ${results} new source(s)`;
    }
    case 'agent_run.completed':
      return 'Completed';
    case 'agent_run.failed':
      return `Failed: ${(data.error as { message?: string } | undefined)?.message ?? 'error'}`;
    case 'agent_run.cancelled':
      return 'Cancelled';
    default:
      return event.event;
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
        const page = (await invoke(listAgentRunsOp, deps.services, { limit: 20 }, ctx)) as { data: Run[] };
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
        const run = (await invoke(getAgentRunOp, deps.services, { id }, ctx)) as Run;
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

/** A failed read as a JSON-RPC error: -32002 (resource not found) for a run the caller cannot see. */
function toMcpError(thrown: unknown, logger: Logger): McpError {
  const err = toServiceError(thrown);
  if (err.tag === 'INTERNAL_ERROR') {
    logger.error({ err: thrown }, 'agent run resource read failed');
    return new McpError(ErrorCode.InternalError, `${err.tag}: ${err.message}`);
  }
  const code = err.tag === 'NOT_FOUND' ? -32002 : ErrorCode.InvalidParams;
  return new McpError(code, `${err.tag}: ${err.message}`);
}
