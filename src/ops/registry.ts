/** Every operation of the service, in the spec's order. The doors and the OpenAPI document read this. */
import { ConfigError } from '../config/config.js';
import { toolNameOf, type Operation } from './define-op.js';
import { findSimilarOp, searchOp } from './search.ops.js';
import { contentsOp } from './contents.ops.js';
import { contextOp } from './context.ops.js';
import {
  createMonitorOp,
  deleteMonitorOp,
  getMonitorOp,
  getMonitorRunOp,
  listMonitorRunsOp,
  listMonitorsOp,
  listWebhookDeliveriesOp,
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
} from './agent-runs.ops.js';
import { ADMIN_OPERATIONS } from './admin.ops.js';
// Installs the validation messages (zod's error map) used by every parse.
import '../schemas/messages.js';

export const OPERATIONS: readonly Operation[] = [
  searchOp,
  findSimilarOp,
  contentsOp,
  contextOp,
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
];

/** MCP tool names (a tool group counts once), for `--tools` validation and docs. */
export const TOOL_NAMES = [...new Set(OPERATIONS.filter((op) => !op.restOnly).map(toolNameOf))];

/** The operations exposed as tools: all, or the configured names (unknown names are a config error). */
export function selectOperations(names: readonly string[], from: readonly Operation[] = OPERATIONS): Operation[] {
  const tools = from.filter((op) => !op.restOnly);
  if (names.length === 0) return tools;
  const unknown = names.filter((n) => !TOOL_NAMES.includes(n));
  if (unknown.length > 0) {
    throw new ConfigError(
      `Unknown MCP tool name(s) in TRAWL_TOOLS/--tools: ${unknown.join(', ')}. Known: ${TOOL_NAMES.join(', ')}.`,
    );
  }
  return tools.filter((op) => names.includes(toolNameOf(op)));
}
