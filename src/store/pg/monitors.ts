/**
 * Monitors, their runs and the webhook outbox over PostgreSQL: the same contract as `createMonitorsRepo`
 * (SQLite, ../monitors.types.ts). Every state change is a conditional UPDATE, so two replicas cannot
 * both claim a slot, end a run or lease a delivery; a unit of work is one transaction, and the due
 * monitors a replica claims are locked with SKIP LOCKED, so replicas claiming at once take different
 * monitors instead of waiting on each other.
 */
import type pg from 'pg';
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
  type NewRun,
  type RunEnd,
  type RunPlan,
  type RunRow,
} from '../contracts/monitors.js';
import { changed, first, inTransaction, rowsOf, type Run } from './sql.js';
import { LEASED } from '../contracts/leases.js';
import { pgLeases } from './leases.js';

const OPEN = "('pending', 'running')";

const monitorOf = (db: Run, id: string) => first<MonitorRow>(db, 'SELECT * FROM monitors WHERE id = $1', [id]);
const runOf = (db: Run, id: string) => first<RunRow>(db, 'SELECT * FROM monitor_runs WHERE id = $1', [id]);
const openRunsOf = (db: Run, monitorId: string) =>
  rowsOf<RunRow>(db, `SELECT * FROM monitor_runs WHERE monitor_id = $1 AND status IN ${OPEN} ORDER BY seq`, [monitorId]); // prettier-ignore

async function insertMonitor(db: Run, m: Omit<MonitorRow, 'seq' | 'key_failures'>): Promise<void> {
  await db.query(
    `INSERT INTO monitors (id, name, status, search, period, output_schema, metadata, webhook_url, webhook_events,
       secret, key_id, anchor_ms, next_run_ms, created_at, updated_at, team_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
    [m.id, m.name, m.status, m.search, m.period, m.output_schema, m.metadata, m.webhook_url, m.webhook_events,
      m.secret, m.key_id, m.anchor_ms, m.next_run_ms, m.created_at, m.updated_at, m.team_id], // prettier-ignore
  );
}

async function saveMonitor(db: Run, m: MonitorRow): Promise<void> {
  await db.query(
    `UPDATE monitors SET name = $2, status = $3, search = $4, period = $5, output_schema = $6, metadata = $7,
       webhook_url = $8, webhook_events = $9, next_run_ms = $10, key_failures = $11, updated_at = $12
     WHERE id = $1`,
    [m.id, m.name, m.status, m.search, m.period, m.output_schema, m.metadata, m.webhook_url, m.webhook_events,
      m.next_run_ms, m.key_failures, m.updated_at], // prettier-ignore
  );
}

async function insertEvents(db: Run, events: NewDelivery[]): Promise<void> {
  for (const e of events) {
    await db.query(
      `INSERT INTO webhook_deliveries (event_id, monitor_id, event_type, url, secret, body, status, next_attempt_ms,
         give_up_ms, created_at, team_id)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9, $10)`,
      [e.event_id, e.monitor_id, e.event_type, e.url, e.secret, e.body, e.next_attempt_ms, e.give_up_ms, e.created_at, e.team_id], // prettier-ignore
    );
  }
}

async function insertRun(db: Run, r: NewRun): Promise<void> {
  await db.query(
    `INSERT INTO monitor_runs (id, monitor_id, status, origin, owner, lease_until_ms, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [r.id, r.monitor_id, r.status, r.origin, r.owner, r.lease_until_ms, r.created_at],
  );
}

async function createRunIn(db: Run, plan: RunPlan): Promise<RunRow> {
  await insertRun(db, plan.run);
  const run = (await runOf(db, plan.run.id))!;
  await insertEvents(db, plan.events(run));
  return run;
}

/** Ends an open run; false when it had ended. */
async function endRun(db: Run, id: string, end: RunEnd, at: string): Promise<boolean> {
  return changed(
    await db.query(
      `UPDATE monitor_runs SET status = $2, output = $3, fail_reason = $4, fail_detail = $5, completed_at = $6,
         failed_at = $7, cancelled_at = $8, duration_ms = $9, updated_at = $10, lease_until_ms = NULL
       WHERE id = $1 AND status IN ${OPEN}`,
      [id, end.status, end.output, end.fail_reason, end.fail_detail, end.completed_at, end.failed_at,
        end.cancelled_at, end.duration_ms, at], // prettier-ignore
    ),
  );
}

