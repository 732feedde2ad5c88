/** /monitors: create, update, list and the Monitor, MonitorRun and webhook event objects. */
import { z } from 'zod';
import { DomainList, Grounding, PageQuery, SearchResult, Timestamp, required, wireObject } from './common.schema.js';
import {
  ContentsExtras,
  ContextOption,
  LivecrawlTimeout,
  Subpages,
  SubpageTarget,
  TextOptions,
  refineContentOptions,
} from './content-options.schema.js';
import { OutputSchema } from './output-schema.schema.js';
import { FAIL_REASONS, MONITOR_EVENTS, MONITOR_STATUSES, RUN_STATUSES } from '../core/monitors/monitors.types.js';
import { parsePeriodHours } from '../core/monitors/schedule.js';

export { MONITOR_EVENTS, parsePeriodHours };
export const MonitorEventType = z.enum(MONITOR_EVENTS);
export const MonitorStatus = z.enum(MONITOR_STATUSES);
export const MonitorRunStatus = z.enum(RUN_STATUSES);
export const FailReason = z.enum(FAIL_REASONS);

const MonitorContents = wireObject({
  text: z.union([z.boolean(), TextOptions]).optional(),
  highlights: z
    .union([
      z.boolean(),
      wireObject({ query: z.string().min(1).optional(), maxCharacters: z.int().min(1).max(10000).optional() }),
    ])
    .optional(),
  summary: z
    .union([z.boolean(), wireObject({ query: z.string().min(1).optional(), maxTokens: z.int().min(1).optional() })])
    .optional(),
  extras: ContentsExtras.optional(),
  context: ContextOption.optional(),
  livecrawl: z.enum(['never', 'always', 'fallback', 'auto', 'preferred']).optional().describe('Deprecated.'),
  livecrawlTimeout: LivecrawlTimeout.or(z.literal(0)).optional().describe('Live-fetch timeout in ms, 0-90000.'),
  maxAgeHours: z.int().min(-1).optional().describe('0 always livecrawl, -1 never, positive: cache younger than this.'),
  filterEmptyResults: z.boolean().optional(),
  subpages: Subpages.optional(),
  subpageTarget: SubpageTarget.optional(),
}).superRefine((c, ctx) => refineContentOptions(c, ctx));

const monitorSearchShape = {
  query: z.string().min(1).max(2000).describe('The search to run on each run.'),
  numResults: z.int().min(1).max(100).default(10),
  contents: MonitorContents.optional(),
  includeDomains: DomainList.optional(),
  excludeDomains: DomainList.optional(),
};
const MONITOR_SEARCH_HINTS = {
  type: 'must not be set on a monitor search; monitors choose the search type',
  includeText: 'monitor searches have no includeText',
  excludeText: 'monitor searches have no excludeText',
};

export const MonitorSearch = wireObject(monitorSearchShape, MONITOR_SEARCH_HINTS);

/** `1h`, `6h`, `1d`: one number and one unit (hours or days), at least one hour. */
export const TriggerPeriod = z
  .string()
  .superRefine((period, ctx) => {
    const hours = parsePeriodHours(period);
    if (hours === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a whole number of hours or days in a single unit, e.g. "1h", "12h" or "1d"',
      });
      return;
    }
    if (hours < 1) ctx.addIssue({ code: 'custom', message: 'must be at least 1 hour' });
    if (hours > 366 * 24) ctx.addIssue({ code: 'custom', message: 'must be at most 366 days' });
  })
  .describe('Interval between runs: a number and one unit, h or d; at least 1h.');

export const Trigger = wireObject({ type: z.literal('interval'), period: TriggerPeriod });

