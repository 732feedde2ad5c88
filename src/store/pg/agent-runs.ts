/**
 * Agent runs and their events over PostgreSQL: the same contract as `createAgentRunsRepo` (SQLite).
 * Where SQLite takes the database's write lock, a transaction here takes a lock of what it serializes:
 * the key's (a claim counts the key's running runs, so the concurrent-run limit holds across replicas)
 * or the run's (an event's number is the run's next).
 */
import type pg from 'pg';
import {
  AGENT_RUN_CLAIM,
  AGENT_RUN_REQUEUE,
  agentRunClaim,
  type AgentEventRow,
  type AgentRunRow,
  type AgentRunStatus,
  type AgentRunsRepo,
  type NewAgentEvent,
} from '../contracts/agent-runs.js';
import { changed, inTransaction, type Run } from './sql.js';
import { LEASED } from '../contracts/leases.js';
import { pgLeases } from './leases.js';

const OPEN = "('queued', 'running')";

/** Serializes transactions on one name (a key's claims, a run's events) until the transaction ends. */
const lock = (db: Run, name: string) => db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [name]);

/** Stores an event with the next number of its run; the caller holds the run's lock. */
async function append(db: Run, runId: string, e: NewAgentEvent): Promise<number> {
  const { rows } = await db.query<{ seq: number }>(
    `INSERT INTO agent_events (run_id, seq, event, data, created_at)
     SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4 FROM agent_events WHERE run_id = $1 RETURNING seq`,
    [runId, e.event, e.data, e.at],
  );
  return rows[0]!.seq;
}

const runLock = (runId: string) => `agent-run:${runId}`;

export function createPgAgentRunsRepo(pool: pg.Pool): AgentRunsRepo {
  const leases = pgLeases<AgentRunRow>(pool, LEASED.agentRuns);
  const claim = leases.claim(AGENT_RUN_CLAIM);
  const requeue = leases.release(AGENT_RUN_REQUEUE);
  const get = async (db: Run, id: string) =>
    (await db.query<AgentRunRow>('SELECT * FROM agent_runs WHERE id = $1', [id])).rows[0];
  return {
    async insert(row, first) {
      await inTransaction(pool, async (db) => {
        await db.query(
          `INSERT INTO agent_runs (id, key_id, status, zero_retention, request, owner, lease_until_ms, created_at, updated_at,
             team_id)
           VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $7, $8)`,
          [row.id, row.key_id, row.zero_retention ?? 0, row.request, row.owner, row.lease_until_ms, row.created_at, row.team_id], // prettier-ignore
        );
        if (first) await append(db, row.id, first);
      });
    },
    get: (id) => get(pool, id),
    async statusOf(id) {
      const { rows } = await pool.query<{ status: AgentRunStatus }>('SELECT status FROM agent_runs WHERE id = $1', [
        id,
      ]);
      return rows[0]?.status;
    },
    async page(keyId, before, limit) {
      const sql = 'SELECT * FROM agent_runs WHERE key_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3';
      return (await pool.query<AgentRunRow>(sql, [keyId, before, limit])).rows;
    },
    claim: (id, limit, at, owner, leaseUntilMs) =>
      inTransaction(pool, async (db) => {
        const row = await get(db, id);
        if (!row) return false;
        await lock(db, `agent-key:${row.key_id}`);
        // the key's share is counted in the claim, under the key's lock
        return (await claim(id, { owner, untilMs: leaseUntilMs }, agentRunClaim(at, limit), db)) !== undefined;
      }),
    markStarted: (id, owner, progress, started) =>
      inTransaction(pool, async (db) => {
        await lock(db, runLock(id));
        const saved = await db.query(
          "UPDATE agent_runs SET progress = $2 WHERE id = $1 AND status = 'running' AND owner = $3",
          [id, progress, owner],
        );
        if (!changed(saved)) return false;
        if (started) await append(db, id, started);
        return true;
      }),
    finish: (id, end, event) =>
      inTransaction(pool, async (db) => {
        await lock(db, runLock(id));
        const ended = await db.query<AgentRunRow>(
          `UPDATE agent_runs SET status = $2, output = $3, cost = $4, usage = $5, error = $6, stop_reason = $7,
             completed_at = $8, updated_at = $8, lease_until_ms = NULL, progress = NULL
           WHERE id = $1 AND status IN ${OPEN} RETURNING *`,
          [id, end.status, end.output, end.cost, end.usage, end.error, end.stop_reason, end.completed_at],
        );
        if (ended.rows.length === 0) return false;
        await append(db, id, event(ended.rows[0]!));
        // a zero-retention run's request is not kept once it ended
        await db.query("UPDATE agent_runs SET request = '{}' WHERE id = $1 AND zero_retention = 1", [id]);
        return true;
      }),
    saveProgress: async (id, owner, progress) =>
      changed(
        await pool.query("UPDATE agent_runs SET progress = $2 WHERE id = $1 AND status = 'running' AND owner = $3", [
          id,
          progress,
          owner,
        ]),
      ),
    requeue: (id, owner, nowMs, at) => requeue(id, { owner, nowMs }, { at }),
    renewLease: (id, untilMs) => leases.renew(id, null, untilMs),
    queued: async () => (await pool.query<AgentRunRow>("SELECT * FROM agent_runs WHERE status = 'queued' ORDER BY seq")).rows, // prettier-ignore
    lapsed: (nowMs) => leases.lapsed(nowMs),
    async delete(id) {
      await inTransaction(pool, async (db) => {
        await db.query('DELETE FROM agent_events WHERE run_id = $1', [id]);
        await db.query('DELETE FROM agent_runs WHERE id = $1', [id]);
      });
    },
    appendEvent: (runId, event, data, at) =>
      inTransaction(pool, async (db) => {
        await lock(db, runLock(runId));
        return append(db, runId, { event, data, at });
      }),
    async events(runId, afterSeq, limit) {
      const sql = 'SELECT * FROM agent_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3';
      return (await pool.query<AgentEventRow>(sql, [runId, afterSeq, limit])).rows;
    },
    async eraseRetained(beforeIso, eventsBeforeIso) {
      await inTransaction(pool, async (db) => {
        await db.query(
          'UPDATE agent_runs SET output = NULL WHERE zero_retention = 1 AND output IS NOT NULL AND completed_at < $1',
          [beforeIso],
        );
        await db.query(
          `DELETE FROM agent_events WHERE run_id IN (SELECT id FROM agent_runs WHERE zero_retention = 1
             AND status NOT IN ${OPEN} AND completed_at < $1)`,
          [eventsBeforeIso],
        );
      });
    },
  };
}
