/**
 * The domain objects of monitors and runs (./monitors.types.ts), made from stored rows, and the opaque
 * list cursors. Nothing here touches the store.
 */
import { randomBytes } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { FailReason, Monitor, MonitorEventType, MonitorRun, Page } from './monitors.types.js';
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

/**
 * List cursors: the position (`seq`) of the last item of a page, so a page never shifts when items are
 * inserted meanwhile (new ones sort before it). Opaque to callers: base64url of `<kind>:<seq>`.
 */
export function encodeCursor(kind: string, seq: number): string {
  return Buffer.from(`${kind}:${seq}`).toString('base64url');
}

/** The position a cursor stands for (+∞ without one); INVALID_REQUEST_QUERY for a cursor of another list. */
export function decodeCursor(kind: string, cursor: string | undefined): number {
  if (cursor === undefined) return Number.MAX_SAFE_INTEGER;
  const match = /^([a-z]+):(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match || match[1] !== kind) {
    throw new ServiceError('INVALID_REQUEST_QUERY', 'cursor: is not a nextCursor of this list', { field: 'cursor' });
  }
  return Number(match[2]);
}

/** One page of a list read with `limit + 1` rows: the first `limit`, and whether there were more. */
export function toPage<R extends { seq: number }, T>(
  kind: string,
  rows: R[],
  limit: number,
  map: (row: R) => T,
): Page<T> {
  const hasMore = rows.length > limit;
  const kept = rows.slice(0, limit);
  const last = kept.at(-1);
  return { data: kept.map(map), hasMore, nextCursor: hasMore && last ? encodeCursor(kind, last.seq) : null };
}
