/**
 * The contract of the MCP answer snapshots store: the whole answer of a call that did not fit its token
 * budget, kept for its owner until it expires (sqlite/mcp-snapshots.ts, pg/mcp.ts).
 */

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
