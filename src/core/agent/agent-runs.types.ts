/**
 * The domain types of agent runs: the request a run is created with (the doors map their wire requests
 * onto it), the run and event objects the service answers, and the service's interface.
 */
import type { Effort } from './research.js';

export type { AgentEvent } from './objects.js';

/** What a run is asked to do, as it is stored and echoed back as the run's `request`. */
export interface AgentRunRequest {
  query: string;
  effort: Effort;
  systemPrompt?: string;
  /** JSON Schema (an object with properties) for `output.structured`. */
  outputSchema?: Record<string, unknown>;
  /** The caller's ceiling for the metered efforts (`auto`, `max`). */
  budget?: { maxCostDollars: number };
  /** Rows to enrich or expand, and entries not to surface. */
  input?: { data?: Record<string, unknown>[]; exclusion?: Record<string, unknown>[] };
  /** The sources the run may search, by provider name (`trawl` is the local index). */
  dataSources?: { provider: string; [key: string]: unknown }[];
  /** A completed run of the same key to continue from. */
  previousRunId?: string;
  metadata?: Record<string, unknown>;
}
