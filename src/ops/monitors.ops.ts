/** Monitor operations: /monitors and its runs. Errors on these routes are `{error}` bodies. */
import { defineOp, notBuilt, type ToolHints } from './define-op.js';
import { renderPage, renderRecord } from './render.js';
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
} from '../schemas/monitors.schema.js';

const READ: ToolHints = { readOnlyHint: true, openWorldHint: false };
const common = { capability: 'monitors' as const, errorBody: 'simple' as const, run: notBuilt('monitors') };
const monitorLine = (m: Record<string, unknown>) =>
  `${String(m.id)}  ${String(m.status)}  ${String(m.name ?? '(unnamed)')}  next run: ${String(m.nextRunAt ?? 'manual')}`;
const runLine = (r: Record<string, unknown>) =>
  `${String(r.id)}  ${String(r.status)}${r.failReason ? ` (${String(r.failReason)})` : ''}  created ${String(r.createdAt)}`;

export const createMonitorOp = defineOp({
  ...common,
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
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  render: (m) => renderRecord(`Monitor ${m.id} created. Store webhookSecret now; it is not shown again.`, m),
});

export const listMonitorsOp = defineOp({
  ...common,
  name: 'monitors.list',
  tool: 'list_monitors',
  title: 'List monitors',
  description: 'List monitors, newest first, optionally by status; paginate with cursor.',
  route: { method: 'GET', path: '/monitors' },
  query: ListMonitorsQuery,
  output: MonitorList,
  annotations: READ,
  render: (page) => renderPage('Monitors:', page, monitorLine),
});

export const getMonitorOp = defineOp({
  ...common,
  name: 'monitors.get',
  tool: 'get_monitor',
  title: 'Get a monitor',
  description: 'Get one monitor by id.',
  route: { method: 'GET', path: '/monitors/:id' },
  params: MonitorIdParams,
  output: Monitor,
  annotations: READ,
  render: (m) => renderRecord(`Monitor ${m.id}`, m),
});

export const updateMonitorOp = defineOp({
  ...common,
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
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  render: (m) => renderRecord(`Monitor ${m.id} updated.`, m),
});

export const deleteMonitorOp = defineOp({
  ...common,
  name: 'monitors.delete',
  tool: 'delete_monitor',
  title: 'Delete a monitor',
  description: 'Delete a monitor and stop its schedule. Returns the deleted monitor.',
  route: { method: 'DELETE', path: '/monitors/:id' },
  params: MonitorIdParams,
  output: Monitor,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  render: (m) => renderRecord(`Monitor ${m.id} deleted.`, m),
});

export const triggerMonitorOp = defineOp({
  ...common,
  name: 'monitors.trigger',
  tool: 'trigger_monitor',
  title: 'Run a monitor now',
  description: 'Start a run of an active or paused monitor immediately, regardless of its schedule.',
  route: { method: 'POST', path: '/monitors/:id/trigger' },
  params: MonitorIdParams,
  output: TriggerResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  render: () => 'Run started. Follow it with list_monitor_runs.',
});

export const listMonitorRunsOp = defineOp({
  ...common,
  name: 'monitors.runs.list',
  tool: 'list_monitor_runs',
  title: 'List monitor runs',
  description: "List a monitor's runs, newest first; paginate with cursor.",
  route: { method: 'GET', path: '/monitors/:id/runs' },
  params: MonitorIdParams,
  query: ListRunsQuery,
  output: MonitorRunList,
  annotations: READ,
  render: (page) => renderPage('Runs:', page, runLine),
});

export const getMonitorRunOp = defineOp({
  ...common,
  name: 'monitors.runs.get',
  tool: 'get_monitor_run',
  title: 'Get a monitor run',
  description: 'Get one run of a monitor, with its output when completed.',
  route: { method: 'GET', path: '/monitors/:id/runs/:runId' },
  params: MonitorRunParams,
  output: MonitorRun,
  annotations: READ,
  render: (r) => renderRecord(`Run ${r.id} of monitor ${r.monitorId}`, r),
});
