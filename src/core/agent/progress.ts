/**
 * An agent run's saved progress (`agent_runs.progress`): how often it was started, whether the MCP
 * client's model ran it, and the research state a resumed run continues from. docs/agent.md.
 */
import type { ResearchState } from './research.js';

/** Starts of one run (the first and its resumptions) before an interrupted run fails instead of resuming. */
export const MAX_RUN_STARTS = 3;

/** What `agent_runs.progress` holds (JSON). */
export interface Progress {
  starts: number;
  /** The run used the MCP client's own model (sampling), which only the process it was created in reaches. */
  clientModel: boolean;
  /** The research state after the last completed step; null before the first. */
  research: ResearchState | null;
}

/** A run's saved progress, or null for a run never started. */
export const parseProgress = (stored: string | null): Progress | null =>
  stored ? (JSON.parse(stored) as Progress) : null;

/** The progress of a run starting (again) now: one more start, the research state kept. */
export const nextStart = (saved: Progress | null, clientModel: boolean): Progress => ({
  starts: (saved?.starts ?? 0) + 1,
  clientModel,
  research: saved?.research ?? null,
});

/** Why an interrupted run cannot be resumed, or null when it can. */
export function unresumable(progress: Progress | null): string | null {
  if (progress?.clientModel)
    return 'it used the MCP client’s model, which only the process it was created in could reach';
  if ((progress?.starts ?? 0) >= MAX_RUN_STARTS) return `it was started ${MAX_RUN_STARTS} times without finishing`;
  return null;
}
