/**
 * /monitors: create, list, get, update, delete and trigger monitors, list and get their runs, and list
 * their webhook deliveries. Every change and its webhook event are written in one transaction; the
 * scheduler, the runner and the outbox (the engine) act on them in the background.
 */
import { ServiceError } from '../../errors.js';
import type { WebhookSender } from '../../fetch/webhook-sender.js';
import { newWebhookSecret } from '../../fetch/webhook-signing.js';
import { nonPublicHostReason } from '../../lib/ip.js';
import type { Logger } from '../../lib/logger.js';
import type { DeliveryRow, MonitorRow, MonitorsRepo, NewMonitor } from '../../store/monitors.repo.js';
import type { Caller } from '../context.js';
import { createEngine, type EngineSettings, type MonitorEngine } from './engine.js';
import { createMonitorEvents } from './events.js';
import type {
  CreateMonitorInput,
  DeliveryView,
  Monitor,
  MonitorEventType,
  MonitorListQuery,
  MonitorRun,
  Page,
  PageQuery,
  UpdateMonitorInput,
} from './monitors.types.js';
import { decodeCursor, newId, toMonitor, toPage, toRun } from './objects.js';
import type { ExecuteRun } from './runner.js';
import { jitterMs, nextSlot, periodMs } from './schedule.js';
import type { SecretBox } from './secret-box.js';

export type { MonitorEngine } from './engine.js';

/** Monitors and their runs and deliveries; every method that reads or writes the store is async. */
export interface MonitorsService {
  /** Creates a monitor; its webhook secret is returned only here. */
  create(input: CreateMonitorInput, caller: Caller | null): Promise<Monitor & { webhookSecret: string }>;
  list(query: MonitorListQuery): Promise<Page<Monitor>>;
  get(id: string): Promise<Monitor>;
  update(id: string, patch: UpdateMonitorInput): Promise<Monitor>;
  delete(id: string): Promise<Monitor>;
  trigger(id: string): Promise<{ triggered: true }>;
  runs(id: string, query: PageQuery): Promise<Page<MonitorRun>>;
  run(id: string, runId: string): Promise<MonitorRun>;
  deliveries(id: string, query: PageQuery): Promise<Page<DeliveryView>>;
  /** The background half: scheduled runs, run execution and webhook delivery. */
  engine: MonitorEngine;
}

/** What the service is built on. */
export interface MonitorsDeps {
  repo: MonitorsRepo;
  box: SecretBox;
  sender: WebhookSender;
  execute: ExecuteRun;
  now: () => number;
  logger: Logger;
  /** Whether an object `outputSchema` can be answered (a language model is configured). */
  hasModel: boolean;
  settings: EngineSettings & {
    /** TRAWL_ALLOW_INSECURE_WEBHOOKS: HTTP and private webhook addresses (local development and tests). */
    allowInsecureWebhooks: boolean;
    retryWindowMs: number;
  };
}

const notFound = (what: string) => new ServiceError('NOT_FOUND', `${what} not found`);
const invalid = (field: string, message: string) =>
  new ServiceError('INVALID_REQUEST_BODY', `${field}: ${message}`, { field });

