/**
 * An MCP tool with no REST route (`agent_run`, src/ops/agent-run.tool.ts): its text and input beside the
 * work of a call, which runs registry operations through the door's `OpRunner`.
 */
import type { z } from 'zod';
import type { AgentRunsService } from '../core/agent/agent-runs.service.js';
import type { ServiceContext } from '../core/context.js';
import type { OpRunner } from './invoke.js';
import type { ToolHints, ToolText } from './tool-text.js';

/** What a door-only tool's call works with: the operations, and the agent runs whose events it follows. */
export interface DoorOnlyPorts {
  ops: Pick<OpRunner, 'invoke'>;
  agentRuns: Pick<AgentRunsService, 'stream' | 'get'>;
}

/**
 * An MCP tool with no REST route (`agent_run`): its text, hints and input, and the work of a call,
 * which runs registry operations through `ops.invoke` (so they check scopes and charge as they do for
 * REST) and returns what the door then presents. The door calls `run` directly, never through
 * `invoke`: the tool itself charges nothing.
 */

export interface DoorOnlyTool<I extends z.ZodObject = z.ZodObject, O = unknown> {
  name: string;
  text: ToolText;
  annotations: ToolHints;
  /** What a call takes, besides the door's `maxTokens` and `cursor`. */
  input: I;
  run(ports: DoorOnlyPorts, input: z.output<I>, ctx: ServiceContext): Promise<O>;
}
