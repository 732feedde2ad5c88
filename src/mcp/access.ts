/**
 * What the MCP door serves besides the operations' tools, declared as operations declare theirs
 * (src/ops/define-op.ts `access`): the resource each protocol method acts on, how, and the scope it
 * needs. The authorization matrix (src/http/access-matrix.ts, docs/accounts.md#who-may-do-what) has a
 * row for each, and test/e2e/access-matrix.test.ts calls them. Their stores check the owner themselves:
 * tasks and answer snapshots are their key's (tasks/task-store.ts, reply/pager.ts), agent runs are read
 * through the agent runs service.
 */
import type { Scope } from '../core/access/scopes.js';
import type { OpAccess } from '../ops/define-op.js';

/** An MCP method (or a way of calling a tool) that reaches a stored resource. */
export interface McpMethodAccess {
  name: string;
  /** The scope it needs; none for tasks (the key's own, whatever the tool was). */
  capability?: Scope;
  access: OpAccess;
  /** Whether the call names one resource (a task id, a run id, a cursor). */
  targets: boolean;
}

/** The `agent_run` tool: starts a run (or waits on one named by `runId`, which must be the caller's). */
export const AGENT_RUN_TOOL: McpMethodAccess = {
  name: 'agent_run',
  capability: 'agent',
  access: { resource: 'agentRun', verb: 'create' },
  targets: false,
};

/** The protocol methods that reach stored resources. */
export const MCP_METHODS: readonly McpMethodAccess[] = [
  { name: 'tasks/get', access: { resource: 'mcpTask', verb: 'read' }, targets: true },
  { name: 'tasks/result', access: { resource: 'mcpTask', verb: 'read' }, targets: true },
  { name: 'tasks/cancel', access: { resource: 'mcpTask', verb: 'change' }, targets: true },
  { name: 'tasks/list', access: { resource: 'mcpTask', verb: 'list' }, targets: false },
  // the 2026-07-28 Tasks extension (io.modelcontextprotocol/tasks): no tasks/list, no tasks/result
  { name: 'tasks/get (2026-07-28)', access: { resource: 'mcpTask', verb: 'read' }, targets: true },
  { name: 'tasks/update (2026-07-28)', access: { resource: 'mcpTask', verb: 'change' }, targets: true },
  { name: 'tasks/cancel (2026-07-28)', access: { resource: 'mcpTask', verb: 'change' }, targets: true },
  {
    name: 'resources/read trawl://agent-runs/{id}',
    capability: 'agent',
    access: { resource: 'agentRun', verb: 'read' },
    targets: true,
  },
  // a key without the agent scope lists no runs rather than failing the whole list
  { name: 'resources/list', access: { resource: 'agentRun', verb: 'list' }, targets: false },
  { name: 'tools/call with an answer cursor', capability: 'search', access: { resource: 'snapshot', verb: 'read' }, targets: true }, // prettier-ignore
];