/** The monitors service over its store, with its engine (not started). */
export function createMonitorsService(deps: MonitorsDeps): MonitorsService {
  const { repo } = deps;
  const events = createMonitorEvents(deps.settings.retryWindowMs);
  const { engine, runner, scheduler, onEvents } = createEngine({ ...deps, events });

  const iso = (ms: number) => new Date(ms).toISOString();

  const monitorRow = async (id: string): Promise<MonitorRow> => {
    const row = await repo.monitor(id);
    if (!row) throw notFound(`monitor ${id}`);
    return row;
  };

  /** The webhook URL policy: HTTPS and a public host, unless the operator allows insecure webhooks. */
  const checkWebhookUrl = (raw: string) => {
    if (deps.settings.allowInsecureWebhooks) return;
    const url = new URL(raw);
    if (url.protocol !== 'https:') throw invalid('webhook.url', 'must use HTTPS');
    const reason = nonPublicHostReason(url.hostname);
    if (reason) throw invalid('webhook.url', `must be a public endpoint: ${reason}`);
  };

  const checkOutputSchema = (schema: { type?: string } | null | undefined) => {
    if (schema?.type === 'object' && !deps.hasModel) {
      throw new ServiceError(
        'FEATURE_DISABLED',
        'outputSchema: an object output needs a language model, and none is configured ' +
          '(TRAWL_MODEL_BASE_URL; docs/synthesis.md). Omit outputSchema or use {"type": "text"}.',
        { field: 'outputSchema' },
      );
    }
  };

  /** When an active monitor with this period next runs, from its anchor. */
  const nextRun = (row: Pick<MonitorRow, 'status' | 'period' | 'anchor_ms'>, now: number): number | null =>
    row.status === 'active' && row.period ? nextSlot(row.anchor_ms, periodMs(row.period), now) : null;

  const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

  /** The row of a new monitor: scheduled at its anchor (creation + jitter) plus one period. */
  const newRow = (input: CreateMonitorInput, caller: Caller | null, secret: string, now: number): NewMonitor => {
    const id = newId('mon');
    const anchor = now + jitterMs(id);
    const period = input.trigger?.period ?? null;
    return {
      id,
      name: input.name ?? null,
      status: 'active',
      search: JSON.stringify(input.search),
      period,
      output_schema: json(input.outputSchema),
      metadata: json(input.metadata),
      webhook_url: input.webhook.url,
      webhook_events: json(input.webhook.events),
      secret: deps.box.seal(secret),
      key_id: caller?.keyId ?? null,
      anchor_ms: anchor,
      next_run_ms: nextRun({ status: 'active', period, anchor_ms: anchor }, now),
      created_at: iso(now),
      updated_at: iso(now),
    };
  };

  /** The row of a monitor after `patch` (absent fields stay, `null` removes; search and webhook merge). */
  const patchedRow = (old: MonitorRow, patch: UpdateMonitorInput, now: number): MonitorRow => {
    const webhook = patch.webhook;
    const search = patch.search ? { ...(JSON.parse(old.search) as object), ...patch.search } : undefined;
    const row: MonitorRow = {
      ...old,
      name: patch.name === undefined ? old.name : patch.name,
      status: patch.status ?? old.status,
      search: search ? JSON.stringify(search) : old.search,
      period: patch.trigger === undefined ? old.period : (patch.trigger?.period ?? null),
      output_schema: patch.outputSchema === undefined ? old.output_schema : json(patch.outputSchema),
      metadata: patch.metadata === undefined ? old.metadata : json(patch.metadata),
      webhook_url: webhook?.url ?? old.webhook_url,
      webhook_events: webhook && 'events' in webhook ? json(webhook.events) : old.webhook_events,
      // a monitor set active again (even a disabled one) starts counting key failures afresh
      key_failures: patch.status === 'active' ? 0 : old.key_failures,
      updated_at: iso(now),
    };
    const rescheduled = row.status !== old.status || row.period !== old.period || old.next_run_ms === null;
    const keeps = row.status === 'active' && row.period ? old.next_run_ms : null;
    row.next_run_ms = rescheduled ? nextRun(row, now) : keeps;
    return row;
  };

  /** A disabled monitor is not run until set active again. */
  const checkRunnable = (row: MonitorRow) => {
    if (row.status !== 'disabled') return;
    throw new ServiceError(
      'INVALID_REQUEST',
      `monitor ${row.id} is disabled (its API key failed ${row.key_failures} runs in a row); ` +
        'set "status": "active" with PATCH to run it again',
    );
  };

  return {
    async create(input, caller) {
      checkWebhookUrl(input.webhook.url);
      checkOutputSchema(input.outputSchema);
      const now = deps.now();
      const secret = newWebhookSecret();
      const row = newRow(input, caller, secret, now);
      const stored = await repo.createMonitor(row, (created) => events.monitorEvent('monitor.created', created, now));
      onEvents();
      if (stored.next_run_ms !== null) scheduler.wake(stored.next_run_ms);
      return { ...toMonitor(stored), webhookSecret: secret };
    },

    async list(query) {
      const before = decodeCursor('m', query.cursor);
      const rows = await repo.monitors({ status: query.status, before, limit: query.limit + 1 });
      return toPage('m', rows, query.limit, toMonitor);
    },

    async get(id) {
      return toMonitor(await monitorRow(id));
    },

    async update(id, patch) {
      if (patch.webhook?.url !== undefined) checkWebhookUrl(patch.webhook.url);
      if (patch.outputSchema) checkOutputSchema(patch.outputSchema);
      const now = deps.now();
      const updated = await repo.updateMonitor(id, (old) => {
        const row = patchedRow(old, patch, now);
        return { row, events: events.monitorEvent('monitor.updated', row, now) };
      });
      if (!updated) throw notFound(`monitor ${id}`);
      onEvents();
      if (updated.next_run_ms !== null) scheduler.wake(updated.next_run_ms);
      return toMonitor(updated);
    },

    async delete(id) {
      const now = deps.now();
      const deleted = await repo.deleteMonitor(id, (row) => events.monitorEvent('monitor.deleted', row, now));
      if (!deleted) throw notFound(`monitor ${id}`);
      runner.cancelled(deleted.openRuns.map((run) => run.id));
      onEvents();
      return toMonitor(deleted.monitor);
    },

    async trigger(id) {
      const now = deps.now();
      const run = await repo.createRun(id, (row) => {
        checkRunnable(row);
        return runner.planRun(row, 'trigger', now);
      });
      if (!run) throw notFound(`monitor ${id}`);
      onEvents();
      runner.enqueue(run.id);
      return { triggered: true };
    },

    async runs(id, query) {
      await monitorRow(id);
      const rows = await repo.runs(id, { before: decodeCursor('r', query.cursor), limit: query.limit + 1 });
      return toPage('r', rows, query.limit, toRun);
    },

    async run(id, runId) {
      await monitorRow(id);
      const row = await repo.run(id, runId);
      if (!row) throw notFound(`run ${runId} of monitor ${id}`);
      return toRun(row);
    },

    async deliveries(id, query) {
      const before = decodeCursor('d', query.cursor);
      const rows = await repo.deliveries(id, { before, limit: query.limit + 1 });
      if (rows.length === 0 && query.cursor === undefined && !(await repo.monitor(id))) {
        throw notFound(`monitor ${id}`);
      }
      const page = toPage('d', rows, query.limit, (row) => row);
      return { ...page, data: await Promise.all(page.data.map((row) => deliveryView(row, repo))) };
    },

    engine,
  };
}

/** A delivery with its attempts, as the deliveries list shows it. */
async function deliveryView(row: DeliveryRow, repo: MonitorsRepo): Promise<DeliveryView> {
  const attempts = await repo.attempts(row.seq);
  return {
    eventId: row.event_id,
    type: row.event_type as MonitorEventType,
    url: row.url,
    status: row.status,
    attempts: attempts.map((a) => ({ at: a.at, status: a.status, error: a.error, durationMs: a.duration_ms })),
    nextAttemptAt: row.next_attempt_ms === null ? null : new Date(row.next_attempt_ms).toISOString(),
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}
