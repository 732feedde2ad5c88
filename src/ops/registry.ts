/** Every operation of the service, in the spec's order. The doors and the OpenAPI document read this. */
import type { Operation } from './define-op.js';
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
];
