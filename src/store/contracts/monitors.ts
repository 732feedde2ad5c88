/**
 * The rows of monitors, runs and the webhook outbox, and `MonitorsRepo`, the contract every store of
 * them keeps (SQLite: sqlite/monitors.ts; PostgreSQL: pg/monitors.ts). Every method returns a Promise;
 * each unit that must be atomic is one method, and the decisions inside it are pure callbacks of the
 * rows it read.
 */
import type { ClaimRule, ReleaseRule } from './leases.js';

/** The start of a run (through the leases of LEASED.monitorRuns): pending → running, at `@at`. */
export const MONITOR_RUN_START: ClaimRule = {
  from: "status = 'pending'",
  set: "status = 'running', started_at = @at, updated_at = @at",
};

/**
 * A run handed back by its stopping process (pending or running → pending, owner and lease cleared), for
 * another process, or the restarted one, to take over at once rather than when its lease lapses.
 */
export const MONITOR_RUN_HAND_BACK: ReleaseRule = {
  from: "status IN ('pending', 'running')",
  set: "status = 'pending', started_at = NULL, updated_at = @at",
};

/** The take-over of a handed-back run: pending, no owner, no lease. */
export const MONITOR_RUN_TAKE_OVER: ClaimRule = { from: "status = 'pending' AND owner IS NULL", free: true };

/** A stored monitor. */
export interface MonitorRow {
  seq: number;
  id: string;
  name: string | null;
  status: 'active' | 'paused' | 'disabled';
  search: string;
  period: string | null;
  output_schema: string | null;
  metadata: string | null;
  webhook_url: string;
  webhook_events: string | null;
  secret: string;
  /** The API key the monitor runs as (null: made by the local process or the CLI). */
  key_id: string | null;
  /** The owning team (src/core/access/access.ts): every key of it reaches the monitor. */
  team_id: string;
  anchor_ms: number;
  next_run_ms: number | null;
  key_failures: number;
  created_at: string;
  updated_at: string;
}

/** A run's status. */
export type RunStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

/** A stored run. */
export interface RunRow {
  seq: number;
  id: string;
  monitor_id: string;
  status: RunStatus;
  /** `schedule` or `trigger`. */
  origin: string;
  output: string | null;
  fail_reason: string | null;
  /** Why it failed, in words, for the operator's log and CLI (not part of the run object). */
  fail_detail: string | null;
  started_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
  cancelled_at: string | null;
  duration_ms: number | null;
  owner: string | null;
  lease_until_ms: number | null;
  created_at: string;
  updated_at: string;
}

/** A delivery's status. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A stored webhook delivery. */
export interface DeliveryRow {
  seq: number;
  event_id: string;
  monitor_id: string;
  event_type: string;
  url: string;
  secret: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_ms: number | null;
  lease_until_ms: number | null;
  give_up_ms: number;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  /** The monitor's team, kept with the delivery since a `monitor.deleted` event outlives its monitor. */
  team_id: string;
}

/** What choosing a due delivery needs: the whole row is read only once it is claimed. */
export type DueDelivery = Pick<DeliveryRow, 'seq' | 'url' | 'next_attempt_ms'>;

/** One recorded attempt at a delivery. */
export interface AttemptRow {
  delivery_seq: number;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** A monitor to insert (the store sets `seq` and `key_failures`). */
export type NewMonitor = Omit<MonitorRow, 'seq' | 'key_failures'>;
/** A run to insert. */
export type NewRun = Pick<
  RunRow,
  'id' | 'monitor_id' | 'status' | 'origin' | 'owner' | 'lease_until_ms' | 'created_at'
>;
/** A webhook delivery to insert (an event written to the outbox). */
export type NewDelivery = Pick<
  DeliveryRow,
  | 'event_id'
  | 'monitor_id'
  | 'event_type'
  | 'url'
  | 'secret'
  | 'body'
  | 'next_attempt_ms'
  | 'give_up_ms'
  | 'created_at'
  | 'team_id'
>;
/** A delivery's state after an attempt. */
export type DeliveryState = Pick<
  DeliveryRow,
  'seq' | 'status' | 'attempts' | 'next_attempt_ms' | 'last_error' | 'delivered_at'
>;

/** How a run ended: the columns its terminal status sets. */
export type RunEnd = Pick<
  RunRow,
  'status' | 'output' | 'fail_reason' | 'fail_detail' | 'completed_at' | 'failed_at' | 'cancelled_at' | 'duration_ms'
>;

/** A monitor's new row and the events its change writes, decided from the row read in the transaction. */
export interface MonitorChange {
  row: MonitorRow;
  events: NewDelivery[];
}

/** A run to create and the events that announce it (made from the stored run). */
export interface RunPlan {
  run: NewRun;
  events: (run: RunRow) => NewDelivery[];
}

/** What claiming the due monitors does to each one, decided by the scheduler. */
export interface DuePlan {
  /** The next slot of a due monitor, or null to leave it. */
  nextRunMs: (monitor: MonitorRow) => number | null;
  /** The run of a monitor just moved to its next slot. */
  run: (claimed: MonitorRow) => RunPlan;
  /** How an open run of a claimed monitor ends (superseded by the new one), and when. */
  cancel: { end: RunEnd; at: string };
}

/** What ending a run changes in its monitor, and the events it writes (none when `events` is empty). */
export interface RunSettlement {
  monitor?: MonitorRow;
  events: NewDelivery[];
}

/** The due monitors a claim moved on: the runs created, the open runs cancelled, whether the batch was full. */
export interface DueClaim {
  runs: RunRow[];
  cancelled: string[];
  full: boolean;
}

/** The store of monitors, their runs and the webhook outbox. */
export interface MonitorsRepo {
  /** Inserts a monitor and the events `events` makes of it, at once; the stored row. */
  createMonitor(row: NewMonitor, events: (stored: MonitorRow) => NewDelivery[]): Promise<MonitorRow>;
  monitor(id: string): Promise<MonitorRow | undefined>;
  /** Monitors with `seq < before`, newest first; of one team when `teamId` is given. */
  monitors(options: { status?: string; teamId?: string; before: number; limit: number }): Promise<MonitorRow[]>;
  /** Reads, changes (`change` may throw to abort) and saves one monitor with its events; undefined when unknown. */
  updateMonitor(id: string, change: (old: MonitorRow) => MonitorChange): Promise<MonitorRow | undefined>;
  /** Removes a monitor and its runs, writing its events; the row and its open runs, undefined when unknown. */
  deleteMonitor(
    id: string,
    events: (row: MonitorRow) => NewDelivery[],
  ): Promise<{ monitor: MonitorRow; openRuns: RunRow[] } | undefined>;
  /**
   * Claims up to `limit` monitors due at `nowMs`: each moves to its next slot with a conditional UPDATE
   * (another process or a change may get there first), its open runs are cancelled and a run created.
   */
  claimDue(nowMs: number, limit: number, plan: DuePlan): Promise<DueClaim>;
  earliestRun(): Promise<number | undefined>;
  countScheduled(): Promise<number>;

