/**
 * MCP tasks of one server (one stdio connection, or one stateless HTTP request): the owner-bound task
 * store it hands the SDK, and the start of a task-augmented `tools/call`, which answers the task at once
 * while the work goes on: in-process (a job of the app's tasks, core/jobs/tasks.ts), or as the agent run
 * the task follows.
 */
import type { CallToolResult, CreateTaskResult } from '@modelcontextprotocol/server';
import type { Door } from '../../compose/door.js';
import type { Caller } from '../../core/context.js';
import { toServiceError } from '../../errors.js';
import type { RunResult } from './agent-run-task.js';
import type { Release } from '../../core/accounts/in-flight.js';
import { endOf, pollFor, taskRulesOf, textResult, toTask } from './objects.js';
import { createTaskStore, type OwnedTaskStore } from './task-store.js';

/** What a client asks of a task in `params.task`. */
export interface TaskParams {
  ttl?: number | null;
  pollInterval?: number;
}

/** How starting an agent run went: the run to follow, or the tool result that refused it. */
export type RunStart = { runId: string } | { result: CallToolResult };

/** In-process work of a task: `signal` aborts on a cancel; `note` sets the task's status message. */
export type TaskWork = (signal: AbortSignal, note: (message: string) => void) => Promise<CallToolResult>;

/** The tasks of one server: its store and the two ways a task starts. */
export interface McpTasks {
  /** The owner-bound store (the server's `taskStore` option). */
  store: OwnedTaskStore;
  /**
   * Starts `work` of `tool` as a task in this process; resolves with the task at once. `slot` (the
   * caller's request in flight, TRAWL_RATE_LIMIT_CONCURRENCY) is held until the work ends.
   * @throws ProtocolError InvalidRequest when the owner has TRAWL_MCP_MAX_TASKS tasks open.
   */
  startWork(tool: string, params: TaskParams, work: TaskWork, slot?: Release): Promise<CreateTaskResult>;
  /**
   * Starts a task that follows the agent run `start` creates or finds (its id linked at once); a `start`
   * that answers a result instead (a refusal) or throws ends the task with that result.
   * @throws ProtocolError InvalidRequest when the owner has TRAWL_MCP_MAX_TASKS tasks open.
   */
  startRun(tool: string, params: TaskParams, start: () => Promise<RunStart>): Promise<CreateTaskResult>;
}

/** What the door gives the tasks of one server. */
export interface McpTasksOptions {
  /** Renders an ended agent run as `agent_run` answers it. */
  runResult: RunResult;
  /** Whether the client offers sampling (its model could have written what a task cannot ask it for). */
  clientSampling: () => boolean;
}

/** The tasks of one server for `caller`. */
export function createMcpTasks(app: Door, caller: Caller | null, options: McpTasksOptions): McpTasks {
  // the app's tasks: their work outlives any one server, and a closing app ends it first (interrupted)
  const { tasks } = app;
  const store = createTaskStore(
    { tasks, agentRuns: app.agentRuns, runResult: options.runResult, rules: taskRulesOf(app.config) },
    caller,
  );
  // only the client's model could have answered what needs a model: say why a task cannot use it
  const explain = (result: CallToolResult) =>
    app.config.modelBaseUrl === undefined && options.clientSampling() ? withTaskReason(result) : result;

  const open = async (tool: string, params: TaskParams, inProcess: boolean) => {
    await store.sweep();
    await store.requireRoom();
    const ttlMs = store.ttlFor(params.ttl);
    return tasks.open({ owner: store.owner, tool, ttlMs, pollIntervalMs: pollFor(params.pollInterval), inProcess });
  };
  const created = async (id: string): Promise<CreateTaskResult> => ({
    task: toTask((await tasks.get(id, store.owner))!),
  });
  const end = (id: string, result: CallToolResult) =>
    tasks.end(id, { ...endOf(result), result: JSON.stringify(result) });
  const failed = (thrown: unknown, tool: string): CallToolResult => {
    const err = toServiceError(thrown);
    if (err.tag === 'INTERNAL_ERROR') app.logger.error({ err: thrown, tool }, 'task failed');
    return explain(textResult(`${err.tag}: ${err.message}`, true));
  };

  return {
    store,
    async startWork(tool, params, work, slot) {
      const id = await open(tool, params, true);
      const note = (message: string) => {
        // a store closed under the work: its lease lapses and a reader says it was interrupted
        tasks.note(id, message).catch(() => undefined);
      };
      tasks.run(id, async (signal) => {
        let result: CallToolResult;
        try {
          result = explain(await work(signal, note));
        } catch (thrown) {
          result = failed(thrown, tool);
        }
        slot?.();
        if (!signal.aborted) await end(id, result); // a cancelled task was ended by its canceller
      });
      return created(id);
    },
    async startRun(tool, params, start) {
      const id = await open(tool, params, false);
      try {
        const started = await start();
        if ('result' in started) await end(id, explain(started.result));
        // a cancel that came between the start and the link found no run to stop: stop it here
        else if (!(await tasks.linkRun(id, started.runId))) await app.agentRuns.cancel(started.runId, caller);
      } catch (thrown) {
        await end(id, failed(thrown, tool));
      }
      return created(id);
    },
  };
}

/** Said when work inside a task needed a model and only the client's (through sampling) could have been it. */
export const TASK_NO_SAMPLING =
  "this call runs as an MCP task, which outlives the client's request, so the client's own model (sampling) " +
  'cannot write for it, and this server has no model configured (TRAWL_MODEL_BASE_URL and TRAWL_MODEL). ' +
  'Call the tool without `task` to use your own model, or ask the operator to configure one.';

/**
 * A FEATURE_DISABLED result for a missing language model, inside a task for a client that offers
 * sampling on a server without a model: the text says why the client's model cannot stand in (the
 * services word it for a call that could use it).
 */
export function withTaskReason(result: CallToolResult): CallToolResult {
  if (!result.isError) return result;
  const first = result.content[0];
  const text = first?.type === 'text' ? first.text : '';
  if (!text.startsWith('FEATURE_DISABLED:') || !/language model/i.test(text)) return result;
  return {
    ...result,
    content: [{ type: 'text', text: `FEATURE_DISABLED: ${TASK_NO_SAMPLING} (${text.slice(18).trim()})` }],
  };
}
