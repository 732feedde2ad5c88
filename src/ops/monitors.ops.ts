/**
 * Monitor operations: /monitors and its runs. Errors on these routes are `{error}` bodies. The wire
 * objects map to the core's domain types (src/core/monitors/monitors.types.ts) by the typed identities
 * below: the compiler checks that each wire shape and its domain type agree.
 */
import type { z } from 'zod';
import type * as Domain from '../core/monitors/monitors.types.js';
import { defineOp } from './define-op.js';
import { byId, groupActions, READ_ONLY, writes } from './families.js';
import { plainAnswer } from './reply.js';
import { recordAnswer, renderPage, renderRecord } from './render.js';
import { str, type ToolGroupText } from './tool-text.js';
import {
  CreateMonitorRequest,
  CreatedMonitor,
  ListMonitorsQuery,
  ListRunsQuery,
  Monitor,
  MonitorIdParams,
  MonitorList,
  MonitorRun,
  MonitorRunList,
  MonitorRunParams,
  TriggerResponse,
  UpdateMonitorRequest,
  WebhookDeliveryList,
} from '../schemas/monitors.schema.js';

type WireRun = z.input<typeof MonitorRun>;

/** A validated create body, as the core takes it (the same shape). */
const toCreate = (body: z.infer<typeof CreateMonitorRequest>): Domain.CreateMonitorInput => body;
/** A validated update body, as the core takes it (the same shape). */
const toUpdate = (body: z.infer<typeof UpdateMonitorRequest>): Domain.UpdateMonitorInput => body;
/** A monitor on the wire (the same shape). */
const wireMonitor = <M extends Domain.Monitor>(m: M): M & z.input<typeof Monitor> => m;
/** A run on the wire: its output holds the search results it stored, which the core keeps as plain records. */
const wireRun = (r: Domain.MonitorRun): WireRun => ({ ...r, output: r.output as WireRun['output'] });
/** A page of the core's items on the wire, each mapped by `wire`. */
const wirePage = <T, W>(page: Domain.Page<T>, wire: (item: T) => W) => ({ ...page, data: page.data.map(wire) });
/** A page of deliveries on the wire (the same shape). */
const wireDeliveries = (p: Domain.Page<Domain.DeliveryView>): z.input<typeof WebhookDeliveryList> => p;

/** The one MCP tool of the monitor operations; each is an `action` of it (docs/mcp.md). */
export const monitorsTool: ToolGroupText = {
  name: 'monitors',
  title: 'Monitors',
  description:
    'Scheduled searches that post new results to a signed HTTPS webhook. Actions: create (search, webhook, ' +
    'trigger; answers webhookSecret once), list, get, update, delete, trigger (run now), list_runs, get_run, ' +
    'list_deliveries. Other arguments as in the REST API (resource trawl://tools/monitors).',
  args: {
    id: str('Monitor id.'),
    runId: str(),
    search: { type: 'object', description: '{"query": "...", "numResults": 10}' },
    trigger: { type: ['object', 'null'], description: '{"type": "interval", "period": "1d"}' },
    webhook: { type: 'object', description: '{"url": "https://..."}' },
    status: { enum: ['active', 'paused'] },
    cursor: str(),
  },
};
/**
 * The actions of `monitors` and what each does to a monitor and its runs and deliveries, which every key
 * of the monitor's team reaches (core/access); errors on these routes are `{error}` bodies.
 */
const monitor = groupActions(
  { capability: 'monitors', resource: 'monitor', tool: monitorsTool, errorBody: 'simple' },
  {
    create: 'create',
    list: 'list',
    get: 'read',
    update: 'change',
    delete: 'delete',
    trigger: 'change',
    list_runs: 'list',
    get_run: 'read',
    list_deliveries: 'list',
  },
);
const monitorLine = (m: Record<string, unknown>) =>
  `${String(m.id)}  ${String(m.status)}  ${String(m.name ?? '(unnamed)')}  next run: ${String(m.nextRunAt ?? 'manual')}`;
const runLine = (r: Record<string, unknown>) =>
  `${String(r.id)}  ${String(r.status)}${r.failReason ? ` (${String(r.failReason)})` : ''}  created ${String(r.createdAt)}`;

export const createMonitorOp = defineOp({
  ...monitor.create,
  name: 'monitors.create',
  tool: 'create_monitor',
  title: 'Create a monitor',
  description:
    'Create a scheduled search (`trigger.period` such as "1d") whose new results are delivered to an HTTPS ' +
    'webhook, signed with the returned `webhookSecret` (shown only once). Omit trigger for manual runs.',
  route: { method: 'POST', path: '/monitors' },
  body: CreateMonitorRequest,
  output: CreatedMonitor,
  successStatus: 201,
  annotations: writes('open-world'),
  render: (m) =>
    plainAnswer(renderRecord(`Monitor ${m.id} created. Store webhookSecret now; it is not shown again.`, m), m),
  uses: ['monitors'],
  run: async (services, input, ctx) => wireMonitor(await services.monitors.create(toCreate(input), ctx.caller)),
  // a monitor keeps its query and outputs: not for zero-retention teams
  retainsContent: true,
});

