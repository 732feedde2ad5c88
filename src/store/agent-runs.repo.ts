/**
 * Agent runs and their events. Status changes are conditional UPDATEs (a run ends once, whoever ends
 * it); an event's sequence number is assigned in the transaction that stores it.
 */
import type { Db } from './database.js';

export type AgentRunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface AgentRunRow {
  seq: number;
  id: string;
  key_id: string;
  status: AgentRunStatus;
  zero_retention: number;
  request: string;
  output: string | null;
  cost: string | null;
  usage: string | null;
  error: string | null;
  stop_reason: string | null;
  owner: string | null;
  lease_until_ms: number | null;
  /** The research state at the last completed step (JSON), null before the run started. */
  progress: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
}

export interface AgentEventRow {
  run_id: string;
  seq: number;
  event: string;
  data: string;
  created_at: string;
}

/** How a run ended: the columns its terminal status sets. */
export type AgentRunEnd = Pick<AgentRunRow, 'status' | 'output' | 'cost' | 'usage' | 'error' | 'stop_reason' | 'completed_at'>; // prettier-ignore

const OPEN = "('queued', 'running')";

export function createAgentRunsRepo(db: Db) {
  const s = {
    insert: db.prepare(
      `INSERT INTO agent_runs (id, key_id, status, zero_retention, request, owner, lease_until_ms, created_at, updated_at)
       VALUES (@id, @key_id, 'queued', @zero_retention, @request, @owner, @lease_until_ms, @created_at, @created_at)`,
    ),
    get: db.prepare('SELECT * FROM agent_runs WHERE id = ?'),
    page: db.prepare('SELECT * FROM agent_runs WHERE key_id = @key AND seq < @before ORDER BY seq DESC LIMIT @limit'),
    start: db.prepare(
      `UPDATE agent_runs SET status = 'running', started_at = COALESCE(started_at, @at), updated_at = @at, owner = @owner,
         lease_until_ms = @lease
       WHERE id = @id AND status = 'queued'`,
    ),
    end: db.prepare(
      `UPDATE agent_runs SET status = @status, output = @output, cost = @cost, usage = @usage, error = @error,
         stop_reason = @stop_reason, completed_at = @completed_at, updated_at = @completed_at, lease_until_ms = NULL,
         progress = NULL
       WHERE id = @id AND status IN ${OPEN}`,
    ),
    progress: db.prepare(`UPDATE agent_runs SET progress = ? WHERE id = ? AND status = 'running' AND owner = ?`),
    requeue: db.prepare(
      `UPDATE agent_runs SET status = 'queued', owner = NULL, lease_until_ms = NULL, updated_at = @at
       WHERE id = @id AND status = 'running' AND (owner = @owner OR lease_until_ms < @now)`,
    ),
    renew: db.prepare(`UPDATE agent_runs SET lease_until_ms = ? WHERE id = ? AND status IN ${OPEN}`),
    queued: db.prepare("SELECT * FROM agent_runs WHERE status = 'queued' ORDER BY seq"),
    lapsed: db.prepare(`SELECT * FROM agent_runs WHERE status IN ${OPEN} AND lease_until_ms < ? LIMIT 500`),
    running: db.prepare("SELECT COUNT(*) AS n FROM agent_runs WHERE key_id = ? AND status = 'running'"),
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

  return {
    transaction<T>(work: () => T): T {
      return db.transaction(work).immediate();
    },
    insert(
      row: Pick<AgentRunRow, 'id' | 'key_id' | 'request' | 'owner' | 'lease_until_ms' | 'created_at'> & {
        zero_retention?: number;
      },
    ): void {
      s.insert.run({ zero_retention: 0, ...row });
    },
    /** Zero retention: forgets a finished run's request. */
    eraseRequest(id: string): void {
      s.eraseRequest.run(id);
    },
    /** Zero retention: forgets outputs of runs finished before `beforeIso`, and events of runs finished before `eventsBeforeIso`. */ // prettier-ignore
    eraseRetained(beforeIso: string, eventsBeforeIso: string): void {
      s.eraseOutputs.run(beforeIso);
      s.eraseEvents.run(eventsBeforeIso);
    },
    get(id: string): AgentRunRow | undefined {
      return s.get.get(id) as AgentRunRow | undefined;
    },
    /** A key's runs with `seq < before`, newest first. */
    page(keyId: string, before: number, limit: number): AgentRunRow[] {
      return s.page.all({ key: keyId, before, limit }) as AgentRunRow[];
    },
    /** queued → running; false when it is no longer queued (cancelled, or taken by another process). */
    start(id: string, at: string, owner: string, leaseUntilMs: number): boolean {
      return s.start.run({ id, at, owner, lease: leaseUntilMs }).changes > 0;
    },
    /** Ends an open run (its saved progress, which holds what it found, is dropped); false when it had ended already. */
    end(id: string, end: AgentRunEnd): boolean {
      return s.end.run({ id, ...end }).changes > 0;
    },
    /** Records a running run's research state; false when `owner` no longer runs it. */
    saveProgress(id: string, owner: string, progress: string): boolean {
      return s.progress.run(progress, id, owner).changes > 0;
    },
    /**
     * running → queued, to be resumed from its progress by whichever process claims it: a run of `owner`
     * (shutting down), or one whose lease lapsed before `nowMs`. False when it is not such a run.
     */
    requeue(id: string, owner: string | null, nowMs: number, at: string): boolean {
      return s.requeue.run({ id, owner, now: nowMs, at }).changes > 0;
    },
    renewLease(id: string, untilMs: number): boolean {
      return s.renew.run(untilMs, id).changes > 0;
    },
    queued(): AgentRunRow[] {
      return s.queued.all() as AgentRunRow[];
    },
    lapsed(nowMs: number): AgentRunRow[] {
      return s.lapsed.all(nowMs) as AgentRunRow[];
    },
    runningOf(keyId: string): number {
      return (s.running.get(keyId) as { n: number }).n;
    },
    delete(id: string): void {
      s.deleteEvents.run(id);
      s.delete.run(id);
    },
    /** Appends an event (inside the caller's transaction, or alone); returns its sequence number. */
    appendEvent(runId: string, event: string, data: string, at: string): number {
      const seq = (s.lastEvent.get(runId) as { n: number }).n + 1;
      s.insertEvent.run({ run_id: runId, seq, event, data, created_at: at });
      return seq;
    },
    events(runId: string, afterSeq: number, limit: number): AgentEventRow[] {
      return s.events.all(runId, afterSeq, limit) as AgentEventRow[];
    },
  };
}
export type AgentRunsRepo = ReturnType<typeof createAgentRunsRepo>;
