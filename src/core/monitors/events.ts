/**
 * Webhook events, made as outbox rows that the repository writes in the same transaction as the change
 * they report: a crash after the change cannot lose the event, and a change rolled back sends none.
 * Filtered by the monitor's `webhook.events` (all kinds when it has none).
 */
import type { MonitorRow, NewDelivery } from '../../store/contracts/monitors.js';
import type { Monitor, MonitorEventType as EventType, MonitorRun } from './monitors.types.js';
import { newId, toMonitor } from './objects.js';

/** Makes the outbox rows of a change: none when the monitor does not subscribe to the kind. */
export interface MonitorEvents {
  /** `monitor.created`, `.updated`, `.deleted`: the full monitor object. */
  monitorEvent(
    type: 'monitor.created' | 'monitor.updated' | 'monitor.deleted',
    row: MonitorRow,
    atMs: number,
  ): NewDelivery[];
  /** `monitor.run.created`, `.completed`: the run object plus the monitor's `metadata`. */
  runEvent(
    type: 'monitor.run.created' | 'monitor.run.completed',
    row: MonitorRow,
    run: MonitorRun,
    atMs: number,
  ): NewDelivery[];
}

/** `retryWindowMs`: how long a delivery is retried before it is given up. */
export function createMonitorEvents(retryWindowMs: number): MonitorEvents {
  const make = (type: EventType, row: MonitorRow, data: Record<string, unknown>, atMs: number): NewDelivery[] => {
    const events = row.webhook_events ? (JSON.parse(row.webhook_events) as EventType[]) : undefined;
    if (events && !events.includes(type)) return [];
    const id = newId('evt');
    const createdAt = new Date(atMs).toISOString();
    const body = JSON.stringify({ id, object: 'event', type, data, createdAt });
    return [
      {
        event_id: id,
        monitor_id: row.id,
        event_type: type,
        url: row.webhook_url,
        secret: row.secret,
        body,
        next_attempt_ms: atMs,
        give_up_ms: atMs + retryWindowMs,
        created_at: createdAt,
        team_id: row.team_id,
      },
    ];
  };
  return {
    monitorEvent(type, row, atMs) {
      return make(type, row, toMonitor(row) satisfies Monitor, atMs);
    },
    runEvent(type, row, run, atMs) {
      return make(type, row, { ...run, metadata: toMonitor(row).metadata }, atMs);
    },
  };
}
