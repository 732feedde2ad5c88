/**
 * /agent/runs: runs are created `queued`, started (`running`) when the key has a free slot (a fifth of
 * its request rate, two at the default), researched (./research.ts), and end `completed`, `failed` or
 * `cancelled`. Every step is an event with a sequence number, stored before it is streamed, so a
 * stream can be replayed from any `Last-Event-ID` (./run-log.ts). Runs and events are durable: the
 * research state is saved at each completed step, and a run whose process died (or stopped) is queued
 * again and resumed from there by whichever process claims it (./agent-runs.engine.ts); a run that
 * cannot be resumed fails `interrupted`. docs/agent.md; the flow in ./README.md.
 */
import { randomBytes } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { AgentRunRow } from '../../store/contracts/agent-runs.js';
import type { ChatModel } from '../../providers/model/types.js';
import { owned, ownerOf } from '../access/access.js';
import type { Caller } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursors.js';
import { createRunEngine } from './agent-runs.engine.js';
import type { AgentRunsDeps, AgentRunsService } from './agent-runs.types.js';
import { runOwner, storedKeyOf, toEvent, toRun } from './objects.js';
import { checkPrevious, checkSupported } from './run-checks.js';
import { createRunLog } from './run-log.js';

export type { AgentEvent, AgentRun, AgentRunRequest, AgentRunsDeps, AgentRunsService } from './agent-runs.types.js';
export { INDEX_SOURCE } from './run-checks.js';

/** The agent runs service of one process (its engine starts runs when `engine.start()` is called). */
export function createAgentRunsService(deps: AgentRunsDeps): AgentRunsService {
  const { repo } = deps;
  /** The MCP client's own model (sampling) of runs created over MCP, for as long as this process runs them. */
  const clientModels = new Map<string, ChatModel>();
  const log = createRunLog(repo, deps.now);
  const runs = createRunEngine(deps, log, clientModels);
  const iso = (ms: number) => new Date(ms).toISOString();

  const own = async (id: string, caller: Caller | null): Promise<AgentRunRow> =>
    owned(caller, 'agentRun', await repo.get(id), runOwner, `agent run ${id}`);

  /** Zero retention: a run's stored events are not replayable. */
  const notKept = (row: AgentRunRow) => {
    if (row.zero_retention) {
      throw new ServiceError(
        'FEATURE_DISABLED',
        `events of agent run ${row.id} are not kept (zero data retention); stream them live when creating the run`,
      );
    }
  };

  const cancel = async (id: string, caller: Caller | null) => {
    const row = await own(id, caller);
    if (row.status === 'queued' || row.status === 'running') {
      const at = iso(deps.now());
      const end = {
        status: 'cancelled' as const,
        output: null,
        cost: null,
        usage: null,
        error: null,
        stop_reason: 'cancelled',
        completed_at: at,
      };
      await log.finish(id, end, 'agent_run.cancelled', () => ({ id, status: 'cancelled', cancelledAt: at }));
      runs.abort(id, 'cancelled');
    }
    return toRun((await repo.get(id))!);
  };

  return {
    async create(input, caller, clientModel) {
      checkSupported(input, caller, deps.hasModel || clientModel !== undefined, deps);
      await checkPrevious(repo, input, caller);
      const id = `run_${randomBytes(12).toString('hex')}`;
      const at = iso(deps.now());
      if (clientModel) clientModels.set(id, clientModel);
      const created = { event: 'agent_run.created', data: JSON.stringify({ id, status: 'queued', createdAt: at }), at };
      await repo.insert(
        {
          id,
          key_id: storedKeyOf(caller),
          team_id: ownerOf(caller).teamId,
          zero_retention: caller?.zeroRetention ? 1 : 0,
          request: JSON.stringify(input),
          owner: null,
          lease_until_ms: null,
          created_at: at,
        },
        created,
      );
      const row = (await repo.get(id))!;
      await runs.pump();
      return toRun((await repo.get(id)) ?? row);
    },
    get: async (id, caller) => toRun(await own(id, caller)),
    async list(caller, query) {
      // a run is its key's alone: the key's own runs are the ones it reaches (runOwner)
      const rows = await repo.page(storedKeyOf(caller), decodeCursor('a', query.cursor), query.limit + 1);
      const kept = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      return { data: kept.map(toRun), hasMore, nextCursor: hasMore ? encodeCursor('a', kept.at(-1)!.seq) : null };
    },
    cancel,
    async remove(id, caller) {
      await cancel(id, caller);
      await repo.delete(id);
      return { id, object: 'agent_run', deleted: true };
    },
    async events(id, caller, query) {
      notKept(await own(id, caller));
      const after = query.cursor === undefined ? 0 : decodeCursor('e', query.cursor);
      const rows = await repo.events(id, after, query.limit + 1);
      const kept = rows.slice(0, query.limit).map(toEvent);
      const hasMore = rows.length > query.limit;
      return { data: kept, hasMore, nextCursor: hasMore ? encodeCursor('e', kept.at(-1)!.id) : null };
    },
    async *stream(id, caller, options) {
      await own(id, caller);
      yield* log.follow(id, options);
    },
    engine: runs.engine,
  };
}
