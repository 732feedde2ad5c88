/** Agent run operations: /agent/runs, its events and cancellation. */
import type { AgentRunRequest } from '../core/agent/agent-runs.types.js';
import { defineOp } from './define-op.js';
import { byId, groupActions, READ_ONLY, writes } from './families.js';
import { plainAnswer } from './reply.js';
import { recordAnswer, renderPage } from './render.js';
import { AGENT_MAX_EFFORT_BETA } from './betas.js';
import { str, type ToolGroupText } from './tool-text.js';
import {
  AgentEventList,
  AgentRun,
  AgentRunIdParams,
  AgentRunList,
  CreateAgentRunRequest,
  DeletedAgentRun,
  ListAgentEventsQuery,
  ListAgentRunsQuery,
} from '../schemas/agent-runs.schema.js';

/** The run a create request asks for: the request without `stream`, which only says how to answer. */
export function toAgentRunRequest(input: CreateAgentRunRequest): AgentRunRequest {
  const { stream: _stream, ...request } = input;
  return request;
}

/** The agent run operations are one MCP tool, `agent_runs`, with an `action` each (docs/mcp.md). */
export const agentRunsTool: ToolGroupText = {
  name: 'agent_runs',
  title: 'Agent runs',
  description:
    'Manage agent runs. Actions: create (query, effort, outputSchema...; answers at once), list, get, events, ' +
    'cancel, delete. Other arguments as in the REST API (resource trawl://tools/agent_runs).',
  args: { id: str('Run id.'), query: str(), cursor: str() },
};
/**
 * The actions of `agent_runs` and what each does to an agent run and its events, which its creating key
 * alone reaches (core/access).
 */
const agentRun = groupActions(
  { capability: 'agent', resource: 'agentRun', tool: agentRunsTool },
  { create: 'create', get: 'read', list: 'list', events: 'list', cancel: 'change', delete: 'delete' },
);
const runText = (r: Record<string, unknown>) =>
  recordAnswer(`Agent run ${String(r.id)} (${String(r.status)})`, r, 'output', 'agent run output');

export const createAgentRunOp = defineOp({
  ...agentRun.create,
  name: 'agent.create',
  tool: 'create_agent_run',
  title: 'Start an agent run',
  description:
    'Start a long-running research, list-building or enrichment task. Returns at once with a queued run; ' +
    'poll get_agent_run until completed, failed or cancelled. `effort` sets depth and price.',
  route: { method: 'POST', path: '/agent/runs' },
  body: CreateAgentRunRequest,
  output: AgentRun,
  successStatus: 201,
  annotations: writes('open-world'),
  betas: [
    {
      token: AGENT_MAX_EFFORT_BETA,
      feature: 'effort "max"',
      field: 'effort',
      uses: (input) => input.effort === 'max',
    },
  ],
  render: runText,
  uses: ['agentRuns'],
  run: (services, input, ctx) => services.agentRuns.create(toAgentRunRequest(input), ctx.caller, ctx.clientModel),
  // `Accept: text/event-stream` (or `stream: true`): the run's events as they happen, until it ends
  events: {
    when: (input, accepts) => accepts || input.stream === true,
    events: (services, _input, run, ctx) =>
      services.agentRuns.stream(run.id, ctx.caller, { afterId: 0, follow: true, signal: ctx.signal }),
  },
});

export const getAgentRunOp = defineOp({
  ...agentRun.get,
  name: 'agent.get',
  tool: 'get_agent_run',
  title: 'Get an agent run',
  description: 'Get an agent run with its status, output (when completed), cost and usage.',
  route: { method: 'GET', path: '/agent/runs/:id' },
  params: AgentRunIdParams,
  output: AgentRun,
  annotations: READ_ONLY,
  render: runText,
  uses: ['agentRuns'],
  run: byId('agentRuns', 'get'),
});

export const listAgentRunsOp = defineOp({
  ...agentRun.list,
  name: 'agent.list',
  tool: 'list_agent_runs',
  title: 'List agent runs',
  description: 'List agent runs, newest first; paginate with cursor.',
  route: { method: 'GET', path: '/agent/runs' },
  query: ListAgentRunsQuery,
  output: AgentRunList,
  annotations: READ_ONLY,
  render: renderPage('Agent runs:', (r) => `${String(r.id)}  ${String(r.status)}  created ${String(r.createdAt)}`),
  uses: ['agentRuns'],
  run: (services, input, ctx) => services.agentRuns.list(ctx.caller, input),
});

export const listAgentRunEventsOp = defineOp({
  ...agentRun.events,
  name: 'agent.events',
  tool: 'get_agent_run_events',
  title: 'Get agent run events',
  description: 'The stored events of an agent run, in order; paginate with cursor.',
  route: { method: 'GET', path: '/agent/runs/:id/events' },
  params: AgentRunIdParams,
  query: ListAgentEventsQuery,
  output: AgentEventList,
  annotations: READ_ONLY,
  render: renderPage('Events:', (e) => `#${String(e.id)} ${String(e.event)}`),
  uses: ['agentRuns'],
  run: (services, { id, ...query }, ctx) => services.agentRuns.events(id, ctx.caller, query),
  // `Accept: text/event-stream`: a replay of the stored events after `Last-Event-ID`, closing at their end
  events: {
    when: (_input, accepts) => accepts,
    events: (services, input, _page, ctx, lastEventId) =>
      services.agentRuns.stream(input.id, ctx.caller, { afterId: lastEventId, follow: false, signal: ctx.signal }),
  },
});

export const cancelAgentRunOp = defineOp({
  ...agentRun.cancel,
  name: 'agent.cancel',
  tool: 'cancel_agent_run',
  title: 'Cancel an agent run',
  description: 'Cancel a queued or running agent run. A finished run is returned unchanged.',
  route: { method: 'POST', path: '/agent/runs/:id/cancel' },
  params: AgentRunIdParams,
  output: AgentRun,
  annotations: writes('destructive', 'idempotent'),
  render: runText,
  uses: ['agentRuns'],
  run: byId('agentRuns', 'cancel'),
});

export const deleteAgentRunOp = defineOp({
  ...agentRun.delete,
  name: 'agent.delete',
  tool: 'delete_agent_run',
  title: 'Delete an agent run',
  description: 'Delete a stored agent run and its events, cancelling it first if it is still running.',
  route: { method: 'DELETE', path: '/agent/runs/:id' },
  params: AgentRunIdParams,
  output: DeletedAgentRun,
  annotations: writes('destructive'),
  render: (out) => plainAnswer(`Agent run ${out.id} deleted.`, out),
  uses: ['agentRuns'],
  run: byId('agentRuns', 'remove'),
});
