/**
 * Snapshots of MCP answers that did not fit their token budget (migration 11): the whole answer, kept
 * for its owner until it expires, so that a cursor continues exactly that answer on any instance.
 */
import type { Db } from './database.js';
import { teamOfKey } from '../owner-team.js';
import type { McpSnapshot, McpSnapshotsRepo } from '../contracts/mcp-snapshots.js';

/** The SQLite implementation, on prepared statements. */
export function createMcpSnapshotsRepo(db: Db): McpSnapshotsRepo {
  const s = {
    insert: db.prepare(
      `INSERT INTO mcp_snapshots (id, owner, team_id, tool, args_hash, body, created_ms, expires_ms)
       VALUES (@id, @owner, ${teamOfKey('@owner')}, @tool, @argsHash, @body, @createdMs, @expiresMs)`,
    ),
    get: db.prepare(
      `SELECT id, owner, tool, args_hash AS argsHash, body, created_ms AS createdMs, expires_ms AS expiresMs
       FROM mcp_snapshots WHERE id = ? AND owner = ? AND expires_ms > ?`,
    ),
    deleteExpired: db.prepare('DELETE FROM mcp_snapshots WHERE expires_ms <= ?'),
  };
  return {
    insert: async (snapshot) => void s.insert.run(snapshot),
    get: async (id, owner, nowMs) => s.get.get(id, owner, nowMs) as McpSnapshot | undefined,
    deleteExpired: async (nowMs) => s.deleteExpired.run(nowMs).changes,
  };
}
