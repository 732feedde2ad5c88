/**
 * MCP answer snapshots and tasks over PostgreSQL: the same contracts as `createMcpSnapshotsRepo` and
 * `createMcpTasksRepo` (SQLite). A task ends once: every end is a conditional UPDATE of an open row,
 * whichever replica makes it.
 */
import type pg from 'pg';
import type { McpSnapshot, McpSnapshotsRepo } from '../contracts/mcp-snapshots.js';
import type { McpTaskRow, McpTaskStatus, McpTasksRepo } from '../contracts/mcp-tasks.js';

import { teamOfKey } from '../owner-team.js';
import { changed } from './sql.js';
import { LEASED } from '../contracts/leases.js';
import { pgLeases } from './leases.js';

const OPEN = "('working', 'input_required')";
const iso = (ms: number) => new Date(ms).toISOString();

export function createPgMcpSnapshotsRepo(pool: pg.Pool): McpSnapshotsRepo {
  return {
    async insert(s) {
      await pool.query(
        `INSERT INTO mcp_snapshots (id, owner, team_id, tool, args_hash, body, created_ms, expires_ms)
         VALUES ($1, $2, ${teamOfKey('$2')}, $3, $4, $5, $6, $7)`,
        [s.id, s.owner, s.tool, s.argsHash, s.body, s.createdMs, s.expiresMs],
      );
    },
    async get(id, owner, nowMs) {
      const { rows } = await pool.query<McpSnapshot>(
        `SELECT id, owner, tool, args_hash AS "argsHash", body, created_ms AS "createdMs", expires_ms AS "expiresMs"
         FROM mcp_snapshots WHERE id = $1 AND owner = $2 AND expires_ms > $3`,
        [id, owner, nowMs],
      );
      return rows[0];
    },
    async deleteExpired(nowMs) {
      return (await pool.query('DELETE FROM mcp_snapshots WHERE expires_ms <= $1', [nowMs])).rowCount ?? 0;
    },
  };
}

export function createPgMcpTasksRepo(pool: pg.Pool): McpTasksRepo {
  const leases = pgLeases<McpTaskRow>(pool, LEASED.mcpTasks);
  return {
    async insert(t) {
      await pool.query(
        `INSERT INTO mcp_tasks (id, owner, team_id, tool, status, ttl_ms, poll_interval_ms, created_at, last_updated_at,
           updated_ms, expires_ms, worker, lease_until_ms)
         VALUES ($1, $2, ${teamOfKey('$2')}, $3, 'working', $4, $5, $6, $6, $7, $7::bigint + $4::bigint, $8, $9)`,
        [t.id, t.owner, t.tool, t.ttlMs, t.pollIntervalMs, iso(t.nowMs), t.nowMs, t.worker, t.leaseUntilMs],
      );
    },
    async get(id, owner) {
      const { rows } = await pool.query<McpTaskRow>('SELECT * FROM mcp_tasks WHERE id = $1 AND owner = $2', [id, owner]); // prettier-ignore
      return rows[0];
    },
    async page(owner, before, limit) {
      const { rows } = await pool.query<McpTaskRow>(
        'SELECT * FROM mcp_tasks WHERE owner = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3',
        [owner, before, limit],
      );
      return rows;
    },
    linkRun: async (id, runId, nowMs) =>
      changed(
        await pool.query(
          `UPDATE mcp_tasks SET run_id = $2, updated_ms = $3, last_updated_at = $4 WHERE id = $1 AND status IN ${OPEN}`,
          [id, runId, nowMs, iso(nowMs)],
        ),
      ),
    note: async (id, message, nowMs) =>
      changed(
        await pool.query(
          `UPDATE mcp_tasks SET status_message = $2, updated_ms = $3, last_updated_at = $4
           WHERE id = $1 AND status IN ${OPEN}`,
          [id, message, nowMs, iso(nowMs)],
        ),
      ),
    end: async (id, end) =>
      changed(
        await pool.query(
          `UPDATE mcp_tasks SET status = $2, status_message = $3, result = $4, updated_ms = $5,
             last_updated_at = $6, expires_ms = $5::bigint + ttl_ms, lease_until_ms = NULL
           WHERE id = $1 AND status IN ${OPEN}`,
          [id, end.status, end.statusMessage, end.result, end.nowMs, iso(end.nowMs)],
        ),
      ),
    renewLease: (id, worker, untilMs) => leases.renew(id, worker, untilMs),
    async statusOf(id) {
      const { rows } = await pool.query<{ status: McpTaskStatus }>('SELECT status FROM mcp_tasks WHERE id = $1', [id]);
      return rows[0]?.status;
    },
    async countOpen(owner, nowMs) {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT COUNT(*)::int AS n FROM mcp_tasks
         WHERE owner = $1 AND status IN ${OPEN} AND (lease_until_ms IS NULL OR lease_until_ms >= $2)`,
        [owner, nowMs],
      );
      return rows[0]!.n;
    },
    async deleteExpired(nowMs, graceMs) {
      const r = await pool.query(
        `DELETE FROM mcp_tasks WHERE expires_ms < $1 AND (status NOT IN ${OPEN} OR expires_ms + $2 < $1)`,
        [nowMs, graceMs],
      );
      return r.rowCount ?? 0;
    },
  };
}
