/**
 * /monitors: create, list, get, update, delete and trigger monitors, list and get their runs, and list
 * their webhook deliveries. Every change and its webhook event are written in one transaction; the
 * scheduler, the runner and the outbox (the engine) act on them in the background.
 */
import { hostname } from 'node:os';
import { ServiceError } from '../../errors.js';
import { nonPublicHostReason } from '../../lib/ip.js';
import type { Logger } from '../../lib/logger.js';
import type { DeliveryRow, MonitorRow, MonitorsRepo } from '../../store/monitors.repo.js';
import type { Caller } from '../context.js';
import { createEventWriter } from './events.js';
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
import { createOutbox, DELIVERY_CONCURRENCY } from './outbox.js';
import { createRunner, type ExecuteRun, type Runner } from './runner.js';
import { jitterMs, nextSlot, periodMs } from './schedule.js';
import { createScheduler, type Scheduler } from './scheduler.js';
import type { SecretBox } from './secret-box.js';
import { newWebhookSecret } from '../../fetch/webhook-signing.js';
import type { WebhookSender } from '../../fetch/webhook-sender.js';

export interface MonitorsService {
  create(input: CreateMonitorInput, caller: Caller | null): Monitor & { webhookSecret: string };
  list(query: MonitorListQuery): Page<Monitor>;
  get(id: string): Monitor;
  update(id: string, patch: UpdateMonitorInput): Monitor;
  delete(id: string): Monitor;
  trigger(id: string): { triggered: true };
  runs(id: string, query: PageQuery): Page<MonitorRun>;
  run(id: string, runId: string): MonitorRun;
  deliveries(id: string, query: PageQuery): Page<DeliveryView>;
  /** The background half: scheduled runs, run execution and webhook delivery. */
  engine: MonitorEngine;
}

export interface MonitorEngine {
  start(): void;
  stop(): Promise<void>;
  /** Starts the runs due now (tests and benchmarks drive time through the clock). */
  tick(): Promise<number>;
  /** Resolves when this process's queued and running runs have ended. */
  drain(): Promise<void>;
  /** Attempts every webhook delivery due now. */
  flush(): Promise<number>;
  /** Fails runs abandoned by a stopped process (the engine does this on start and every tick). */
  recover(): void;
  readonly load: Runner['load'];
}

export interface MonitorsDeps {
  repo: MonitorsRepo;
  box: SecretBox;
  sender: WebhookSender;
  execute: ExecuteRun;
  now: () => number;
  logger: Logger;
  /** Whether an object `outputSchema` can be answered (a language model is configured). */
  hasModel: boolean;
  settings: {
    /** TRAWL_ALLOW_INSECURE_WEBHOOKS: HTTP and private webhook addresses (local development and tests). */
    allowInsecureWebhooks: boolean;
    runConcurrency: number;
    retryWindowMs: number;
    /** Webhook attempts in flight at once in this process to one receiver host (DELIVERY_CONCURRENCY over all). */
    deliveryConcurrency: number;
    pollMs: number;
    leaseMs: number;
  };
}

const notFound = (what: string) => new ServiceError('NOT_FOUND', `${what} not found`);
const invalid = (field: string, message: string) =>
  new ServiceError('INVALID_REQUEST_BODY', `${field}: ${message}`, { field });

