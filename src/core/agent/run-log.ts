/**
 * The event log of agent runs: every step is an event stored (with its sequence number) before anyone
 * hears of it; a run ends once, with its terminal event in the same unit of work; followers of a run's
 * events wake on an event stored in this process, or poll for one stored by another.
 */
import type { AgentRunEnd, AgentRunRow, AgentRunsRepo } from '../../store/contracts/agent-runs.js';
import type { AgentEvent, StreamOptions } from './agent-runs.types.js';
import { toEvent } from './objects.js';

const TERMINAL = new Set(['agent_run.completed', 'agent_run.failed', 'agent_run.cancelled']);
/** Events read at once while replaying; how long a follower waits before polling the store again. */
const BATCH = 500;
const POLL_MS = 250;

/** Writes and reads the events of runs. */
export interface RunLog {
  /** Stores an event of a run (its number taken in a write transaction) and wakes its followers. */
  append(runId: string, event: string, data: Record<string, unknown>): Promise<void>;
  /** Ends an open run with its terminal event (data made from the ended run); false if it had ended already. */
  finish(
    id: string,
    end: AgentRunEnd,
    event: string,
    data: (row: AgentRunRow) => Record<string, unknown>,
  ): Promise<boolean>;
  /** Ends an open run `failed` with `{code, message}`. */
  fail(id: string, code: string, message: string): Promise<boolean>;
  /** Ends a run that cannot be resumed: failed `interrupted`, saying why. */
  interrupted(id: string, why: string): Promise<boolean>;
  /** The run's events after `afterId` (see AgentRunsService.stream); the caller checked it may read them. */
  follow(id: string, options: StreamOptions): AsyncIterable<AgentEvent>;
}

/** The event log over `repo`, with the clock's time. */
export function createRunLog(repo: AgentRunsRepo, now: () => number): RunLog {
  const listeners = new Set<() => void>();
  const iso = () => new Date(now()).toISOString();
  const wake = () => {
    for (const l of listeners) l();
  };

  const finish: RunLog['finish'] = async (id, end, event, data) => {
    const ended = await repo.finish(id, end, (row) => ({ event, data: JSON.stringify(data(row)), at: iso() }));
    if (ended) wake();
    return ended;
  };
  const fail: RunLog['fail'] = (id, code, message) =>
    finish(
      id,
      {
        status: 'failed',
        output: null,
        cost: null,
        usage: null,
        error: JSON.stringify({ code, message }),
        stop_reason: 'error',
        completed_at: iso(),
      },
      'agent_run.failed',
      (row) => ({ id: row.id, status: 'failed', error: { code, message } }),
    );

  /** Resolves on the next event stored here, after POLL_MS, or on abort. */
  const nextEvent = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        listeners.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, POLL_MS);
      listeners.add(done);
      signal.addEventListener('abort', done, { once: true });
    });

  return {
    async append(runId, event, data) {
      await repo.appendEvent(runId, event, JSON.stringify(data), iso());
      wake();
    },
    finish,
    fail,
    interrupted: (id, why) =>
      fail(id, 'interrupted', `the run was interrupted (its process stopped) and cannot be resumed: ${why}`),
    async *follow(id, options) {
      let after = options.afterId;
      for (;;) {
        const rows = await repo.events(id, after, BATCH);
        for (const row of rows) {
          const event = toEvent(row);
          after = event.id;
          yield event;
          if (TERMINAL.has(event.event)) return;
        }
        if (rows.length === BATCH) continue;
        if (!options.follow || options.signal.aborted) return;
        await nextEvent(options.signal);
      }
    },
  };
}
