/**
 * Agent runs and their events. Status changes are conditional UPDATEs (a run ends once, whoever ends
 * it); an event's sequence number is assigned in the transaction that stores it.
 */
import { LEASED } from '../contracts/leases.js';
import type { Db } from './database.js';
import {
  AGENT_RUN_CLAIM,
  AGENT_RUN_REQUEUE,
  agentRunClaim,
  type AgentRunRow,
  type AgentEventRow,
  type NewAgentEvent,
  type AgentRunStatus,
  type AgentRunsRepo,
} from '../contracts/agent-runs.js';
import { sqliteLeases } from './leases.js';

const OPEN = "('queued', 'running')";

/** The SQLite implementation: prepared statements, each unit of work in one immediate transaction. */
export function createAgentRunsRepo(db: Db): AgentRunsRepo {
  const s = {
    insert: db.prepare(
      `INSERT INTO agent_runs (id, key_id, team_id, status, zero_retention, request, owner, lease_until_ms, created_at,
         updated_at)
       VALUES (@id, @key_id, @team_id, 'queued', @zero_retention, @request, @owner, @lease_until_ms, @created_at,
         @created_at)`,
    ),
    get: db.prepare('SELECT * FROM agent_runs WHERE id = ?'),
    status: db.prepare('SELECT status FROM agent_runs WHERE id = ?').pluck(),
    page: db.prepare('SELECT * FROM agent_runs WHERE key_id = @key AND seq < @before ORDER BY seq DESC LIMIT @limit'),
    end: db.prepare(
      `UPDATE agent_runs SET status = @status, output = @output, cost = @cost, usage = @usage, error = @error,
         stop_reason = @stop_reason, completed_at = @completed_at, updated_at = @completed_at, lease_until_ms = NULL,
         progress = NULL
       WHERE id = @id AND status IN ${OPEN}`,
    ),
    progress: db.prepare(`UPDATE agent_runs SET progress = ? WHERE id = ? AND status = 'running' AND owner = ?`),
    queued: db.prepare("SELECT * FROM agent_runs WHERE status = 'queued' ORDER BY seq"),
    delete: db.prepare('DELETE FROM agent_runs WHERE id = ?'),
    deleteEvents: db.prepare('DELETE FROM agent_events WHERE run_id = ?'),
    lastEvent: db.prepare('SELECT COALESCE(MAX(seq), 0) AS n FROM agent_events WHERE run_id = ?'),
    insertEvent: db.prepare(
      'INSERT INTO agent_events (run_id, seq, event, data, created_at) VALUES (@run_id, @seq, @event, @data, @created_at)',
    ),
    events: db.prepare('SELECT * FROM agent_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
    eraseRequest: db.prepare(`UPDATE agent_runs SET request = '{}' WHERE id = ? AND zero_retention = 1`),
    eraseOutputs: db.prepare(
      `UPDATE agent_runs SET output = NULL WHERE zero_retention = 1 AND output IS NOT NULL AND completed_at < ?`,
    ),
    eraseEvents: db.prepare(
      `DELETE FROM agent_events WHERE run_id IN (SELECT id FROM agent_runs WHERE zero_retention = 1
         AND status NOT IN ${OPEN} AND completed_at < ?)`,
    ),
  };

  const leases = sqliteLeases<AgentRunRow>(db, LEASED.agentRuns);
  const claim = leases.claim(AGENT_RUN_CLAIM);
  const requeue = leases.release(AGENT_RUN_REQUEUE);
  const tx = <T>(work: () => T): T => db.transaction(work).immediate();
  const get = (id: string) => s.get.get(id) as AgentRunRow | undefined;
  /** Stores an event with the next sequence number of its run (inside the caller's transaction). */
  const append = (runId: string, e: NewAgentEvent): number => {
    const seq = (s.lastEvent.get(runId) as { n: number }).n + 1;
    s.insertEvent.run({ run_id: runId, seq, event: e.event, data: e.data, created_at: e.at });
    return seq;
  };

  return {
    async insert(row, first) {
      tx(() => {
        s.insert.run({ zero_retention: 0, ...row });
        if (first) append(row.id, first);
      });
    },
    async get(id) {
      return get(id);
    },
    statusOf: async (id) => s.status.get(id) as AgentRunStatus | undefined,
    async page(keyId, before, limit) {
      return s.page.all({ key: keyId, before, limit }) as AgentRunRow[];
    },
    // one UPDATE, its key's share counted in it: SQLite writes one statement at a time
    claim: async (id, limit, at, owner, leaseUntilMs) =>
      (await claim(id, { owner, untilMs: leaseUntilMs }, agentRunClaim(at, limit))) !== undefined,
    async markStarted(id, owner, progress, started) {
      return tx(() => {
        if (s.progress.run(progress, id, owner).changes === 0) return false;
        if (started) append(id, started);
        return true;
      });
    },
    async finish(id, end, event) {
      return tx(() => {
        if (s.end.run({ id, ...end }).changes === 0) return false;
        append(id, event(get(id)!));
        s.eraseRequest.run(id); // a zero-retention run's request is not kept once it ended
        return true;
      });
    },
    async saveProgress(id, owner, progress) {
      return s.progress.run(progress, id, owner).changes > 0;
    },
    requeue: (id, owner, nowMs, at) => requeue(id, { owner, nowMs }, { at }),
    renewLease: (id, untilMs) => leases.renew(id, null, untilMs),
    async queued() {
      return s.queued.all() as AgentRunRow[];
    },
    lapsed: (nowMs) => leases.lapsed(nowMs),
    async delete(id) {
      tx(() => {
        s.deleteEvents.run(id);
        s.delete.run(id);
      });
    },
    async appendEvent(runId, event, data, at) {
      return tx(() => append(runId, { event, data, at }));
    },
    async events(runId, afterSeq, limit) {
      return s.events.all(runId, afterSeq, limit) as AgentEventRow[];
    },
    async eraseRetained(beforeIso, eventsBeforeIso) {
      tx(() => {
        s.eraseOutputs.run(beforeIso);
        s.eraseEvents.run(eventsBeforeIso);
      });
    },
  };
}
