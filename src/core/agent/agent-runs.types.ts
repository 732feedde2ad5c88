/**
 * The domain types of agent runs: the request a run is created with (the doors map their wire requests
 * onto it), the run and event objects the service answers, and the service's interface.
 */
import type { Logger } from '../../lib/logger.js';
import type { ChatModel } from '../../providers/model/types.js';
import type { AgentRunStatus, AgentRunsRepo } from '../../store/contracts/agent-runs.js';
import type { Accounts } from '../accounts/accounts.service.js';
import type { Caller } from '../context.js';
import type { Effort, ResearchDeps } from './research.js';

/** One stored event, as the events list and the SSE frames carry it. */
export interface AgentEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
  createdAt: string;
}

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

/** The agent run object (docs/agent.md); a type, not an interface, so it reads as a plain record. */
export type AgentRun = {
  id: string;
  object: 'agent_run';
  status: AgentRunStatus;
  stopReason: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  updatedAt: string;
  request: Record<string, unknown>;
  output: Record<string, unknown> | null;
  costDollars: Record<string, unknown>;
  usage: { agentComputeUnits: number; [k: string]: unknown };
  error: { code: string; message: string } | null;
};

/** A deleted run, as DELETE answers it. */
export interface DeletedAgentRun {
  id: string;
  object: 'agent_run';
  deleted: true;
}

/** One page of a list, newest first for runs, in order for events. */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** How to read a run's events: after which one, and whether to wait for new ones. */
export interface StreamOptions {
  afterId: number;
  /** Keep following new events until the terminal one (else end with the stored ones). */
  follow: boolean;
  signal: AbortSignal;
}

/** The background side: claims queued runs, leases them, resumes runs of stopped processes. */
export interface AgentRunsEngine {
  /** Starts the periodic wake-up (recover, erase, pump). */
  start(): void;
  /** Starts no more runs; this process's runs go back to the queue (or fail, if they cannot resume). */
  stop(): Promise<void>;
  /** Starts what can start, and queues again (or fails) runs abandoned by a stopped process. */
  tick(): Promise<void>;
  /** Resolves when this process runs nothing. */
  drain(): Promise<void>;
}

/** Agent runs for the doors. Every method of a run throws NOT_FOUND for another key's run. */
export interface AgentRunsService {
  /**
   * Creates a queued run (and starts it when there is room). `clientModel`: the calling MCP client's
   * model (sampling), used when the operator configured none. Throws INVALID_REQUEST_BODY, NOT_FOUND
   * (previousRunId), FEATURE_DISABLED (no model for the effort or schema).
   */
  create(input: AgentRunRequest, caller: Caller | null, clientModel?: ChatModel): Promise<AgentRun>;
  get(id: string, caller: Caller | null): Promise<AgentRun>;
  list(caller: Caller | null, query: { cursor?: string; limit: number }): Promise<Page<AgentRun>>;
  /** Cancels an open run (its work stops; the run keeps what it had); a finished run is returned as is. */
  cancel(id: string, caller: Caller | null): Promise<AgentRun>;
  /** Deletes a run and its events (cancelling it first if it is still open). */
  remove(id: string, caller: Caller | null): Promise<DeletedAgentRun>;
  /** Stored events, a page at a time. Throws FEATURE_DISABLED for a zero-retention run. */
  events(id: string, caller: Caller | null, query: { cursor?: string; limit: number }): Promise<Page<AgentEvent>>;
  /**
   * The run's events after `afterId`: the stored ones, then (with `follow`) new ones as they are
   * stored, until the terminal event. A stream that ends does not cancel the run.
   */
  stream(id: string, caller: Caller | null, options: StreamOptions): AsyncIterable<AgentEvent>;
  engine: AgentRunsEngine;
}

/** What the agent runs service is built from. */
export interface AgentRunsDeps {
  repo: AgentRunsRepo;
  research: ResearchDeps;
  accounts: Pick<Accounts, 'meter'>;
  /** The caller a key id stands for now (its rate sets how many of its runs run at once). */
  callerOf: (keyId: string) => Caller | null | Promise<Caller | null>;
  now: () => number;
  logger: Logger;
  /** Whether the operator configured a language model (efforts above `low` need one). */
  hasModel: boolean;
  /**
   * Runs of one key at once when the key has no rate of its own (the spec's two at its default rate);
   * a key with its own rate runs a fifth of it. 0: no limit.
   */
  defaultRuns: number;
  /** Runs executing at once in this process, whatever the keys. */
  processConcurrency: number;
  /** How long a claimed run is held without renewal (renewed every third of it; TRAWL_LEASE_MS). */
  leaseMs: number;
  /** How often the queue is looked at for runs another process queued or gave up (TRAWL_POLL_MS). */
  pollMs: number;
  /** The operator's ceiling on `budget.maxCostDollars` (TRAWL_AGENT_MAX_COST). */
  maxBudgetDollars: number;
  /** Names of the configured web-search providers (each a data source, beside `trawl`, the local index). */
  providerNames: readonly string[];
}
