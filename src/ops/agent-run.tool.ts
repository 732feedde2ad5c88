/**
 * The `agent_run` MCP tool, which has no REST route: one call starts a run (the create operation) or
 * finds one by id (the get operation), then follows its events, reported as progress, until the run
 * ends or the call's window passes. It answers the run as it is then; the MCP door presents it
 * (src/mcp/agent-tool.ts). docs/mcp.md.
 */
import { setMaxListeners } from 'node:events';
import { z } from 'zod';
import type { AgentEvent } from '../core/agent/agent-runs.service.js';
import type { ServiceContext } from '../core/context.js';
import { ServiceError } from '../errors.js';
import { quotedUrl } from '../lib/safe-text.js';
import { type AgentRun, AgentRunIdParams, CreateAgentRunRequest, Effort } from '../schemas/agent-runs.schema.js';
import { createAgentRunOp, getAgentRunOp } from './agent-runs.ops.js';
import type { DoorOnlyPorts, DoorOnlyTool } from './door-only-tool.js';
import { int, str } from './tool-text.js';
import { parseOrThrow } from './validation.js';

/** A run as the get operation answers it. */
export type Run = z.output<typeof AgentRun>;

/** How long one call waits for its run unless `waitSeconds` says otherwise; past it, it answers the id. */
export const AGENT_RUN_WAIT_SECONDS = 50;
/** The longest `waitSeconds` a call may ask for. */
export const AGENT_RUN_MAX_WAIT_SECONDS = 600;

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

export const agentRunTool: DoorOnlyTool<typeof AgentRunToolInput, Run> = {
  name: 'agent_run',
  text: {
    title: 'Research with an agent',
    description:
      'Research a task with an agent run and wait for its answer with sources. Give query to start, or the ' +
      'runId an earlier call answered to keep waiting (the run goes on past waitSeconds).',
    args: {
      query: str(),
      effort: { enum: ['minimal', 'low', 'medium', 'high', 'xhigh', 'auto'] },
      runId: str(),
      waitSeconds: int(0, AGENT_RUN_MAX_WAIT_SECONDS, `Default ${AGENT_RUN_WAIT_SECONDS}.`),
    },
    fenced: true,
    task: true,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: AgentRunToolInput,
  run: async (ports, input, ctx) => {
    const started = await startOrFind(ports.ops, input, ctx);
    const ownQuery = (started.request as { query?: string } | undefined)?.query;
    return follow(ports.agentRuns, { id: started.id, ownQuery }, input.waitSeconds ?? AGENT_RUN_WAIT_SECONDS, ctx);
  },
};

/** The run to wait on: a new one (the create operation, with its checks), or the caller's `runId`. */
async function startOrFind(ops: DoorOnlyPorts['ops'], args: AgentRunToolInput, ctx: ServiceContext): Promise<Run> {
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
    return (await ops.invoke(createAgentRunOp, input, ctx)) as Run;
  }
  const stray = Object.keys(start).filter((k) => start[k as keyof typeof start] !== undefined);
  if (stray.length > 0) {
    throw new ServiceError(
      'INVALID_REQUEST_BODY',
      `${stray.join(', ')}: only for starting a run; with runId, give only waitSeconds`,
      { field: stray[0] },
    );
  }
  return (await ops.invoke(getAgentRunOp, { id: runId }, ctx)) as Run;
}

/**
 * Follows the run's events (progress to the client) until it ends, the window passes, or the client
 * cancels the call; returns the run as it is then. Ending the wait never cancels the run.
 */
async function follow(
  agentRuns: DoorOnlyPorts['agentRuns'],
  { id, ownQuery }: { id: string; ownQuery?: string },
  waitSeconds: number,
  ctx: ServiceContext,
): Promise<Run> {
  const window = new AbortController();
  const timer = setTimeout(() => window.abort(), waitSeconds * 1000);
  const signal = AbortSignal.any([ctx.signal, window.signal]);
  setMaxListeners(1000, signal);
  try {
    for await (const event of agentRuns.stream(id, ctx.caller, { afterId: 0, follow: true, signal })) {
      // the event id is its sequence number in the run: the count of its events so far
      ctx.onProgress?.({ progress: event.id, message: progressMessage(event, ownQuery) });
    }
  } finally {
    clearTimeout(timer);
  }
  return (await agentRuns.get(id, ctx.caller)) as Run;
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
