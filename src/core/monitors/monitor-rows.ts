/**
 * The rules of a monitor's rows: the checks a create or update passes first (webhook URL policy, an
 * object output needs a model, a disabled monitor does not run), the row of a new monitor and the row
 * after a patch. Pure functions of their arguments.
 */
import { ServiceError } from '../../errors.js';
import { nonPublicHostReason } from '../../lib/ip.js';
import type { MonitorRow, NewMonitor } from '../../store/contracts/monitors.js';
import type { CreateMonitorInput, UpdateMonitorInput } from './monitors.types.js';
import { newId } from './objects.js';
import { jitterMs, nextSlot, periodMs } from './schedule.js';

const invalid = (field: string, message: string) =>
  new ServiceError('INVALID_REQUEST_BODY', `${field}: ${message}`, { field });
const iso = (ms: number) => new Date(ms).toISOString();
const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/** The 400 refusing a webhook URL: `message` says why, after the field's name. */
export const invalidWebhook = (message: string) => invalid('webhook.url', message);

/**
 * The webhook URL policy as written: HTTPS and a public host name or address, unless the operator allows
 * insecure webhooks. What a name resolves to is checked by the service (the sender's `refusal`).
 */
export function checkWebhookUrl(raw: string, allowInsecure: boolean): void {
  if (allowInsecure) return;
  const url = new URL(raw);
  if (url.protocol !== 'https:') throw invalidWebhook('must use HTTPS');
  const reason = nonPublicHostReason(url.hostname);
  if (reason) throw invalidWebhook(`must be a public endpoint: ${reason}`);
}

/** An object `outputSchema` is answered by a language model: FEATURE_DISABLED without one. */
export function checkOutputSchema(schema: { type?: string } | null | undefined, hasModel: boolean): void {
  if (schema?.type === 'object' && !hasModel) {
    throw new ServiceError(
      'FEATURE_DISABLED',
      'outputSchema: an object output needs a language model, and none is configured ' +
        '(TRAWL_MODEL_BASE_URL; docs/synthesis.md). Omit outputSchema or use {"type": "text"}.',
      { field: 'outputSchema' },
    );
  }
}

/** A disabled monitor is not run until set active again. */
export function checkRunnable(row: MonitorRow): void {
  if (row.status !== 'disabled') return;
  throw new ServiceError(
    'INVALID_REQUEST',
    `monitor ${row.id} is disabled (its API key failed ${row.key_failures} runs in a row); ` +
      'set "status": "active" with PATCH to run it again',
  );
}

/** When an active monitor with this period next runs, from its anchor. */
function nextRun(row: Pick<MonitorRow, 'status' | 'period' | 'anchor_ms'>, now: number): number | null {
  return row.status === 'active' && row.period ? nextSlot(row.anchor_ms, periodMs(row.period), now) : null;
}

/** The row of a new monitor: scheduled at its anchor (creation + jitter) plus one period. */
export function newRow(
  input: CreateMonitorInput,
  owner: { keyId: string | null; teamId: string; sealedSecret: string },
  now: number,
): NewMonitor {
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
    secret: owner.sealedSecret,
    key_id: owner.keyId,
    team_id: owner.teamId,
    anchor_ms: anchor,
    next_run_ms: nextRun({ status: 'active', period, anchor_ms: anchor }, now),
    created_at: iso(now),
    updated_at: iso(now),
  };
}

/** The row of a monitor after `patch` (absent fields stay, `null` removes; search and webhook merge). */
export function patchedRow(old: MonitorRow, patch: UpdateMonitorInput, now: number): MonitorRow {
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
}