  /** Creates a run of the monitor (`plan` may throw to refuse); undefined when the monitor is unknown. */
  createRun(monitorId: string, plan: (monitor: MonitorRow) => RunPlan): Promise<RunRow | undefined>;
  /** Inserts a run as it is (recovery tests; the engine uses `createRun`). */
  insertRun(row: NewRun): Promise<void>;
  run(monitorId: string, runId: string): Promise<RunRow | undefined>;
  runById(runId: string): Promise<RunRow | undefined>;
  runs(monitorId: string, options: { before: number; limit: number }): Promise<RunRow[]>;
  openRuns(monitorId: string): Promise<RunRow[]>;
  /** pending → running; false when the run is no longer pending (cancelled meanwhile). */
  startRun(id: string, at: string, leaseUntilMs: number): Promise<boolean>;
  /**
   * Ends an open run, applies `settle` to its monitor and writes its events, then forgets the monitor's
   * ended runs beyond the newest `keepRuns`; false when the run had already ended.
   */
  finishRun(
    runId: string,
    end: RunEnd,
    at: string,
    settle: (monitor: MonitorRow, run: RunRow) => RunSettlement,
    keepRuns: number,
  ): Promise<boolean>;
  /** Extends an open run's lease; false when it has ended (cancelled by another process). */
  renewLease(id: string, untilMs: number): Promise<boolean>;
  /** Open runs whose process stopped answering for them. */
  lapsedRuns(nowMs: number): Promise<RunRow[]>;
  /** Hands run `id` back (MONITOR_RUN_HAND_BACK) as its `owner` stops; false when it ended or is another's. */
  handBackRun(id: string, owner: string, nowMs: number, at: string): Promise<boolean>;
  /** Runs handed back and not taken over yet, oldest first (at most 100). */
  handedBackRuns(): Promise<RunRow[]>;
  /** Takes a handed-back run for `owner` until `leaseUntilMs`; false when another process took it first. */
  takeOverRun(id: string, owner: string, nowMs: number, leaseUntilMs: number): Promise<boolean>;
  /** The `output` JSON of the monitor's last `n` completed runs, newest first. */
  recentOutputs(monitorId: string, n: number): Promise<string[]>;
  /** Forgets the monitor's ended runs older than its newest `keep` runs. */
  pruneRuns(monitorId: string, keep: number): Promise<number>;
  lastCompletedStart(monitorId: string): Promise<string | undefined>;

  /** Pending deliveries due at `nowMs` and not leased, by due time then seq, after `after` (keyset paging). */
  dueDeliveries(nowMs: number, limit: number, after?: { ms: number; seq: number }): Promise<DueDelivery[]>;
  /** Leases a due delivery until `leaseUntilMs`: the row, or undefined when another process holds it. */
  claimDelivery(seq: number, nowMs: number, leaseUntilMs: number): Promise<DeliveryRow | undefined>;
  /** Records an attempt and the delivery's new state, at once. */
  recordAttempt(attempt: AttemptRow, state: DeliveryState): Promise<void>;
  earliestDelivery(): Promise<number | undefined>;
  /** A monitor's deliveries with `seq < before`, newest first; of one team when `teamId` is given. */
  deliveries(monitorId: string, options: { teamId?: string; before: number; limit: number }): Promise<DeliveryRow[]>;
  attempts(deliverySeq: number): Promise<AttemptRow[]>;
  /** The delivery of event `eventId` of monitor `monitorId`, if any. */
  delivery(monitorId: string, eventId: string): Promise<DeliveryRow | undefined>;
  /**
   * Queues a delivery that is not delivered for an attempt at `nowMs`: a failed (given-up) one pending
   * again, a pending one due now (an attempt in flight keeps its lease). The row after, or undefined when
   * it is delivered or does not exist.
   */
  retryDelivery(monitorId: string, eventId: string, nowMs: number): Promise<DeliveryRow | undefined>;
}
