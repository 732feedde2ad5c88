/** Agent run operations: /agent/runs, its events and cancellation. */
import { defineOp, notBuilt, type ToolHints } from './define-op.js';
import { renderPage, renderRecord } from './render.js';
import { AGENT_MAX_EFFORT_BETA } from './betas.js';
import {
  AgentEventList,
  AgentRun,
  AgentRunIdParams,
  AgentRunList,
  CreateAgentRunRequest,
  ListAgentEventsQuery,
  ListAgentRunsQuery,
} from '../schemas/agent-runs.schema.js';

const READ: ToolHints = { readOnlyHint: true, openWorldHint: false };
const common = { capability: 'agent' as const, run: notBuilt('agent') };
const runText = (r: Record<string, unknown>) => renderRecord(`Agent run ${String(r.id)} (${String(r.status)})`, r);

export const createAgentRunOp = defineOp({
  ...common,
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
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  betas: [
    {
      token: AGENT_MAX_EFFORT_BETA,
      feature: 'effort "max"',
      field: 'effort',
      uses: (input) => input.effort === 'max',
    },
  ],
  render: runText,
});

export const getAgentRunOp = defineOp({
  ...common,
  name: 'agent.get',
  tool: 'get_agent_run',
  title: 'Get an agent run',
  description: 'Get an agent run with its status, output (when completed), cost and usage.',
  route: { method: 'GET', path: '/agent/runs/:id' },
  params: AgentRunIdParams,
  output: AgentRun,
  annotations: READ,
  render: runText,
});

export const listAgentRunsOp = defineOp({
  ...common,
  name: 'agent.list',
  tool: 'list_agent_runs',
  title: 'List agent runs',
  description: 'List agent runs, newest first; paginate with cursor.',
  route: { method: 'GET', path: '/agent/runs' },
  query: ListAgentRunsQuery,
  output: AgentRunList,
  annotations: READ,
  render: (page) =>
    renderPage('Agent runs:', page, (r) => `${String(r.id)}  ${String(r.status)}  created ${String(r.createdAt)}`),
});

export const listAgentRunEventsOp = defineOp({
  ...common,
  name: 'agent.events',
  tool: 'get_agent_run_events',
  title: 'Get agent run events',
  description: 'The stored events of an agent run, in order; paginate with cursor.',
  route: { method: 'GET', path: '/agent/runs/:id/events' },
  params: AgentRunIdParams,
  query: ListAgentEventsQuery,
  output: AgentEventList,
  annotations: READ,
  render: (page) => renderPage('Events:', page, (e) => `#${String(e.id)} ${String(e.event)}`),
});

export const cancelAgentRunOp = defineOp({
  ...common,
  name: 'agent.cancel',
  tool: 'cancel_agent_run',
  title: 'Cancel an agent run',
  description: 'Cancel a queued or running agent run. A finished run is returned unchanged.',
  route: { method: 'POST', path: '/agent/runs/:id/cancel' },
  params: AgentRunIdParams,
  output: AgentRun,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  render: runText,
});