async function pruneRuns(db: Run, monitorId: string, keep: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM monitor_runs WHERE monitor_id = $1 AND status NOT IN ${OPEN} AND seq < (
       SELECT seq FROM monitor_runs WHERE monitor_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)`,
    [monitorId, keep - 1],
  );
  return r.rowCount ?? 0;
}

export function createPgMonitorsRepo(pool: pg.Pool): MonitorsRepo {
  const runLeases = pgLeases<RunRow>(pool, LEASED.monitorRuns);
  const startRun = runLeases.claim(MONITOR_RUN_START);
  const handBack = runLeases.release(MONITOR_RUN_HAND_BACK);
  const takeOver = runLeases.claim(MONITOR_RUN_TAKE_OVER);
  const deliveryLeases = pgLeases<DeliveryRow>(pool, LEASED.deliveries);
  return {
    createMonitor: (row, events) =>
      inTransaction(pool, async (db) => {
        await insertMonitor(db, row);
        const stored = (await monitorOf(db, row.id))!;
        await insertEvents(db, events(stored));
        return stored;
      }),
    monitor: (id) => monitorOf(pool, id),
    monitors: ({ status, teamId, before, limit }) =>
      rowsOf<MonitorRow>(
        pool,
        `SELECT * FROM monitors WHERE ($1::text IS NULL OR status = $1) AND ($4::text IS NULL OR team_id = $4)
           AND seq < $2 ORDER BY seq DESC LIMIT $3`,
        [status ?? null, before, limit, teamId ?? null],
      ),
    updateMonitor: (id, change) =>
      inTransaction(pool, async (db) => {
        const old = await first<MonitorRow>(db, 'SELECT * FROM monitors WHERE id = $1 FOR UPDATE', [id]);
        if (!old) return undefined;
        const { row, events } = change(old);
        await saveMonitor(db, row);
        await insertEvents(db, events);
        return row;
      }),
    deleteMonitor: (id, events) =>
      inTransaction(pool, async (db) => {
        const row = await first<MonitorRow>(db, 'SELECT * FROM monitors WHERE id = $1 FOR UPDATE', [id]);
        if (!row) return undefined;
        const open = await openRunsOf(db, id);
        await db.query('DELETE FROM monitor_runs WHERE monitor_id = $1', [id]);
        await db.query('DELETE FROM monitors WHERE id = $1', [id]);
        await insertEvents(db, events(row));
        return { monitor: row, openRuns: open };
      }),
    claimDue: (nowMs, limit, plan) =>
      inTransaction(pool, async (db) => {
        const due = await rowsOf<MonitorRow>(
          db,
          `SELECT * FROM monitors WHERE next_run_ms <= $1 AND status = 'active' ORDER BY next_run_ms LIMIT $2
           FOR UPDATE SKIP LOCKED`,
          [nowMs, limit],
        );
        const runs: RunRow[] = [];
        const cancelled: string[] = [];
        for (const row of due) {
          const next = plan.nextRunMs(row);
          if (next === null || row.next_run_ms === null) continue;
          const slot = await db.query(
            "UPDATE monitors SET next_run_ms = $3 WHERE id = $1 AND next_run_ms = $2 AND status = 'active'",
            [row.id, row.next_run_ms, next],
          );
          if (!changed(slot)) continue;
          const claimed = { ...row, next_run_ms: next };
          for (const open of await openRunsOf(db, row.id)) {
            if (await endRun(db, open.id, plan.cancel.end, plan.cancel.at)) cancelled.push(open.id);
          }
          runs.push(await createRunIn(db, plan.run(claimed)));
        }
        return { runs, cancelled, full: due.length === limit };
      }),
    async earliestRun() {
      const row = await first<{ at: number | null }>(pool, "SELECT MIN(next_run_ms) AS at FROM monitors WHERE status = 'active'"); // prettier-ignore
      return row?.at ?? undefined;
    },
    async countScheduled() {
      const row = await first<{ n: number }>(pool, "SELECT COUNT(*)::int AS n FROM monitors WHERE status = 'active' AND next_run_ms IS NOT NULL"); // prettier-ignore
      return row!.n;
    },

    createRun: (monitorId, plan) =>
      inTransaction(pool, async (db) => {
        const row = await first<MonitorRow>(db, 'SELECT * FROM monitors WHERE id = $1 FOR UPDATE', [monitorId]);
        return row ? createRunIn(db, plan(row)) : undefined;
      }),
    insertRun: (row) => insertRun(pool, row),
    run: (monitorId, runId) =>
      first<RunRow>(pool, 'SELECT * FROM monitor_runs WHERE monitor_id = $1 AND id = $2', [monitorId, runId]),
    runById: (runId) => runOf(pool, runId),
    runs: (monitorId, { before, limit }) =>
      rowsOf<RunRow>(pool, 'SELECT * FROM monitor_runs WHERE monitor_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3', [monitorId, before, limit]), // prettier-ignore
    openRuns: (monitorId) => openRunsOf(pool, monitorId),
    startRun: async (id, at, leaseUntilMs) => (await startRun(id, { untilMs: leaseUntilMs }, { at })) !== undefined,
    finishRun: (runId, end, at, settle, keepRuns) =>
      inTransaction(pool, async (db) => {
        if (!(await endRun(db, runId, end, at))) return false;
        const run = (await runOf(db, runId))!;
        const row = await first<MonitorRow>(db, 'SELECT * FROM monitors WHERE id = $1 FOR UPDATE', [run.monitor_id]);
        if (!row) return true;
        const settled = settle(row, run);
        if (settled.monitor) await saveMonitor(db, settled.monitor);
        await insertEvents(db, settled.events);
        await pruneRuns(db, row.id, keepRuns);
        return true;
      }),
    renewLease: (id, untilMs) => runLeases.renew(id, null, untilMs),
    lapsedRuns: (nowMs) => runLeases.lapsed(nowMs),
    handBackRun: (id, owner, nowMs, at) => handBack(id, { owner, nowMs }, { at }),
    handedBackRuns: () =>
      rowsOf<RunRow>(
        pool,
        "SELECT * FROM monitor_runs WHERE status = 'pending' AND owner IS NULL AND lease_until_ms IS NULL ORDER BY seq LIMIT 100",
      ),
    takeOverRun: async (id, owner, nowMs, untilMs) => (await takeOver(id, { owner, nowMs, untilMs })) !== undefined,
    async recentOutputs(monitorId, n) {
      const rows = await rowsOf<{ output: string | null }>(
        pool,
        "SELECT output FROM monitor_runs WHERE monitor_id = $1 AND status = 'completed' ORDER BY seq DESC LIMIT $2",
        [monitorId, n],
      );
      return rows.flatMap((r) => (r.output ? [r.output] : []));
    },
    pruneRuns: (monitorId, keep) => pruneRuns(pool, monitorId, keep),
    async lastCompletedStart(monitorId) {
      const row = await first<{ started_at: string | null }>(
        pool,
        "SELECT started_at FROM monitor_runs WHERE monitor_id = $1 AND status = 'completed' ORDER BY seq DESC LIMIT 1",
        [monitorId],
      );
      return row?.started_at ?? undefined;
    },

    dueDeliveries: (nowMs, limit, after) =>
      rowsOf<DueDelivery>(
        pool,
        `SELECT seq, url, next_attempt_ms FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_ms <= $1
           AND (lease_until_ms IS NULL OR lease_until_ms < $1)
           AND (next_attempt_ms > $3 OR (next_attempt_ms = $3 AND seq > $4))
         ORDER BY next_attempt_ms, seq LIMIT $2`,
        [nowMs, limit, after?.ms ?? Number.MIN_SAFE_INTEGER, after?.seq ?? -1],
      ),
    claimDelivery: (seq, nowMs, leaseUntilMs) => deliveryLeases.claimFree(seq, nowMs, leaseUntilMs),
    async recordAttempt(a, state) {
      await inTransaction(pool, async (db) => {
        await db.query(
          `INSERT INTO webhook_attempts (delivery_seq, attempt, at, status, error, duration_ms)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [a.delivery_seq, a.attempt, a.at, a.status, a.error, a.duration_ms],
        );
        await db.query(
          `UPDATE webhook_deliveries SET status = $2, attempts = $3, next_attempt_ms = $4, lease_until_ms = NULL,
             last_error = $5, delivered_at = $6
           WHERE seq = $1`,
          [state.seq, state.status, state.attempts, state.next_attempt_ms, state.last_error, state.delivered_at],
        );
      });
    },
    async earliestDelivery() {
      // a leased delivery is not due before its lease lapses (it is in flight on some replica)
      const row = await first<{ at: number | null }>(
        pool,
        `SELECT MIN(CASE WHEN next_attempt_ms IS NULL THEN NULL
                    ELSE GREATEST(next_attempt_ms, COALESCE(lease_until_ms + 1, 0)) END) AS at
         FROM webhook_deliveries WHERE status = 'pending'`,
      );
      return row?.at ?? undefined;
    },
    deliveries: (monitorId, { teamId, before, limit }) =>
      rowsOf<DeliveryRow>(pool, 'SELECT * FROM webhook_deliveries WHERE monitor_id = $1 AND ($4::text IS NULL OR team_id = $4) AND seq < $2 ORDER BY seq DESC LIMIT $3', [monitorId, before, limit, teamId ?? null]), // prettier-ignore
    attempts: (deliverySeq) =>
      rowsOf<AttemptRow>(pool, 'SELECT * FROM webhook_attempts WHERE delivery_seq = $1 ORDER BY attempt', [deliverySeq]), // prettier-ignore
    delivery: (monitorId, eventId) =>
      first<DeliveryRow>(pool, 'SELECT * FROM webhook_deliveries WHERE monitor_id = $1 AND event_id = $2', [monitorId, eventId]), // prettier-ignore
    retryDelivery: (monitorId, eventId, nowMs) =>
      first<DeliveryRow>(
        pool,
        `UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = $3
         WHERE monitor_id = $1 AND event_id = $2 AND status <> 'delivered' RETURNING *`,
        [monitorId, eventId, nowMs],
      ),
  };
}