export const listMonitorsOp = defineOp({
  ...monitor.list,
  name: 'monitors.list',
  tool: 'list_monitors',
  title: 'List monitors',
  description: 'List monitors, newest first, optionally by status; paginate with cursor.',
  route: { method: 'GET', path: '/monitors' },
  query: ListMonitorsQuery,
  output: MonitorList,
  annotations: READ_ONLY,
  render: renderPage('Monitors:', monitorLine),
  uses: ['monitors'],
  run: async (services, input, ctx) => wirePage(await services.monitors.list(input, ctx.caller), wireMonitor),
});

export const getMonitorOp = defineOp({
  ...monitor.get,
  name: 'monitors.get',
  tool: 'get_monitor',
  title: 'Get a monitor',
  description: 'Get one monitor by id.',
  route: { method: 'GET', path: '/monitors/:id' },
  params: MonitorIdParams,
  output: Monitor,
  annotations: READ_ONLY,
  render: (m) => plainAnswer(renderRecord(`Monitor ${m.id}`, m), m),
  uses: ['monitors'],
  run: byId('monitors', 'get', wireMonitor),
});

export const updateMonitorOp = defineOp({
  ...monitor.update,
  name: 'monitors.update',
  tool: 'update_monitor',
  title: 'Update a monitor',
  description:
    'Change a monitor: pause or resume (`status`), rename, change the search (merged), schedule ' +
    '(`trigger`, null for manual-only), output schema, metadata or webhook (merged).',
  route: { method: 'PATCH', path: '/monitors/:id' },
  params: MonitorIdParams,
  body: UpdateMonitorRequest,
  output: Monitor,
  annotations: writes('idempotent'),
  render: (m) => plainAnswer(renderRecord(`Monitor ${m.id} updated.`, m), m),
  uses: ['monitors'],
  run: async (services, { id, ...patch }, ctx) =>
    wireMonitor(await services.monitors.update(id, toUpdate(patch), ctx.caller)),
});

export const deleteMonitorOp = defineOp({
  ...monitor.delete,
  name: 'monitors.delete',
  tool: 'delete_monitor',
  title: 'Delete a monitor',
  description: 'Delete a monitor and stop its schedule. Returns the deleted monitor.',
  route: { method: 'DELETE', path: '/monitors/:id' },
  params: MonitorIdParams,
  output: Monitor,
  annotations: writes('destructive', 'idempotent'),
  render: (m) => plainAnswer(renderRecord(`Monitor ${m.id} deleted.`, m), m),
  uses: ['monitors'],
  run: byId('monitors', 'delete', wireMonitor),
});

export const triggerMonitorOp = defineOp({
  ...monitor.trigger,
  name: 'monitors.trigger',
  tool: 'trigger_monitor',
  title: 'Run a monitor now',
  description: 'Start a run of an active or paused monitor immediately, regardless of its schedule.',
  route: { method: 'POST', path: '/monitors/:id/trigger' },
  params: MonitorIdParams,
  output: TriggerResponse,
  annotations: writes('open-world'),
  render: (out) => plainAnswer('Run started. Follow it with the list_runs action.', out),
  uses: ['monitors'],
  run: byId('monitors', 'trigger'),
});

export const listMonitorRunsOp = defineOp({
  ...monitor.list_runs,
  name: 'monitors.runs.list',
  tool: 'list_monitor_runs',
  title: 'List monitor runs',
  description: "List a monitor's runs, newest first; paginate with cursor.",
  route: { method: 'GET', path: '/monitors/:id/runs' },
  params: MonitorIdParams,
  query: ListRunsQuery,
  output: MonitorRunList,
  annotations: READ_ONLY,
  render: renderPage('Runs:', runLine),
  uses: ['monitors'],
  run: async (services, { id, ...query }, ctx) =>
    wirePage(await services.monitors.runs(id, query, ctx.caller), wireRun),
});

export const getMonitorRunOp = defineOp({
  ...monitor.get_run,
  name: 'monitors.runs.get',
  tool: 'get_monitor_run',
  title: 'Get a monitor run',
  description: 'Get one run of a monitor, with its output when completed.',
  route: { method: 'GET', path: '/monitors/:id/runs/:runId' },
  params: MonitorRunParams,
  output: MonitorRun,
  annotations: READ_ONLY,
  render: (r) => recordAnswer(`Run ${r.id} of monitor ${r.monitorId}`, r, 'output', 'monitor run output'),
  uses: ['monitors'],
  run: async (services, input, ctx) => wireRun(await services.monitors.run(input.id, input.runId, ctx.caller)),
});

const deliveryLine = (d: Record<string, unknown>) =>
  `${String(d.eventId)}  ${String(d.type)}  ${String(d.status)}  attempts: ${(d.attempts as unknown[]).length}` +
  (d.lastError ? `  last error: ${String(d.lastError)}` : '');

export const listWebhookDeliveriesOp = defineOp({
  ...monitor.list_deliveries,
  name: 'monitors.deliveries.list',
  tool: 'list_monitor_deliveries',
  title: 'List webhook deliveries',
  description:
    "List a monitor's webhook deliveries, newest first, with every attempt (status, error, time); " +
    'paginate with cursor. A Trawl extension of the API.',
  route: { method: 'GET', path: '/monitors/:id/deliveries' },
  params: MonitorIdParams,
  query: ListRunsQuery,
  output: WebhookDeliveryList,
  annotations: READ_ONLY,
  render: renderPage('Webhook deliveries:', deliveryLine),
  uses: ['monitors'],
  run: async (services, { id, ...query }, ctx) =>
    wireDeliveries(await services.monitors.deliveries(id, query, ctx.caller)),
});
