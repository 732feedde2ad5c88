/**
 * The domain of monitors as the core speaks it: the monitor, its runs, its webhook events and
 * deliveries, and the create and update requests. src/ops/monitors.ops.ts maps the wire objects to these.
 */

/** The kinds of webhook event, in the order the spec lists them. */
export const MONITOR_EVENTS = [
  'monitor.created',
  'monitor.updated',
  'monitor.deleted',
  'monitor.run.created',
  'monitor.run.completed',
] as const;
/** One kind of webhook event. */
export type MonitorEventType = (typeof MONITOR_EVENTS)[number];

/** The statuses of a monitor; `disabled` is set by the engine only (too many key failures). */
export const MONITOR_STATUSES = ['active', 'paused', 'disabled'] as const;
/** A monitor's status. */
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];

/** The statuses of a run. */
export const RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
/** A run's status. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Why a run failed (the spec's reasons). */
export const FAIL_REASONS = [
  'api_key_invalid',
  'insufficient_credits',
  'invalid_params',
  'rate_limited',
  'search_unavailable',
  'search_failed',
  'internal_error',
] as const;
/** A run's fail reason. */
export type FailReason = (typeof FAIL_REASONS)[number];

/** The search a monitor runs: stored as given and merged by updates. */
export type MonitorSearch = Record<string, unknown> & { query: string; numResults: number };

/** A run's output schema: plain text (`{type: 'text'}`) or a JSON object schema. */
export type MonitorOutputSchema = Record<string, unknown> & { type: 'text' | 'object' };

/** A monitor's webhook: where its events go and which kinds (all when `events` is absent). */
export type MonitorWebhook = { url: string; events?: MonitorEventType[] };

/** A monitor as the service returns it. */
export type Monitor = {
  id: string;
  name: string | null;
  status: MonitorStatus;
  search: Record<string, unknown>;
  trigger: { type: 'interval'; period: string } | null;
  outputSchema: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  webhook: MonitorWebhook;
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
};

/** What a completed run produced: the new results, the answer written from them and its grounding. */
export type RunOutput = {
  results: Record<string, unknown>[];
  content: string | Record<string, unknown>;
  grounding: Record<string, unknown>[];
};

/** A run as the service returns it. */
export type MonitorRun = {
  id: string;
  monitorId: string;
  status: RunStatus;
  output: RunOutput | null;
  failReason: FailReason | null;
  startedAt: string | null;
  completedAt: string | null;
  failedAt: string | null;
  cancelledAt: string | null;
  durationMs: number | null;
  createdAt: string;
  updatedAt: string;
};

/** A monitor to create (validated at the door). */
export type CreateMonitorInput = {
  name?: string;
  search: MonitorSearch;
  trigger?: { type: 'interval'; period: string };
  outputSchema?: MonitorOutputSchema;
  metadata?: Record<string, unknown>;
  webhook: MonitorWebhook;
};

/** A change to a monitor: absent fields stay, `null` removes; `search` and `webhook` are merged. */
export type UpdateMonitorInput = {
  name?: string | null;
  status?: 'active' | 'paused';
  search?: Record<string, unknown>;
  trigger?: { type: 'interval'; period: string } | null;
  outputSchema?: MonitorOutputSchema | null;
  metadata?: Record<string, unknown> | null;
  webhook?: { url?: string; events?: MonitorEventType[] };
};

/** One attempt at a webhook delivery. */
export type DeliveryAttempt = { at: string; status: number | null; error: string | null; durationMs: number };

/** A webhook delivery as `GET /monitors/{id}/deliveries` and `trawl monitors deliveries` show it. */
export type DeliveryView = {
  eventId: string;
  type: MonitorEventType;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
};

/** One page of a list (core/cursors.ts). */
export type { Page } from '../cursors.js';

/** The query of a list of monitors. */
export type MonitorListQuery = { status?: string; cursor?: string; limit: number };

/** The query of a list of runs or deliveries. */
export type PageQuery = { cursor?: string; limit: number };
