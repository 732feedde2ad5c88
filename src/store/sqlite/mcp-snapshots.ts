/**
 * Snapshots of MCP answers that did not fit their token budget (migration 11): the whole answer, kept
 * for its owner until it expires, so that a cursor continues exactly that answer on any instance.
 */
import type { Db } from './database.js';
import { teamOfKey } from '../owner-team.js';

export interface McpSnapshot {
  id: string;
  /** The API key id that made the call, or `local` over stdio. */
  owner: string;
  tool: string;
  /** A hash of the call's arguments (without cursor and maxTokens): a cursor continues only that call. */
  argsHash: string;
  /** The answer, as JSON. */
  body: string;
  createdMs: number;
  expiresMs: number;
}

/** The store of answer snapshots. */
export interface McpSnapshotsRepo {
  insert(snapshot: McpSnapshot): Promise<void>;
  /** The owner's snapshot with that id, unless expired at `nowMs`. */
  get(id: string, owner: string, nowMs: number): Promise<McpSnapshot | undefined>;
  /** Deletes the snapshots expired at `nowMs`; returns how many. */
  deleteExpired(nowMs: number): Promise<number>;
}

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
