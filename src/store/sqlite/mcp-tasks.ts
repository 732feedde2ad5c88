/**
 * MCP tasks (migration 12): one row per task, read only through its owner (an API key id, or 'local').
 * A task ends once: every end is a conditional UPDATE of an open row, whoever ends it (the worker, a
 * cancel from any process, a reader that finds the worker's lease lapsed).
 */
import { LEASED } from '../contracts/leases.js';
import type { Db } from './database.js';
import { sqliteLeases } from './leases.js';
import { teamOfKey } from '../owner-team.js';
import type { McpTaskStatus, McpTaskRow, McpTasksRepo } from '../contracts/mcp-tasks.js';

const OPEN = "('working', 'input_required')";
const iso = (ms: number) => new Date(ms).toISOString();

/** The SQLite implementation, on prepared statements. */
export function createMcpTasksRepo(db: Db): McpTasksRepo {
  const leases = sqliteLeases<McpTaskRow>(db, LEASED.mcpTasks);
  const s = {
    insert: db.prepare(
      `INSERT INTO mcp_tasks (id, owner, team_id, tool, status, ttl_ms, poll_interval_ms, created_at, last_updated_at,
         updated_ms, expires_ms, worker, lease_until_ms)
       VALUES (@id, @owner, ${teamOfKey('@owner')}, @tool, 'working', @ttl, @poll, @at, @at, @now, @now + @ttl, @worker, @lease)`,
    ),
    get: db.prepare('SELECT * FROM mcp_tasks WHERE id = ? AND owner = ?'),
    page: db.prepare('SELECT * FROM mcp_tasks WHERE owner = ? AND seq < ? ORDER BY seq DESC LIMIT ?'),
    linkRun: db.prepare(
      `UPDATE mcp_tasks SET run_id = @run, updated_ms = @now, last_updated_at = @at WHERE id = @id AND status IN ${OPEN}`,
    ),
    note: db.prepare(
      `UPDATE mcp_tasks SET status_message = @message, updated_ms = @now, last_updated_at = @at
       WHERE id = @id AND status IN ${OPEN}`,
    ),
    end: db.prepare(
      `UPDATE mcp_tasks SET status = @status, status_message = @message, result = @result, updated_ms = @now,
         last_updated_at = @at, expires_ms = @now + ttl_ms, lease_until_ms = NULL
       WHERE id = @id AND status IN ${OPEN}`,
    ),
    status: db.prepare('SELECT status FROM mcp_tasks WHERE id = ?'),
    countOpen: db.prepare(
      `SELECT COUNT(*) AS n FROM mcp_tasks
       WHERE owner = ? AND status IN ${OPEN} AND (lease_until_ms IS NULL OR lease_until_ms >= ?)`,
    ),
    expire: db.prepare(
      `DELETE FROM mcp_tasks WHERE expires_ms < @now AND (status NOT IN ${OPEN} OR expires_ms + @grace < @now)`,
    ),
  };
  return {
    async insert(task) {
      s.insert.run({
        id: task.id,
        owner: task.owner,
        tool: task.tool,
        ttl: task.ttlMs,
        poll: task.pollIntervalMs,
        at: iso(task.nowMs),
        now: task.nowMs,
        worker: task.worker,
        lease: task.leaseUntilMs,
      });
    },
    get: async (id, owner) => s.get.get(id, owner) as McpTaskRow | undefined,
    page: async (owner, before, limit) => s.page.all(owner, before, limit) as McpTaskRow[],
    linkRun: async (id, runId, nowMs) => s.linkRun.run({ id, run: runId, now: nowMs, at: iso(nowMs) }).changes > 0,
    note: async (id, message, nowMs) => s.note.run({ id, message, now: nowMs, at: iso(nowMs) }).changes > 0,
    end: async (id, end) =>
      s.end.run({
        id,
        status: end.status,
        message: end.statusMessage,
        result: end.result,
        now: end.nowMs,
        at: iso(end.nowMs),
      }).changes > 0,
    renewLease: (id, worker, untilMs) => leases.renew(id, worker, untilMs),
    statusOf: async (id) => (s.status.get(id) as { status: McpTaskStatus } | undefined)?.status,
    countOpen: async (owner, nowMs) => (s.countOpen.get(owner, nowMs) as { n: number }).n,
    deleteExpired: async (nowMs, graceMs) => s.expire.run({ now: nowMs, grace: graceMs }).changes,
  };
}
