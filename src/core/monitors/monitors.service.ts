/**
 * /monitors: create, list, get, update, delete and trigger monitors, list and get their runs, and list
 * their webhook deliveries. Every change and its webhook event are written in one transaction; the
 * scheduler, the runner and the outbox (the engine) act on them in the background.
 */
import { ServiceError } from '../../errors.js';
import type { WebhookSender } from '../../fetch/webhook-sender.js';
import { newWebhookSecret } from '../../fetch/webhook-signing.js';
import type { Logger } from '../../lib/logger.js';
import type { DeliveryRow, MonitorRow, MonitorsRepo } from '../../store/monitors.repo.js';
import type { Caller } from '../context.js';
import { createEngine, type EngineSettings, type MonitorEngine } from './engine.js';
import { createMonitorEvents } from './events.js';
import { checkOutputSchema, checkRunnable, checkWebhookUrl, newRow, patchedRow } from './monitor-rows.js';
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
import { decodeCursor, toMonitor, toPage, toRun } from './objects.js';
import type { ExecuteRun } from './runner.js';
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

/** The monitors service over its store, with its engine (not started). */
export function createMonitorsService(deps: MonitorsDeps): MonitorsService {
  const { repo } = deps;
  const events = createMonitorEvents(deps.settings.retryWindowMs);
  const { engine, runner, scheduler, onEvents } = createEngine({ ...deps, events });

  const monitorRow = async (id: string): Promise<MonitorRow> => {
    const row = await repo.monitor(id);
    if (!row) throw notFound(`monitor ${id}`);
    return row;
  };

  return {
    async create(input, caller) {
      checkWebhookUrl(input.webhook.url, deps.settings.allowInsecureWebhooks);
      checkOutputSchema(input.outputSchema, deps.hasModel);
      const now = deps.now();
      const secret = newWebhookSecret();
      const row = newRow(input, { keyId: caller?.keyId ?? null, sealedSecret: deps.box.seal(secret) }, now);
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
      if (patch.webhook?.url !== undefined) checkWebhookUrl(patch.webhook.url, deps.settings.allowInsecureWebhooks);
      if (patch.outputSchema) checkOutputSchema(patch.outputSchema, deps.hasModel);
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
