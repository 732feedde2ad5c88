/**
 * Monitors, their runs and the webhook outbox (deliveries and their attempts) in SQLite. Rows are stored
 * as the service reads them; JSON columns hold JSON text. Every state change is a conditional UPDATE, so
 * two processes on one data directory cannot both claim a slot, a run or a delivery; each atomic unit is
 * one method over one `IMMEDIATE` transaction (the contract: ./monitors.types.ts).
 */
import { LEASED } from '../contracts/leases.js';
import { writeTransaction, type Db } from './database.js';
import { sqliteLeases } from './leases.js';
import {
  MONITOR_RUN_HAND_BACK,
  MONITOR_RUN_START,
  MONITOR_RUN_TAKE_OVER,
  type AttemptRow,
  type DeliveryRow,
  type DueDelivery,
  type MonitorRow,
  type MonitorsRepo,
  type NewDelivery,
  type RunPlan,
  type RunRow,
} from '../contracts/monitors.js';

const OPEN = "('pending', 'running')";

/** The prepared statements of the repository. */
function statements(db: Db) {
  return {
    insertMonitor: db.prepare(
      `INSERT INTO monitors (id, name, status, search, period, output_schema, metadata, webhook_url, webhook_events,
         secret, key_id, team_id, anchor_ms, next_run_ms, created_at, updated_at)
       VALUES (@id, @name, @status, @search, @period, @output_schema, @metadata, @webhook_url, @webhook_events,
         @secret, @key_id, @team_id, @anchor_ms, @next_run_ms, @created_at, @updated_at)`,
    ),
    monitor: db.prepare('SELECT * FROM monitors WHERE id = ?'),
    page: db.prepare(
      `SELECT * FROM monitors WHERE (@status IS NULL OR status = @status) AND (@team IS NULL OR team_id = @team)
         AND seq < @before
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
    end: db.prepare(
      `UPDATE monitor_runs SET status = @status, output = @output, fail_reason = @fail_reason,
         fail_detail = @fail_detail, completed_at = @completed_at, failed_at = @failed_at,
         cancelled_at = @cancelled_at, duration_ms = @duration_ms, updated_at = @updated_at, lease_until_ms = NULL
       WHERE id = @id AND status IN ${OPEN}`,
    ),
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
         give_up_ms, created_at, team_id)
       VALUES (@event_id, @monitor_id, @event_type, @url, @secret, @body, 'pending', @next_attempt_ms, @give_up_ms,
         @created_at, @team_id)`,
    ),
    dueDeliveries: db.prepare(
      `SELECT seq, url, next_attempt_ms FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_ms <= @now
         AND (lease_until_ms IS NULL OR lease_until_ms < @now)
         AND (next_attempt_ms > @after_ms OR (next_attempt_ms = @after_ms AND seq > @after_seq))
       ORDER BY next_attempt_ms, seq LIMIT @limit`,
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
      `SELECT * FROM webhook_deliveries WHERE monitor_id = @monitor AND (@team IS NULL OR team_id = @team)
         AND seq < @before ORDER BY seq DESC LIMIT @limit`,
    ),
    attemptsOf: db.prepare('SELECT * FROM webhook_attempts WHERE delivery_seq = ? ORDER BY attempt'),
    deliveryOf: db.prepare('SELECT * FROM webhook_deliveries WHERE monitor_id = ? AND event_id = ?'),
    retryDelivery: db.prepare(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = @now
       WHERE monitor_id = @monitor AND event_id = @event AND status <> 'delivered' RETURNING *`,
    ),
  };
}

/** The SQLite store of monitors, their runs and the webhook outbox. */
export function createMonitorsRepo(db: Db): MonitorsRepo {
  const s = statements(db);
  const runLeases = sqliteLeases<RunRow>(db, LEASED.monitorRuns);
  const startRun = runLeases.claim(MONITOR_RUN_START);
  const handBack = runLeases.release(MONITOR_RUN_HAND_BACK);
  const takeOver = runLeases.claim(MONITOR_RUN_TAKE_OVER);
  const handedBack = db.prepare(
    "SELECT * FROM monitor_runs WHERE status = 'pending' AND owner IS NULL AND lease_until_ms IS NULL ORDER BY seq LIMIT 100",
  );
  const deliveryLeases = sqliteLeases<DeliveryRow>(db, LEASED.deliveries);
  /** One `BEGIN IMMEDIATE` transaction: the write lock is taken first, so a claim never waits mid-way. */
  const atomic = <T>(work: () => T): T => writeTransaction(db, work)();
  const monitor = (id: string) => s.monitor.get(id) as MonitorRow | undefined;
  const runById = (id: string) => s.runById.get(id) as RunRow | undefined;
  const openRuns = (monitorId: string) => s.openRuns.all(monitorId) as RunRow[];
  const insertEvents = (events: NewDelivery[]) => {
    for (const event of events) s.insertDelivery.run(event);
  };
  const createRunIn = (plan: RunPlan): RunRow => {
    s.insertRun.run(plan.run);
    const run = runById(plan.run.id)!;
    insertEvents(plan.events(run));
    return run;
  };

  return {
    async createMonitor(row, events) {
      return atomic(() => {
        s.insertMonitor.run(row);
        const stored = monitor(row.id)!;
        insertEvents(events(stored));
        return stored;
      });
    },
    async monitor(id) {
      return monitor(id);
    },
    async monitors(options) {
      const { before, limit } = options;
      return s.page.all({
        status: options.status ?? null,
        team: options.teamId ?? null,
        before,
        limit,
      }) as MonitorRow[];
    },
    async updateMonitor(id, change) {
      return atomic(() => {
        const old = monitor(id);
        if (!old) return undefined;
        const { row, events } = change(old);
        s.saveMonitor.run(row);
        insertEvents(events);
        return row;
      });
    },
    async deleteMonitor(id, events) {
      return atomic(() => {
        const row = monitor(id);
        if (!row) return undefined;
        const open = openRuns(id);
        s.deleteRuns.run(id);
        s.deleteMonitor.run(id);
        insertEvents(events(row));
        return { monitor: row, openRuns: open };
      });
    },
    async claimDue(nowMs, limit, plan) {
      return atomic(() => {
        const due = s.due.all(nowMs, limit) as MonitorRow[];
        const runs: RunRow[] = [];
        const cancelled: string[] = [];
        for (const row of due) {
          const next = plan.nextRunMs(row);
          if (next === null || row.next_run_ms === null) continue;
          if (s.claimSlot.run({ id: row.id, due: row.next_run_ms, next }).changes === 0) continue;
          const claimed = { ...row, next_run_ms: next };
          for (const open of openRuns(row.id)) {
            const ended = s.end.run({ id: open.id, ...plan.cancel.end, updated_at: plan.cancel.at }).changes > 0;
            if (ended) cancelled.push(open.id);
          }
          runs.push(createRunIn(plan.run(claimed)));
        }
        return { runs, cancelled, full: due.length === limit };
      });
    },
    async earliestRun() {
      return (s.earliest.get() as { at: number | null }).at ?? undefined;
    },
    async countScheduled() {
      return (s.countScheduled.get() as { n: number }).n;
    },

    async createRun(monitorId, plan) {
      return atomic(() => {
        const row = monitor(monitorId);
        return row ? createRunIn(plan(row)) : undefined;
      });
    },
    async insertRun(row) {
      s.insertRun.run(row);
    },
    async run(monitorId, runId) {
      return s.run.get(monitorId, runId) as RunRow | undefined;
    },
    async runById(runId) {
      return runById(runId);
    },
    async runs(monitorId, options) {
      return s.runsPage.all({ monitor: monitorId, before: options.before, limit: options.limit }) as RunRow[];
    },
    async openRuns(monitorId) {
      return openRuns(monitorId);
    },
    startRun: async (id, at, leaseUntilMs) => (await startRun(id, { untilMs: leaseUntilMs }, { at })) !== undefined,
    async finishRun(runId, end, at, settle, keepRuns) {
      return atomic(() => {
        if (s.end.run({ id: runId, ...end, updated_at: at }).changes === 0) return false;
        const run = runById(runId)!;
        const row = monitor(run.monitor_id);
        if (!row) return true;
        const settled = settle(row, run);
        if (settled.monitor) s.saveMonitor.run(settled.monitor);
        insertEvents(settled.events);
        s.pruneRuns.run({ monitor: row.id, keep: keepRuns - 1 });
        return true;
      });
    },
    renewLease: (id, untilMs) => runLeases.renew(id, null, untilMs),
    lapsedRuns: (nowMs) => runLeases.lapsed(nowMs),
    handBackRun: (id, owner, nowMs, at) => handBack(id, { owner, nowMs }, { at }),
    handedBackRuns: async () => handedBack.all() as RunRow[],
    takeOverRun: async (id, owner, nowMs, untilMs) => (await takeOver(id, { owner, nowMs, untilMs })) !== undefined,
    async recentOutputs(monitorId, n) {
      const rows = s.recentOutputs.all(monitorId, n) as { output: string | null }[];
      return rows.flatMap((r) => (r.output ? [r.output] : []));
    },
    async pruneRuns(monitorId, keep) {
      return s.pruneRuns.run({ monitor: monitorId, keep: keep - 1 }).changes;
    },
    async lastCompletedStart(monitorId) {
      return (s.lastStart.get(monitorId) as { started_at: string | null } | undefined)?.started_at ?? undefined;
    },

    async dueDeliveries(nowMs, limit, after) {
      const from = { after_ms: after?.ms ?? Number.MIN_SAFE_INTEGER, after_seq: after?.seq ?? -1 };
      return s.dueDeliveries.all({ now: nowMs, limit, ...from }) as DueDelivery[];
    },
    claimDelivery: (seq, nowMs, leaseUntilMs) => deliveryLeases.claimFree(seq, nowMs, leaseUntilMs),
    async recordAttempt(attempt, state) {
      atomic(() => {
        s.insertAttempt.run(attempt);
        s.settle.run(state);
      });
    },
    async earliestDelivery() {
      return (s.earliestDelivery.get() as { at: number | null }).at ?? undefined;
    },
    async deliveries(monitorId, options) {
      const { before, limit } = options;
      return s.deliveriesOf.all({ monitor: monitorId, team: options.teamId ?? null, before, limit }) as DeliveryRow[];
    },
    async attempts(deliverySeq) {
      return s.attemptsOf.all(deliverySeq) as AttemptRow[];
    },
    delivery: async (monitorId, eventId) => s.deliveryOf.get(monitorId, eventId) as DeliveryRow | undefined,
    retryDelivery: async (monitorId, eventId, nowMs) =>
      s.retryDelivery.get({ monitor: monitorId, event: eventId, now: nowMs }) as DeliveryRow | undefined,
  };
}