export function createMonitorsService(deps: MonitorsDeps): MonitorsService {
  const { repo } = deps;
  const events = createEventWriter(repo, deps.settings.retryWindowMs);
  const owner = `${hostname()}:${process.pid}:${newId('run').slice(4, 12)}`;
  const outbox = createOutbox({
    repo,
    sender: deps.sender,
    box: deps.box,
    now: deps.now,
    logger: deps.logger,
    concurrency: DELIVERY_CONCURRENCY,
    hostConcurrency: deps.settings.deliveryConcurrency,
    pollMs: deps.settings.pollMs,
  });
  const onEvents = () => outbox.poke();
  const runner = createRunner({
    repo,
    events,
    execute: deps.execute,
    now: deps.now,
    logger: deps.logger,
    concurrency: deps.settings.runConcurrency,
    owner,
    leaseMs: deps.settings.leaseMs,
    onEvents,
  });
  const scheduler: Scheduler = createScheduler({
    repo,
    runner,
    now: deps.now,
    logger: deps.logger,
    pollMs: deps.settings.pollMs,
    onEvents,
  });

  const iso = (ms: number) => new Date(ms).toISOString();

  const monitorRow = (id: string): MonitorRow => {
    const row = repo.monitor(id);
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
        'outputSchema: an object output needs a language model, and none is configured (TRAWL_MODEL_BASE_URL; docs/synthesis.md). Omit outputSchema or use {"type": "text"}.', // prettier-ignore
        { field: 'outputSchema' },
      );
    }
  };

  /** When an active monitor with this period next runs, from its anchor. */
  const nextRun = (row: Pick<MonitorRow, 'status' | 'period' | 'anchor_ms'>, now: number): number | null =>
    row.status === 'active' && row.period ? nextSlot(row.anchor_ms, periodMs(row.period), now) : null;

  const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

  return {
    create(input, caller) {
      checkWebhookUrl(input.webhook.url);
      checkOutputSchema(input.outputSchema);
      const now = deps.now();
      const id = newId('mon');
      const secret = newWebhookSecret();
      const anchor = now + jitterMs(id);
      const period = input.trigger?.period ?? null;
      const row: Omit<MonitorRow, 'seq' | 'key_failures'> = {
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
      const stored = repo.transaction(() => {
        repo.insertMonitor(row);
        const created = repo.monitor(id)!;
        events.monitorEvent('monitor.created', created, now);
        return created;
      });
      onEvents();
      if (stored.next_run_ms !== null) scheduler.wake(stored.next_run_ms);
      return { ...toMonitor(stored), webhookSecret: secret };
    },

    list(query) {
      const rows = repo.monitors({ status: query.status, before: decodeCursor('m', query.cursor), limit: query.limit + 1 }); // prettier-ignore
      return toPage('m', rows, query.limit, toMonitor);
    },

    get(id) {
      return toMonitor(monitorRow(id));
    },

    update(id, patch) {
      if (patch.webhook?.url !== undefined) checkWebhookUrl(patch.webhook.url);
      if (patch.outputSchema) checkOutputSchema(patch.outputSchema);
      const now = deps.now();
      const updated = repo.transaction(() => {
        const old = monitorRow(id);
        const webhookEvents = patch.webhook && 'events' in patch.webhook ? json(patch.webhook.events) : old.webhook_events; // prettier-ignore
        const row: MonitorRow = {
          ...old,
          name: patch.name === undefined ? old.name : patch.name,
          status: patch.status ?? old.status,
          search: patch.search ? JSON.stringify({ ...(JSON.parse(old.search) as object), ...patch.search }) : old.search, // prettier-ignore
          period: patch.trigger === undefined ? old.period : (patch.trigger?.period ?? null),
          output_schema: patch.outputSchema === undefined ? old.output_schema : json(patch.outputSchema),
          metadata: patch.metadata === undefined ? old.metadata : json(patch.metadata),
          webhook_url: patch.webhook?.url ?? old.webhook_url,
          webhook_events: webhookEvents,
          // a monitor set active again (even a disabled one) starts counting key failures afresh
          key_failures: patch.status === 'active' ? 0 : old.key_failures,
          updated_at: iso(now),
        };
        const rescheduled = row.status !== old.status || row.period !== old.period || old.next_run_ms === null;
        row.next_run_ms = rescheduled ? nextRun(row, now) : row.status === 'active' && row.period ? old.next_run_ms : null; // prettier-ignore
        repo.saveMonitor(row);
        events.monitorEvent('monitor.updated', row, now);
        return row;
      });
      onEvents();
      if (updated.next_run_ms !== null) scheduler.wake(updated.next_run_ms);
      return toMonitor(updated);
    },

    delete(id) {
      const now = deps.now();
      const deleted = repo.transaction(() => {
        const row = monitorRow(id);
        for (const open of repo.openRuns(id)) runner.cancelRun(row, open, now);
        repo.deleteMonitor(id);
        events.monitorEvent('monitor.deleted', row, now);
        return row;
      });
      onEvents();
      return toMonitor(deleted);
    },

    trigger(id) {
      const now = deps.now();
      const run = repo.transaction(() => {
        const row = monitorRow(id);
        if (row.status === 'disabled') {
          throw new ServiceError(
            'INVALID_REQUEST',
            `monitor ${id} is disabled (its API key failed ${row.key_failures} runs in a row); set "status": "active" with PATCH to run it again`, // prettier-ignore
          );
        }
        return runner.createRun(row, 'trigger', now);
      });
      onEvents();
      runner.enqueue(run.id);
      return { triggered: true };
    },

    runs(id, query) {
      monitorRow(id);
      const rows = repo.runs(id, { before: decodeCursor('r', query.cursor), limit: query.limit + 1 });
      return toPage('r', rows, query.limit, toRun);
    },

    run(id, runId) {
      monitorRow(id);
      const row = repo.run(id, runId);
      if (!row) throw notFound(`run ${runId} of monitor ${id}`);
      return toRun(row);
    },

    deliveries(id, query) {
      const rows = repo.deliveries(id, { before: decodeCursor('d', query.cursor), limit: query.limit + 1 });
      if (rows.length === 0 && !repo.monitor(id) && query.cursor === undefined) throw notFound(`monitor ${id}`);
      return toPage('d', rows, query.limit, (row) => deliveryView(row, repo));
    },

    engine: {
      start() {
        runner.recover();
        scheduler.start();
        outbox.start();
      },
      async stop() {
        await scheduler.stop();
        await runner.stop();
        await outbox.stop();
      },
      tick: () => scheduler.tick(),
      drain: () => runner.drain(),
      flush: () => outbox.flush(),
      recover: () => runner.recover(),
      get load() {
        return runner.load;
      },
    },
  };
}

function deliveryView(row: DeliveryRow, repo: MonitorsRepo): DeliveryView {
  return {
    eventId: row.event_id,
    type: row.event_type as MonitorEventType,
    url: row.url,
    status: row.status,
    attempts: repo.attempts(row.seq).map((a) => ({ at: a.at, status: a.status, error: a.error, durationMs: a.duration_ms })), // prettier-ignore
    nextAttemptAt: row.next_attempt_ms === null ? null : new Date(row.next_attempt_ms).toISOString(),
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}
