/**
 * Every operation of the service, in the spec's order, and the MCP tools they make (with `agent_run`, a
 * tool of no REST route). The doors, the OpenAPI document and the MCP catalog read this.
 */
import type { Operation } from './define-op.js';
import type { DoorOnlyTool } from './door-only-tool.js';
import type { ToolGroupText } from './tool-text.js';
import { agentRunTool } from './agent-run.tool.js';
import { findSimilarOp, searchOp } from './search.ops.js';
import { contentsOp } from './contents.ops.js';
import { contextOp } from './context.ops.js';
import { answerOp } from './answer.ops.js';
import {
  createMonitorOp,
  deleteMonitorOp,
  getMonitorOp,
  getMonitorRunOp,
  listMonitorRunsOp,
  listMonitorsOp,
  listWebhookDeliveriesOp,
  monitorsTool,
  triggerMonitorOp,
  updateMonitorOp,
} from './monitors.ops.js';
import {
  cancelAgentRunOp,
  createAgentRunOp,
  deleteAgentRunOp,
  getAgentRunOp,
  listAgentRunEventsOp,
  listAgentRunsOp,
  agentRunsTool,
} from './agent-runs.ops.js';
import { ADMIN_OPERATIONS } from './admin.ops.js';
import { CONSOLE_OPERATIONS } from './console.ops.js';
// Installs the validation messages (zod's error map) used by every parse.
import '../lib/zod-messages.js';

export const OPERATIONS: readonly Operation[] = [
  searchOp,
  findSimilarOp,
  contentsOp,
  contextOp,
  answerOp,
  createMonitorOp,
  listMonitorsOp,
  getMonitorOp,
  updateMonitorOp,
  deleteMonitorOp,
  triggerMonitorOp,
  listMonitorRunsOp,
  getMonitorRunOp,
  listWebhookDeliveriesOp,
  createAgentRunOp,
  listAgentRunsOp,
  getAgentRunOp,
  listAgentRunEventsOp,
  cancelAgentRunOp,
  deleteAgentRunOp,
  ...ADMIN_OPERATIONS,
  ...CONSOLE_OPERATIONS,
];

/**
 * An MCP tool: one operation's own (its `toolText`), a group's (the operations naming it in `toolGroup`,
 * chosen by `action`), or a tool of the door alone, with no REST route.
 */
export type McpTool =
  | { kind: 'operation'; op: Operation }
  | { kind: 'group'; group: ToolGroupText }
  | { kind: 'doorOnly'; tool: DoorOnlyTool };

/** The MCP tools, in the order `tools/list` gives them (src/mcp/catalog.generated.ts is made from these). */
export const MCP_TOOLS: readonly McpTool[] = [
  { kind: 'operation', op: searchOp },
  { kind: 'operation', op: contentsOp },
  { kind: 'operation', op: contextOp },
  { kind: 'operation', op: findSimilarOp },
  { kind: 'group', group: monitorsTool },
  { kind: 'doorOnly', tool: agentRunTool },
  { kind: 'group', group: agentRunsTool },
];

/** The name an MCP tool has in the catalog. */
export function mcpToolName(tool: McpTool): string {
  if (tool.kind === 'operation') return tool.op.tool;
  return tool.kind === 'group' ? tool.group.name : tool.tool.name;
}

/** The operations a tool group serves, in the registry's order. */
export function groupOperations(name: string): Operation[] {
  return OPERATIONS.filter((op) => op.toolGroup?.tool === name);
}
