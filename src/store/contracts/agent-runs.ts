/**
 * The contract of the agent runs store: runs, their events, and the repository both backends keep
 * (sqlite/agent-runs.ts, pg/agent-runs.ts). A run ends once, whoever ends it; an event's number is
 * assigned where it is stored.
 */
import type { ClaimRule, LeaseParams, ReleaseRule } from './leases.js';

export type AgentRunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface AgentRunRow {
  seq: number;
  id: string;
  /** The key that made the run and alone reaches it; '' for the local process. */
  key_id: string;
  /** The team of that key (src/core/access/access.ts). */
  team_id: string;
  status: AgentRunStatus;
  zero_retention: number;
  request: string;
  output: string | null;
  cost: string | null;
  usage: string | null;
  error: string | null;
  stop_reason: string | null;
  owner: string | null;
  lease_until_ms: number | null;
  /** The research state at the last completed step (JSON), null before the run started. */
  progress: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
}

export interface AgentEventRow {
  run_id: string;
  seq: number;
  event: string;
  data: string;
  created_at: string;
}

/** How a run ended: the columns its terminal status sets. */
export type AgentRunEnd = Pick<
  AgentRunRow,
  'status' | 'output' | 'cost' | 'usage' | 'error' | 'stop_reason' | 'completed_at'
>;

/** A new run, queued. */
export type NewAgentRun = Pick<
  AgentRunRow,
  'id' | 'key_id' | 'team_id' | 'request' | 'owner' | 'lease_until_ms' | 'created_at'
> & {
  zero_retention?: number;
};

/** An event to store: its name, its data as JSON, and when. */
export interface NewAgentEvent {
  event: string;
  data: string;
  at: string;
}

/**
 * The store of agent runs and their events. Every method is atomic: a unit of work that must not be
 * split (a claim, an end with its terminal event) is one method.
 */
export interface AgentRunsRepo {
  /** Inserts a queued run, with its first event when given. */
  insert(row: NewAgentRun, first?: NewAgentEvent): Promise<void>;
  get(id: string): Promise<AgentRunRow | undefined>;
  /** A run's status alone (the engine looks at its running runs every second). */
  statusOf(id: string): Promise<AgentRunStatus | undefined>;
  /** A key's runs with `seq < before`, newest first. */
  page(keyId: string, before: number, limit: number): Promise<AgentRunRow[]>;
  /**
   * queued → running for `owner`, when the run's key runs fewer than `limit` runs; false when it is no
   * longer queued (cancelled, or taken by another process) or the key has no room.
   */
  claim(id: string, limit: number, at: string, owner: string, leaseUntilMs: number): Promise<boolean>;
  /**
   * Records a (re)start of a run `owner` runs: its progress, and its `started` event when given (the
   * first start); false when it no longer runs it (the run ended meanwhile).
   */
  markStarted(id: string, owner: string, progress: string, started: NewAgentEvent | null): Promise<boolean>;
  /**
   * Ends an open run, stores its terminal event (made from the ended row) and forgets a zero-retention
   * run's request; false when it had ended already (the first end wins).
   */
  finish(id: string, end: AgentRunEnd, event: (ended: AgentRunRow) => NewAgentEvent): Promise<boolean>;
  /** Records a running run's research state; false when `owner` no longer runs it. */
  saveProgress(id: string, owner: string, progress: string): Promise<boolean>;
  /**
   * running → queued, to be resumed from its progress by whichever process claims it: a run of `owner`
   * (shutting down), or one whose lease lapsed before `nowMs`. False when it is not such a run.
   */
  requeue(id: string, owner: string | null, nowMs: number, at: string): Promise<boolean>;
  /** Extends an open run's lease; false once it ended. */
  renewLease(id: string, untilMs: number): Promise<boolean>;
  /** Queued runs, oldest first. */
  queued(): Promise<AgentRunRow[]>;
  /** Open runs whose lease lapsed before `nowMs` (their process died). */
  lapsed(nowMs: number): Promise<AgentRunRow[]>;
  /** Deletes a run and its events. */
  delete(id: string): Promise<void>;
  /** Appends an event; returns its sequence number (assigned in the transaction that stores it). */
  appendEvent(runId: string, event: string, data: string, at: string): Promise<number>;
  /** A run's events with `seq > afterSeq`, in order. */
  events(runId: string, afterSeq: number, limit: number): Promise<AgentEventRow[]>;
  /** Zero retention: forgets outputs of runs finished before `beforeIso`, and events of runs finished before `eventsBeforeIso`. */
  eraseRetained(beforeIso: string, eventsBeforeIso: string): Promise<void>;
}

/**
 * The claim of an agent run (through the leases of LEASED.agentRuns): queued → running within its key's
 * share of runs at once (`@limit`), first start kept (`@at`).
 */
export const AGENT_RUN_CLAIM: ClaimRule = {
  from: "status = 'queued'",
  set: "status = 'running', started_at = COALESCE(started_at, @at), updated_at = @at",
  fairness: "(SELECT COUNT(*) FROM agent_runs r WHERE r.key_id = agent_runs.key_id AND r.status = 'running') < @limit",
};

/** The parameters of AGENT_RUN_CLAIM: when, and the key's share (no limit: as many as SQL counts). */
export const agentRunClaim = (at: string, limit: number): LeaseParams => ({
  at,
  limit: Math.min(limit, Number.MAX_SAFE_INTEGER),
});

/** A run given back (its holder stopping, or its lease lapsed): running → queued, to be resumed (`@at`). */
export const AGENT_RUN_REQUEUE: ReleaseRule = {
  from: "status = 'running'",
  set: "status = 'queued', updated_at = @at",
};
