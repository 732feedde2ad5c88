/**
 * Snapshots of answers cut to a token budget (the MCP door's pager continues them by cursor): kept for
 * their owner in the store until they expire, or in this process's memory only for zero-retention keys.
 */
import { createLru } from '../../lib/lru.js';
import type { McpSnapshot, McpSnapshotsRepo } from '../../store/contracts/mcp-snapshots.js';

/** One kept answer: its id, owner (API key id, or `local`), tool, arguments' hash, body and times. */
export type AnswerSnapshot = McpSnapshot;

/** How long a cut answer can be continued. */
export const SNAPSHOT_TTL_MS = 30 * 60_000;

export interface AnswerSnapshots {
  /** The time snapshots are made and expire by (the app's clock, in ms). */
  now(): number;
  /** Keeps `snapshot` (dropping the expired ones): in memory only when `memoryOnly`. */
  save(snapshot: AnswerSnapshot, memoryOnly: boolean): Promise<void>;
  /** The owner's snapshot with that id, unless it expired or is unknown. */
  load(id: string, owner: string, memoryOnly: boolean): Promise<AnswerSnapshot | undefined>;
}

// zero-retention snapshots: this process only, never written down
const memory = createLru<AnswerSnapshot>(200, SNAPSHOT_TTL_MS);

/** The snapshots over `repo` (the durable ones), with the clock's time. */
export function createAnswerSnapshots(repo: McpSnapshotsRepo, now: () => number = Date.now): AnswerSnapshots {
  return {
    now,
    async save(snapshot, memoryOnly) {
      if (memoryOnly) return memory.set(`${snapshot.owner}:${snapshot.id}`, snapshot);
      await repo.deleteExpired(now());
      await repo.insert(snapshot);
    },
    async load(id, owner, memoryOnly) {
      return memoryOnly ? memory.get(`${owner}:${id}`) : repo.get(id, owner, now());
    },
  };
}
