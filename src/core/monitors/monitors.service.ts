/**
 * /monitors: create, list, get, update, delete and trigger monitors, list and get their runs, and list
 * their webhook deliveries. Every change and its webhook event are written in one transaction; the
 * scheduler, the runner and the outbox (the engine) act on them in the background.
 */
import { ServiceError } from '../../errors.js';
import type { WebhookSender } from '../../fetch/webhook-sender.js';
import { newWebhookSecret } from '../../fetch/webhook-signing.js';
import type { Logger } from '../../lib/logger.js';
import type { DeliveryRow, MonitorRow, MonitorsRepo } from '../../store/contracts/monitors.js';
import { owned, ownerOf, reachOf, teamFilter } from '../access/access.js';
import type { Caller } from '../context.js';
import { createEngine, type EngineSettings, type MonitorEngine } from './engine.js';
import { createMonitorEvents } from './events.js';
import {
  checkOutputSchema,
  checkRunnable,
  checkWebhookUrl,
  invalidWebhook,
  newRow,
  patchedRow,
} from './monitor-rows.js';
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
import { decodeCursor, toPage } from '../cursors.js';
import { toMonitor, toRun } from './objects.js';
import type { ExecuteRun } from './runner.js';
import type { SecretBox } from './secret-box.js';

export type { MonitorEngine } from './engine.js';

/**
 * Monitors and their runs and deliveries; every method that reads or writes the store is async. A
 * monitor belongs to its creator's team: every key of that team reaches it, and to any other caller it is
 * NOT_FOUND (src/core/access/access.ts; `caller` null: the local process, which reaches every monitor).
 */
