/**
 * The door's side of MCP tasks: the capability a server declares, which tools may run as tasks (the
 * catalog's `execution.taskSupport`), and how a task-augmented `tools/call` starts. `agent_run` starts
 * its run through its own handler (same checks, no wait window) and the task follows the run; the other
 * tools run their ordinary handler inside the task, in this process.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CreateTaskResult,
} from '@modelcontextprotocol/server';
import type { Door } from '../../compose/door.js';
import type { Release } from '../../core/accounts/in-flight.js';
import type { Caller } from '../../core/context.js';
import { TOOL_SPECS } from '../catalog.js';
import type { DoorTool, Extra } from '../types.js';
import type { RunResult } from './agent-run-task.js';
import { taskExtra } from './extra.js';
import type { OwnedTaskStore } from './task-store.js';
import { createMcpTasks, type RunStart } from './tasks.js';

/** The `tasks` capability of 2025-11-25: list, cancel, and task-augmented tools/call. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/** The 2026-07-28 Tasks extension (SEP-2663): its id in `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The tools that may run as tasks. */
export const TASK_TOOLS: ReadonlySet<string> = new Set(TOOL_SPECS.filter((t) => t.execution).map((t) => t.name));

/** The tasks of one door server. */
export interface DoorTasks {
  /** The owner-bound store (the server's `taskStore` option). */
  store: OwnedTaskStore;
  /**
   * Starts `tool` as a task (the call carried `task`); resolves with the task at once. Takes over `slot`,
   * the call's request in flight: in-process work holds it until it ends; an agent run (which has its own
   * limit) gives it back once started.
   * @throws ProtocolError MethodNotFound for a tool that does not run as a task; InvalidRequest for a
   * zero-retention caller (a task's result waits in the store to be read), or over TRAWL_MCP_MAX_TASKS.
   */
  start(tool: DoorTool, params: CallToolRequest['params'], extra: Extra, slot?: Release): Promise<CreateTaskResult>;
}

/** What the door gives its tasks. */
export interface DoorTaskDeps {
  /** The agent_run handler (it renders a followed run). */
  agentRun: () => DoorTool;
  /** Whether the connected client offers sampling. */
  clientSampling: () => boolean;
}

/** The tasks of one server for `caller`. */
export function createDoorTasks(app: Door, caller: Caller | null, deps: DoorTaskDeps): DoorTasks {
  // an ended run reads as agent_run answers it: the same handler, asked about the run with no wait
  const runResult: RunResult = (run) => deps.agentRun().call({ runId: run.id, waitSeconds: 0 }, taskExtra());
  const tasks = createMcpTasks(app, caller, { runResult, clientSampling: deps.clientSampling });
  return {
    store: tasks.store,
    async start(tool, params, extra, slot) {
      if (!TASK_TOOLS.has(tool.name)) {
        throw new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `Tool ${tool.name} does not run as a task; call it without task (task-capable: ${[...TASK_TOOLS].join(', ')})`,
        );
      }
      if (caller?.zeroRetention) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          "FEATURE_DISABLED: a task keeps its result in the store until it is read, and this key's team has zero data retention; call the tool without task",
        );
      }
      const args = params.arguments ?? {};
      const asked = { ttl: params.task?.ttl };
      if (tool.name === 'agent_run') {
        try {
          return await tasks.startRun(tool.name, asked, () => startRun(tool, args, extra));
        } finally {
          slot?.();
        }
      }
      const work = (signal: AbortSignal, note: (message: string) => void) =>
        tool.call(args, taskExtra(signal, note, extra));
      return tasks.startWork(tool.name, asked, work, slot);
    },
  };
}

/** agent_run's own start, with no wait window: the run to follow, or the result that refused to start one. */
async function startRun(tool: DoorTool, args: Record<string, unknown>, extra: Extra): Promise<RunStart> {
  const result = await tool.call({ ...args, waitSeconds: 0 }, taskExtra(undefined, undefined, extra));
  const id = (result.structuredContent as { id?: unknown } | undefined)?.id;
  return result.isError || typeof id !== 'string' ? { result } : { runId: id };
}
