/**
 * A task that follows an agent run: the run is the durable work (its own lease, cancel and restart
 * recovery), so the task's status, message and result are read from it, and cancelling the task cancels
 * the run through the agent runs service.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AgentRun, AgentRunsService } from '../../core/agent/agent-runs.types.js';
import type { Caller } from '../../core/context.js';
import { toServiceError } from '../../errors.js';
import type { TaskEnd } from '../../core/jobs/tasks.js';
import { textResult } from './objects.js';

/** An agent run as the service answers it. */
export type Run = AgentRun;

/** What a task needs of the agent runs service. */
export type RunsOfTasks = Pick<AgentRunsService, 'get' | 'cancel'>;

/** The tool result of an ended run, as `agent_run` answers it (the door's rendering and budget). */
export type RunResult = (run: Run) => CallToolResult | Promise<CallToolResult>;

/** The state of a followed run: still open (with a status line), or how its task ends. */
export type RunState = { open: true; statusMessage: string } | { open: false; end: TaskEnd };

/** The runs tasks follow, read and cancelled as one caller, their results rendered by the door. */
export interface RunFollower {
  /** Where the task of run `runId` stands; a run that is gone (deleted) ends the task as failed. */
  state(runId: string): Promise<RunState>;
  /** Cancels the followed run (the work stops wherever it runs); returns how its task ends now. */
  cancel(runId: string): Promise<TaskEnd>;
}

/** Follows `caller`'s runs in `runs`, rendering an ended run's result with `render`. */
export function followRuns(runs: RunsOfTasks, caller: Caller | null, render: RunResult): RunFollower {
  return {
    async state(runId) {
      let run: Run;
      try {
        run = await runs.get(runId, caller);
      } catch (thrown) {
        return { open: false, end: gone(runId, thrown) };
      }
      if (run.status === 'queued' || run.status === 'running') {
        return { open: true, statusMessage: `agent run ${run.id} is ${run.status}` };
      }
      return { open: false, end: await endOfRun(run, render) };
    },
    async cancel(runId) {
      let run: Run;
      try {
        run = await runs.cancel(runId, caller);
      } catch (thrown) {
        return gone(runId, thrown);
      }
      return endOfRun(run, render);
    },
  };
}

/** A run deleted (or otherwise unreadable) under its task: the task fails, saying so. */
function gone(runId: string, thrown: unknown): TaskEnd {
  const message = `agent run ${runId} is gone (${toServiceError(thrown).message})`;
  return { status: 'failed', statusMessage: message, result: json(textResult(`NOT_FOUND: ${message}`, true)) };
}

async function endOfRun(run: Run, render: RunResult): Promise<TaskEnd> {
  const result = await render(run);
  if (run.status === 'completed') return { status: 'completed', statusMessage: null, result: json(result) };
  if (run.status === 'cancelled') {
    return { status: 'cancelled', statusMessage: `agent run ${run.id} was cancelled`, result: json(result) };
  }
  const error = run.error ?? { code: 'internal_error', message: 'the run failed' };
  return {
    status: 'failed',
    statusMessage: `agent run ${run.id} failed: ${error.code}: ${error.message}`,
    result: json(result),
  };
}

const json = (result: CallToolResult) => JSON.stringify(result);
