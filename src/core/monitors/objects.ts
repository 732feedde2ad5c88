/**
 * The domain objects of monitors and runs (./monitors.types.ts), made from stored rows. Nothing here
 * touches the store.
 */
import { randomBytes } from 'node:crypto';
import type { FailReason, Monitor, MonitorEventType, MonitorRun } from './monitors.types.js';
import type { MonitorRow, RunRow } from '../../store/contracts/monitors.js';

/** A fresh id with a type prefix (`mon_`, `run_`, `evt_`) and 96 random bits in hex. */
export function newId(prefix: 'mon' | 'run' | 'evt'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The monitor object of a stored row. */
export function toMonitor(row: MonitorRow): Monitor {
  const events = json<MonitorEventType[]>(row.webhook_events);
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    search: json<Record<string, unknown>>(row.search) ?? {},
    trigger: row.period ? { type: 'interval', period: row.period } : null,
    outputSchema: json(row.output_schema),
    metadata: json(row.metadata),
    webhook: { url: row.webhook_url, ...(events ? { events } : {}) },
    nextRunAt: iso(row.next_run_ms),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The run object of a stored row. */
export function toRun(row: RunRow): MonitorRun {
  return {
    id: row.id,
    monitorId: row.monitor_id,
    status: row.status,
    output: json(row.output),
    failReason: row.fail_reason as FailReason | null,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    failedAt: row.failed_at,
    cancelledAt: row.cancelled_at,
    durationMs: row.duration_ms,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