/** Whether a URL carries userinfo (`user:pass@`); false for one that does not parse. */
function hasCredentials(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

/**
 * An http(s) URL without credentials (receivers authenticate Trawl by the signature, not by a password
 * in the URL). Whether it must be HTTPS and public is the operator's policy, checked by the monitors
 * service at creation and by the sender at every delivery (TRAWL_ALLOW_INSECURE_WEBHOOKS).
 */
export const WebhookUrl = z
  .url({ protocol: /^https?$/, error: required('must be an absolute https:// URL') })
  .max(2048)
  .refine((raw) => !hasCredentials(raw), {
    message:
      "must not carry credentials (user:pass@): receivers authenticate Trawl by the Svc-Signature header, an HMAC made with the monitor's webhookSecret (returned at creation); verify that instead (docs/monitors.md#webhooks)",
  });

const Webhook = wireObject({
  url: WebhookUrl.describe('HTTPS endpoint on the public internet that receives the events.'),
  events: z.array(MonitorEventType).optional().describe('Event kinds to deliver; all when omitted.'),
});

export const Metadata = z
  .record(z.string().min(1).max(100), z.unknown())
  .refine((m) => Object.keys(m).length <= 50, { message: 'at most 50 keys' })
  .refine((m) => JSON.stringify(m).length <= 16384, { message: 'at most 16 KiB as JSON' })
  .describe('Caller key-value pairs, echoed in webhook deliveries.');

export const CreateMonitorRequest = wireObject({
  name: z.string().min(1).max(200).optional(),
  search: MonitorSearch,
  trigger: Trigger.optional().describe('Omit for a manual-only monitor.'),
  outputSchema: OutputSchema.optional(),
  metadata: Metadata.optional(),
  webhook: Webhook,
});
export type CreateMonitorRequest = z.infer<typeof CreateMonitorRequest>;

export const UpdateMonitorRequest = wireObject({
  name: z.string().min(1).max(200).nullish(),
  status: z
    .enum(['active', 'paused'], { error: 'must be "active" or "paused" ("disabled" cannot be set through the API)' })
    .optional(),
  search: wireObject(
    {
      query: monitorSearchShape.query.optional(),
      numResults: z.int().min(1).max(100).optional(),
      contents: MonitorContents.optional(),
      includeDomains: DomainList.optional(),
      excludeDomains: DomainList.optional(),
    },
    MONITOR_SEARCH_HINTS,
  )
    .optional()
    .describe('Merged into the current search.'),
  trigger: Trigger.nullable().optional().describe('null removes the schedule.'),
  outputSchema: OutputSchema.nullable().optional().describe('null removes it.'),
  metadata: Metadata.nullable().optional().describe('null removes it.'),
  webhook: wireObject({ url: WebhookUrl.optional(), events: z.array(MonitorEventType).optional() })
    .optional()
    .describe('Merged into the current webhook.'),
});
export type UpdateMonitorRequest = z.infer<typeof UpdateMonitorRequest>;

export const Monitor = z.object({
  id: z.string(),
  name: z.string().nullable(),
  status: MonitorStatus,
  search: z.record(z.string(), z.unknown()),
  trigger: z.object({ type: z.literal('interval'), period: z.string() }).nullable(),
  outputSchema: z.record(z.string(), z.unknown()).nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  webhook: z.object({ url: z.string(), events: z.array(MonitorEventType).optional() }),
  nextRunAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Monitor = z.infer<typeof Monitor>;

export const CreatedMonitor = Monitor.extend({
  webhookSecret: z.string().describe('Signing secret of the webhook; returned only here.'),
});

export const MonitorRun = z.object({
  id: z.string(),
  monitorId: z.string(),
  status: MonitorRunStatus,
  output: z
    .object({
      results: z.array(SearchResult),
      content: z.union([z.string(), z.record(z.string(), z.unknown())]),
      grounding: z.array(Grounding),
    })
    .nullable(),
  failReason: FailReason.nullable(),
  startedAt: Timestamp.nullable(),
  completedAt: Timestamp.nullable(),
  failedAt: Timestamp.nullable(),
  cancelledAt: Timestamp.nullable(),
  durationMs: z.int().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type MonitorRun = z.infer<typeof MonitorRun>;

export const MonitorEvent = z.object({
  id: z.string(),
  object: z.literal('event'),
  type: MonitorEventType,
  data: z.record(z.string(), z.unknown()),
  createdAt: Timestamp,
});

export const MonitorIdParams = z.object({ id: z.string().min(1).max(64).describe('Monitor id.') });
export const MonitorRunParams = MonitorIdParams.extend({ runId: z.string().min(1).max(64).describe('Run id.') });
export const ListMonitorsQuery = z.object({ status: MonitorStatus.optional(), ...PageQuery });
export const ListRunsQuery = z.object({ ...PageQuery });

const page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), hasMore: z.boolean(), nextCursor: z.string().nullable() });
export const MonitorList = page(Monitor);
export const MonitorRunList = page(MonitorRun);
export const TriggerResponse = z.object({ triggered: z.literal(true) });

/** One webhook delivery of a monitor's events, with its attempts (a Trawl extension: docs/monitors.md). */
export const WebhookDelivery = z.object({
  eventId: z.string(),
  type: MonitorEventType,
  url: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.array(
    z.object({
      at: Timestamp,
      status: z.int().nullable().describe("The receiver's HTTP status; null when none came."),
      error: z.string().nullable(),
      durationMs: z.int(),
    }),
  ),
  nextAttemptAt: Timestamp.nullable(),
  lastError: z.string().nullable(),
  createdAt: Timestamp,
  deliveredAt: Timestamp.nullable(),
});
export const WebhookDeliveryList = page(WebhookDelivery);