export interface MonitorsService {
  /** Creates a monitor owned by the caller's team; its webhook secret is returned only here. */
  create(input: CreateMonitorInput, caller: Caller | null): Promise<Monitor & { webhookSecret: string }>;
  list(query: MonitorListQuery, caller: Caller | null): Promise<Page<Monitor>>;
  get(id: string, caller: Caller | null): Promise<Monitor>;
  update(id: string, patch: UpdateMonitorInput, caller: Caller | null): Promise<Monitor>;
  delete(id: string, caller: Caller | null): Promise<Monitor>;
  trigger(id: string, caller: Caller | null): Promise<{ triggered: true }>;
  runs(id: string, query: PageQuery, caller: Caller | null): Promise<Page<MonitorRun>>;
  run(id: string, runId: string, caller: Caller | null): Promise<MonitorRun>;
  deliveries(id: string, query: PageQuery, caller: Caller | null): Promise<Page<DeliveryView>>;
  /**
   * Queues a failed (or given-up) delivery of the monitor's event `eventId` again for an attempt now
   * (one attempt: a given-up delivery that fails again is given up again); a pending one is made due now.
   * NOT_FOUND for another team's; INVALID_REQUEST for one already delivered.
   */
  retryDelivery(id: string, eventId: string, caller: Caller | null): Promise<DeliveryView>;
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
const teamOf = (row: MonitorRow) => ({ teamId: row.team_id, keyId: row.key_id });
/** The monitor row when `caller` reaches it; NOT_FOUND otherwise (also inside a transaction, which it aborts). */
const ownMonitor = (caller: Caller | null, id: string, row: MonitorRow | undefined) =>
  owned(caller, 'monitor', row, teamOf, `monitor ${id}`);

/** The monitors service over its store, with its engine (not started). */
export function createMonitorsService(deps: MonitorsDeps): MonitorsService {
  const { repo } = deps;
  const events = createMonitorEvents(deps.settings.retryWindowMs);
  const { engine, runner, scheduler, onEvents } = createEngine({ ...deps, events });

  /** The webhook URL policy, then (guard on) the host resolved: a private or unresolvable one is refused. */
  const checkWebhook = async (url: string): Promise<void> => {
    const { allowInsecureWebhooks } = deps.settings;
    checkWebhookUrl(url, allowInsecureWebhooks);
    if (allowInsecureWebhooks) return;
    const why = await deps.sender.refusal(url);
    if (why) throw invalidWebhook(`must be a public endpoint: ${why}`);
  };

  const monitorRow = async (id: string, caller: Caller | null): Promise<MonitorRow> =>
    ownMonitor(caller, id, await repo.monitor(id));

  return {
    async create(input, caller) {
      await checkWebhook(input.webhook.url);
      checkOutputSchema(input.outputSchema, deps.hasModel);
      const now = deps.now();
      const secret = newWebhookSecret();
      const row = newRow(input, { ...ownerOf(caller), sealedSecret: deps.box.seal(secret) }, now);
      const stored = await repo.createMonitor(row, (created) => events.monitorEvent('monitor.created', created, now));
      onEvents();
      if (stored.next_run_ms !== null) scheduler.wake(stored.next_run_ms);
      return { ...toMonitor(stored), webhookSecret: secret };
    },

    async list(query, caller) {
      const before = decodeCursor('m', query.cursor);
      const teamId = teamFilter(reachOf(caller, 'monitor'));
      const rows = await repo.monitors({ status: query.status, teamId, before, limit: query.limit + 1 });
      return toPage('m', rows, query.limit, toMonitor);
    },

    async get(id, caller) {
      return toMonitor(await monitorRow(id, caller));
    },

    async update(id, patch, caller) {
      if (patch.webhook?.url !== undefined) await checkWebhook(patch.webhook.url);
      if (patch.outputSchema) checkOutputSchema(patch.outputSchema, deps.hasModel);
      const now = deps.now();
      const updated = await repo.updateMonitor(id, (old) => {
        const row = patchedRow(ownMonitor(caller, id, old), patch, now);
        return { row, events: events.monitorEvent('monitor.updated', row, now) };
      });
      if (!updated) throw notFound(`monitor ${id}`);
      onEvents();
      if (updated.next_run_ms !== null) scheduler.wake(updated.next_run_ms);
      return toMonitor(updated);
    },

    async delete(id, caller) {
      const now = deps.now();
      const deleted = await repo.deleteMonitor(id, (row) =>
        events.monitorEvent('monitor.deleted', ownMonitor(caller, id, row), now),
      );
      if (!deleted) throw notFound(`monitor ${id}`);
      runner.cancelled(deleted.openRuns.map((run) => run.id));
      onEvents();
      return toMonitor(deleted.monitor);
    },

    async trigger(id, caller) {
      const now = deps.now();
      const run = await repo.createRun(id, (row) => {
        checkRunnable(ownMonitor(caller, id, row));
        return runner.planRun(row, 'trigger', now);
      });
      if (!run) throw notFound(`monitor ${id}`);
      onEvents();
      runner.enqueue(run.id);
      return { triggered: true };
    },

    async runs(id, query, caller) {
      await monitorRow(id, caller);
      const rows = await repo.runs(id, { before: decodeCursor('r', query.cursor), limit: query.limit + 1 });
      return toPage('r', rows, query.limit, toRun);
    },

    async run(id, runId, caller) {
      await monitorRow(id, caller);
      const row = await repo.run(id, runId);
      if (!row) throw notFound(`run ${runId} of monitor ${id}`);
      return toRun(row);
    },

    async deliveries(id, query, caller) {
      const before = decodeCursor('d', query.cursor);
      // a deleted monitor's deliveries stay listed (its monitor.deleted event), by the team they carry
      const teamId = teamFilter(reachOf(caller, 'monitor'));
      const rows = await repo.deliveries(id, { teamId, before, limit: query.limit + 1 });
      if (rows.length === 0 && query.cursor === undefined) await monitorRow(id, caller);
      const page = toPage('d', rows, query.limit, (row) => row);
      return { ...page, data: await Promise.all(page.data.map((row) => deliveryView(row, repo))) };
    },

    async retryDelivery(id, eventId, caller) {
      // the delivery's own team decides, as in the list: a deleted monitor's event stays its team's
      const what = `delivery ${eventId} of monitor ${id}`;
      owned(caller, 'monitor', await repo.delivery(id, eventId), (d) => ({ teamId: d.team_id, keyId: null }), what);
      const row = await repo.retryDelivery(id, eventId, deps.now());
      if (!row) {
        throw new ServiceError('INVALID_REQUEST', `${what} was delivered already; only a failed delivery is retried`, {
          field: 'deliveryId',
        });
      }
      onEvents();
      return deliveryView(row, repo);
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
