/**
 * Monitors, their runs and the webhook outbox (deliveries and their attempts). Rows are stored as the
 * service reads them; JSON columns hold JSON text. Every state change is a conditional UPDATE, so two
 * processes on one data directory cannot both claim a slot, a run or a delivery.
 */
import type { Db } from './database.js';

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
  key_id: string | null;
  anchor_ms: number;
  next_run_ms: number | null;
  key_failures: number;
  created_at: string;
  updated_at: string;
}

export type RunStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

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

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

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
}

/** What choosing a due delivery needs: the whole row is read only once it is claimed. */
export type DueDelivery = Pick<DeliveryRow, 'seq' | 'url' | 'next_attempt_ms'>;

export interface AttemptRow {
  delivery_seq: number;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

type NewMonitor = Omit<MonitorRow, 'seq' | 'key_failures'>;
type NewRun = Pick<RunRow, 'id' | 'monitor_id' | 'status' | 'origin' | 'owner' | 'lease_until_ms' | 'created_at'>;
type NewDelivery = Pick<
  DeliveryRow,
  'event_id' | 'monitor_id' | 'event_type' | 'url' | 'secret' | 'body' | 'next_attempt_ms' | 'give_up_ms' | 'created_at'
>;
/** How a run ended: the columns its terminal status sets. */
export type RunEnd = Pick<
  RunRow,
  'status' | 'output' | 'fail_reason' | 'fail_detail' | 'completed_at' | 'failed_at' | 'cancelled_at' | 'duration_ms'
>;

const OPEN = "('pending', 'running')";

export function createMonitorsRepo(db: Db) {
  const s = {
    insertMonitor: db.prepare(
      `INSERT INTO monitors (id, name, status, search, period, output_schema, metadata, webhook_url, webhook_events,
         secret, key_id, anchor_ms, next_run_ms, created_at, updated_at)
       VALUES (@id, @name, @status, @search, @period, @output_schema, @metadata, @webhook_url, @webhook_events,
         @secret, @key_id, @anchor_ms, @next_run_ms, @created_at, @updated_at)`,
    ),
    monitor: db.prepare('SELECT * FROM monitors WHERE id = ?'),
    page: db.prepare(
      `SELECT * FROM monitors WHERE (@status IS NULL OR status = @status) AND seq < @before
       ORDER BY seq DESC LIMIT @limit`,
    ),
    saveMonitor: db.prepare(
      `UPDATE monitors SET name = @name, status = @status, search = @search, period = @period,
         output_schema = @output_schema, metadata = @metadata, webhook_url = @webhook_url,
         webhook_events = @webhook_events, next_run_ms = @next_run_ms, key_failures = @key_failures,
         updated_at = @updated_at
       WHERE id = @id`,
    ),
    deleteMonitor: db.prepare('DELETE FROM monitors WHERE id = ?'),
    deleteRuns: db.prepare('DELETE FROM monitor_runs WHERE monitor_id = ?'),
    due: db.prepare(`SELECT * FROM monitors WHERE next_run_ms <= ? AND status = 'active' ORDER BY next_run_ms LIMIT ?`),
    claimSlot: db.prepare(
      `UPDATE monitors SET next_run_ms = @next WHERE id = @id AND next_run_ms = @due AND status = 'active'`,
    ),
    earliest: db.prepare("SELECT MIN(next_run_ms) AS at FROM monitors WHERE status = 'active'"),
    countScheduled: db.prepare(
      "SELECT COUNT(*) AS n FROM monitors WHERE status = 'active' AND next_run_ms IS NOT NULL",
    ),

    insertRun: db.prepare(
      `INSERT INTO monitor_runs (id, monitor_id, status, origin, owner, lease_until_ms, created_at, updated_at)
       VALUES (@id, @monitor_id, @status, @origin, @owner, @lease_until_ms, @created_at, @created_at)`,
    ),
    run: db.prepare('SELECT * FROM monitor_runs WHERE monitor_id = ? AND id = ?'),
    runById: db.prepare('SELECT * FROM monitor_runs WHERE id = ?'),
    runsPage: db.prepare(
      'SELECT * FROM monitor_runs WHERE monitor_id = @monitor AND seq < @before ORDER BY seq DESC LIMIT @limit',
    ),
    openRuns: db.prepare(`SELECT * FROM monitor_runs WHERE monitor_id = ? AND status IN ${OPEN} ORDER BY seq`),
    start: db.prepare(
      `UPDATE monitor_runs SET status = 'running', started_at = @at, updated_at = @at, lease_until_ms = @lease
       WHERE id = @id AND status = 'pending'`,
    ),
    end: db.prepare(
      `UPDATE monitor_runs SET status = @status, output = @output, fail_reason = @fail_reason,
         fail_detail = @fail_detail, completed_at = @completed_at, failed_at = @failed_at,
         cancelled_at = @cancelled_at, duration_ms = @duration_ms, updated_at = @updated_at, lease_until_ms = NULL
       WHERE id = @id AND status IN ${OPEN}`,
    ),
    renew: db.prepare(`UPDATE monitor_runs SET lease_until_ms = ? WHERE id = ? AND status IN ${OPEN}`),
    lapsed: db.prepare(`SELECT * FROM monitor_runs WHERE status IN ${OPEN} AND lease_until_ms < ? LIMIT 500`),
    recentOutputs: db.prepare(
      `SELECT output FROM monitor_runs WHERE monitor_id = ? AND status = 'completed' ORDER BY seq DESC LIMIT ?`,
    ),
    pruneRuns: db.prepare(
      `DELETE FROM monitor_runs WHERE monitor_id = @monitor AND status NOT IN ${OPEN} AND seq < (
         SELECT seq FROM monitor_runs WHERE monitor_id = @monitor ORDER BY seq DESC LIMIT 1 OFFSET @keep)`,
    ),
    lastStart: db.prepare(
      `SELECT started_at FROM monitor_runs WHERE monitor_id = ? AND status = 'completed' ORDER BY seq DESC LIMIT 1`,
    ),

    insertDelivery: db.prepare(
      `INSERT INTO webhook_deliveries (event_id, monitor_id, event_type, url, secret, body, status, next_attempt_ms,
         give_up_ms, created_at)
       VALUES (@event_id, @monitor_id, @event_type, @url, @secret, @body, 'pending', @next_attempt_ms, @give_up_ms,
         @created_at)`,
    ),
    dueDeliveries: db.prepare(
      `SELECT seq, url, next_attempt_ms FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_ms <= @now
         AND (lease_until_ms IS NULL OR lease_until_ms < @now)
         AND (next_attempt_ms > @after_ms OR (next_attempt_ms = @after_ms AND seq > @after_seq))
       ORDER BY next_attempt_ms, seq LIMIT @limit`,
    ),
    claimDelivery: db.prepare(
      `UPDATE webhook_deliveries SET lease_until_ms = @lease
       WHERE seq = @seq AND status = 'pending' AND next_attempt_ms <= @now
         AND (lease_until_ms IS NULL OR lease_until_ms < @now)
       RETURNING *`,
    ),
    settle: db.prepare(
      `UPDATE webhook_deliveries SET status = @status, attempts = @attempts, next_attempt_ms = @next_attempt_ms,
         lease_until_ms = NULL, last_error = @last_error, delivered_at = @delivered_at
       WHERE seq = @seq`,
    ),
    insertAttempt: db.prepare(
      `INSERT INTO webhook_attempts (delivery_seq, attempt, at, status, error, duration_ms)
       VALUES (@delivery_seq, @attempt, @at, @status, @error, @duration_ms)`,
    ),
    // a leased delivery is not due before its lease lapses (it is in flight, here or in another process)
    earliestDelivery: db.prepare(
      `SELECT MIN(MAX(next_attempt_ms, COALESCE(lease_until_ms + 1, 0))) AS at FROM webhook_deliveries
       WHERE status = 'pending'`,
    ),
    deliveriesOf: db.prepare(
      'SELECT * FROM webhook_deliveries WHERE monitor_id = @monitor AND seq < @before ORDER BY seq DESC LIMIT @limit',
    ),
    attemptsOf: db.prepare('SELECT * FROM webhook_attempts WHERE delivery_seq = ? ORDER BY attempt'),
    pruneAttempts: db.prepare(
      `DELETE FROM webhook_attempts WHERE delivery_seq IN (SELECT seq FROM webhook_deliveries
         WHERE status <> 'pending' AND created_at < ?)`,
    ),
    pruneDeliveries: db.prepare("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ?"),
  };

  return {
    transaction<T>(work: () => T): T {
      return db.transaction(work).immediate();
    },

    insertMonitor(row: NewMonitor): void {
      s.insertMonitor.run(row);
    },
    monitor(id: string): MonitorRow | undefined {
      return s.monitor.get(id) as MonitorRow | undefined;
    },
    /** Monitors with `seq < before`, newest first. */
    monitors(options: { status?: string; before: number; limit: number }): MonitorRow[] {
      return s.page.all({
        status: options.status ?? null,
        before: options.before,
        limit: options.limit,
      }) as MonitorRow[];
    },
    saveMonitor(row: MonitorRow): void {
      s.saveMonitor.run(row);
    },
    /** Removes the monitor and its runs (its outbox entries stay until delivered). */
    deleteMonitor(id: string): void {
      s.deleteRuns.run(id);
      s.deleteMonitor.run(id);
    },
    dueMonitors(nowMs: number, limit: number): MonitorRow[] {
      return s.due.all(nowMs, limit) as MonitorRow[];
    },
    /** Moves a due monitor to its next slot; false when another process (or a change) got there first. */
    claimSlot(id: string, dueMs: number, nextMs: number): boolean {
      return s.claimSlot.run({ id, due: dueMs, next: nextMs }).changes > 0;
    },
    earliestRun(): number | undefined {
      return (s.earliest.get() as { at: number | null }).at ?? undefined;
    },
    countScheduled(): number {
      return (s.countScheduled.get() as { n: number }).n;
    },

    insertRun(row: NewRun): void {
      s.insertRun.run(row);
    },
    run(monitorId: string, runId: string): RunRow | undefined {
      return s.run.get(monitorId, runId) as RunRow | undefined;
    },
    runById(runId: string): RunRow | undefined {
      return s.runById.get(runId) as RunRow | undefined;
    },
    runs(monitorId: string, options: { before: number; limit: number }): RunRow[] {
      return s.runsPage.all({ monitor: monitorId, before: options.before, limit: options.limit }) as RunRow[];
    },
    openRuns(monitorId: string): RunRow[] {
      return s.openRuns.all(monitorId) as RunRow[];
    },
    /** pending → running; false when the run is no longer pending (cancelled meanwhile). */
    startRun(id: string, at: string, leaseUntilMs: number): boolean {
      return s.start.run({ id, at, lease: leaseUntilMs }).changes > 0;
    },
    /** Ends an open run; false when it had already ended (cancelled by the next slot, or failed by recovery). */
    endRun(id: string, end: RunEnd, at: string): boolean {
      return s.end.run({ id, ...end, updated_at: at }).changes > 0;
    },
    renewLease(id: string, untilMs: number): boolean {
      return s.renew.run(untilMs, id).changes > 0;
    },
    /** Open runs whose process stopped answering for them. */
    lapsedRuns(nowMs: number): RunRow[] {
      return s.lapsed.all(nowMs) as RunRow[];
    },
    /** The `output` JSON of the monitor's last `n` completed runs, newest first. */
    recentOutputs(monitorId: string, n: number): string[] {
      return (s.recentOutputs.all(monitorId, n) as { output: string | null }[]).flatMap((r) => (r.output ? [r.output] : [])); // prettier-ignore
    },
    /** Forgets the monitor's ended runs older than its newest `keep` runs. */
    pruneRuns(monitorId: string, keep: number): number {
      return s.pruneRuns.run({ monitor: monitorId, keep: keep - 1 }).changes;
    },
    lastCompletedStart(monitorId: string): string | undefined {
      return (s.lastStart.get(monitorId) as { started_at: string | null } | undefined)?.started_at ?? undefined;
    },

    insertDelivery(row: NewDelivery): void {
      s.insertDelivery.run(row);
    },
    /** Pending deliveries due at `nowMs` and not leased, by due time then seq, after `after` (keyset paging). */
    dueDeliveries(nowMs: number, limit: number, after?: { ms: number; seq: number }): DueDelivery[] {
      const from = { after_ms: after?.ms ?? Number.MIN_SAFE_INTEGER, after_seq: after?.seq ?? -1 };
      return s.dueDeliveries.all({ now: nowMs, limit, ...from }) as DueDelivery[];
    },
    /** Leases a due delivery until `leaseUntilMs`: the row, or undefined when another process holds it. */
    claimDelivery(seq: number, nowMs: number, leaseUntilMs: number): DeliveryRow | undefined {
      return s.claimDelivery.get({ seq, now: nowMs, lease: leaseUntilMs }) as DeliveryRow | undefined;
    },
    /** Records an attempt and the delivery's new state, in one transaction. */
    recordAttempt(
      attempt: AttemptRow,
      state: Pick<DeliveryRow, 'seq' | 'status' | 'attempts' | 'next_attempt_ms' | 'last_error' | 'delivered_at'>,
    ): void {
      db.transaction(() => {
        s.insertAttempt.run(attempt);
        s.settle.run(state);
      }).immediate();
    },
    earliestDelivery(): number | undefined {
      return (s.earliestDelivery.get() as { at: number | null }).at ?? undefined;
    },
    deliveries(monitorId: string, options: { before: number; limit: number }): DeliveryRow[] {
      return s.deliveriesOf.all({ monitor: monitorId, before: options.before, limit: options.limit }) as DeliveryRow[];
    },
    attempts(deliverySeq: number): AttemptRow[] {
      return s.attemptsOf.all(deliverySeq) as AttemptRow[];
    },
    /** Forgets settled deliveries (and their attempts) created before `beforeIso`. */
    pruneDeliveries(beforeIso: string): number {
      return db.transaction(() => {
        s.pruneAttempts.run(beforeIso);
        return s.pruneDeliveries.run(beforeIso).changes;
      })();
    },
  };
}
export type MonitorsRepo = ReturnType<typeof createMonitorsRepo>;
