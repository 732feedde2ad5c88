/**
 * The web console's own routes under /console/api (REST only, not MCP tools; docs/console-api.md): usage
 * per day, key and operation with latency; the operator's background jobs (a crawl, an import of an
 * uploaded JSONL file, a code index of a server folder) and their progress; a failed webhook delivery
 * queued again; the caller's MCP tasks; an agent run's events followed live. Each acts on a resource of
 * the core's one rule (src/core/access), like every operation.
 */
import type { z } from 'zod';
import { ownerKeyId } from '../core/access/access.js';
import { decodeCursor, toPage } from '../core/cursors.js';
import type { TaskRow } from '../core/jobs/tasks.js';
import type { OperatorJob as Job } from '../core/operator/operator-jobs.types.js';
import { ServiceError } from '../errors.js';
import { AgentRun, AgentRunIdParams } from '../schemas/agent-runs.schema.js';
import {
  DeliveryRetryParams,
  ImportQuery,
  JobListQuery,
  JobParams,
  McpTaskList,
  OperatorJob,
  OperatorJobList,
  StartCodeIndexRequest,
  StartCrawlRequest,
  TaskListQuery,
  UsageSeries,
  UsageSeriesQuery,
} from '../schemas/console.schema.js';
import { WebhookDelivery } from '../schemas/monitors.schema.js';
import { defineOp } from './define-op.js';
import { actingOn } from './families.js';
import { plainAnswer } from './reply.js';
import { renderRecord } from './render.js';

const REST_ONLY = { restOnly: true };
/** A team's spend and latency: `admin:team` for its own team, `admin` for every team (as /admin/usage). */
const usage = actingOn('admin:team', 'usage', REST_ONLY);
/** The installation's background jobs: `admin` only. */
const jobs = actingOn('admin', 'operatorJob', REST_ONLY);
/** A monitor's deliveries: every key of its team with `monitors` (errors in the standard envelope, with a tag). */
const monitor = actingOn('monitors', 'monitor', REST_ONLY);
/** An agent run and its events: the key that made it, with `agent`. */
const agentRun = actingOn('agent', 'agentRun', REST_ONLY);
const json = (title: string) => (out: unknown) =>
  plainAnswer(renderRecord(title, out as Record<string, unknown>), out as Record<string, unknown>);

/** A job on the wire (the same shape as the core's). */
const wireJob = (job: Job): z.input<typeof OperatorJob> => job;

/** GET /console/api/usage/series. */
export const usageSeriesOp = defineOp({
  ...usage.list,
  name: 'console.usage.series',
  tool: 'console_usage_series',
  title: 'Usage per day',
  description:
    'Requests, spend and latency (p50, p95) per UTC day, key and operation, over a range of days (default the ' +
    "last 30): the numbers /admin/usage sums (a team admin's key: its team).",
  route: { method: 'GET', path: '/console/api/usage/series' },
  query: UsageSeriesQuery,
  output: UsageSeries,
  render: json('Usage per day'),
  uses: ['accounts'],
  run: (services, { teamId, ...range }, ctx) => services.accounts.teams.series({ ...range, team: teamId }, ctx.caller),
});

/** POST /console/api/crawls. */
export const startCrawlOp = defineOp({
  ...jobs.create,
  name: 'console.crawls.create',
  tool: 'console_start_crawl',
  title: 'Start a crawl',
  description:
    'Crawl sites into the index in the background (as `trawl crawl`): answers 202 with the job at once; follow it ' +
    'at GET /console/api/jobs/{id}. The same URLs and scope resume an unfinished crawl.',
  route: { method: 'POST', path: '/console/api/crawls' },
  body: StartCrawlRequest,
  output: OperatorJob,
  successStatus: 202,
  render: json('Crawl started'),
  uses: ['operatorJobs'],
  run: async (services, input, ctx) => wireJob(await services.operatorJobs.startCrawl(input, ctx.caller)),
});

/** POST /console/api/imports. */
export const startImportOp = defineOp({
  ...jobs.create,
  name: 'console.imports.create',
  tool: 'console_start_import',
  title: 'Import a JSONL file',
  description:
    'Import documents from a JSONL file sent as the body (`application/x-ndjson`, optionally gzipped; the records ' +
    '`trawl import` reads), in the background: answers 202 with the job once the whole file arrived (413 past ' +
    'TRAWL_IMPORT_MAX_BYTES).',
  route: { method: 'POST', path: '/console/api/imports' },
  query: ImportQuery,
  upload: {
    mediaType: 'application/x-ndjson',
    description: 'JSONL: one record per line, `{"url"|"_id", "title", "text", …}` (docs/import.md).',
  },
  output: OperatorJob,
  successStatus: 202,
  render: json('Import started'),
  uses: ['operatorJobs'],
  run: async (services, { upload, collection }, ctx) => {
    if (!upload) throw new ServiceError('INVALID_REQUEST_BODY', 'the body must be the JSONL file (application/x-ndjson)'); // prettier-ignore
    return wireJob(await services.operatorJobs.startImport({ upload, collection }, ctx.caller));
  },
});

/** POST /console/api/code. */
export const startCodeIndexOp = defineOp({
  ...jobs.create,
  name: 'console.code.create',
  tool: 'console_start_code_index',
  title: 'Index a folder of code',
  description:
    'Index a folder on the server into the code index for /context (as `trawl index PATH`), in the background: ' +
    'answers 202 with the job at once; only what changed since its last index is read again.',
  route: { method: 'POST', path: '/console/api/code' },
  body: StartCodeIndexRequest,
  output: OperatorJob,
  successStatus: 202,
  render: json('Code index started'),
  uses: ['operatorJobs'],
  run: async (services, input, ctx) => wireJob(await services.operatorJobs.startCode(input, ctx.caller)),
});

/** GET /console/api/jobs. */
export const listJobsOp = defineOp({
  ...jobs.list,
  name: 'console.jobs.list',
  tool: 'console_list_jobs',
  title: 'List operator jobs',
  description: 'Crawls, imports and code indexes started from the console, newest first, with their progress.',
  route: { method: 'GET', path: '/console/api/jobs' },
  query: JobListQuery,
  output: OperatorJobList,
  render: json('Operator jobs'),
  uses: ['operatorJobs'],
  run: async (services, query, ctx) => {
    const page = await services.operatorJobs.list(query, ctx.caller);
    return { ...page, data: page.data.map(wireJob) };
  },
});

/** GET /console/api/jobs/:id. */
export const getJobOp = defineOp({
  ...jobs.read,
  name: 'console.jobs.get',
  tool: 'console_get_job',
  title: 'Get an operator job',
  description: "A job with its progress, result or error; a crawl's with its frontier (counts, failures, next URLs).",
  route: { method: 'GET', path: '/console/api/jobs/:id' },
  params: JobParams,
  output: OperatorJob,
  render: json('Operator job'),
  uses: ['operatorJobs'],
  run: async (services, { id }, ctx) => wireJob(await services.operatorJobs.get(id, ctx.caller)),
});

/** POST /console/api/monitors/:id/deliveries/:deliveryId/retry. */
export const retryDeliveryOp = defineOp({
  ...monitor.change,
  name: 'console.deliveries.retry',
  tool: 'console_retry_delivery',
  title: 'Retry a webhook delivery',
  description:
    'Queue a failed (or given-up) webhook delivery of a monitor again for an attempt now; answers 202 with the ' +
    'delivery. One already delivered is refused (400).',
  route: { method: 'POST', path: '/console/api/monitors/:id/deliveries/:deliveryId/retry' },
  params: DeliveryRetryParams,
  output: WebhookDelivery,
  successStatus: 202,
  render: json('Delivery queued'),
  uses: ['monitors'],
  run: (services, { id, deliveryId }, ctx): Promise<z.input<typeof WebhookDelivery>> =>
    services.monitors.retryDelivery(id, deliveryId, ctx.caller),
});

/** A task row as the console lists it. */
const taskItem = (row: TaskRow) => ({
  taskId: row.id,
  status: row.status,
  tool: row.tool,
  statusMessage: row.status_message,
  createdAt: row.created_at,
  lastUpdatedAt: row.last_updated_at,
  runId: row.run_id,
});

/** GET /console/api/tasks. */
export const listTasksOp = defineOp({
  capability: undefined, // any key: what it lists is the caller's own
  access: { resource: 'mcpTask', verb: 'list' },
  ...REST_ONLY,
  name: 'console.tasks.list',
  tool: 'console_list_tasks',
  title: 'List my MCP tasks',
  description:
    "The calling key's MCP tasks (tool calls run as tasks), newest first; a task whose server stopped reads failed.",
  route: { method: 'GET', path: '/console/api/tasks' },
  query: TaskListQuery,
  output: McpTaskList,
  render: json('MCP tasks'),
  uses: ['tasks'],
  run: async (services, { cursor, limit }, ctx) => {
    // the owner the MCP door gives a caller's tasks (core/access: its key alone), as tasks/list reads them
    const rows = await services.tasks.page(ownerKeyId(ctx.caller), decodeCursor('t', cursor), limit + 1);
    const settled = await Promise.all(rows.map((row) => services.tasks.settleLapsed(row)));
    return toPage('t', settled, limit, taskItem);
  },
});

/** GET /console/api/agent/runs/:id/events. */
export const followAgentRunOp = defineOp({
  ...agentRun.list,
  name: 'console.agent.events',
  tool: 'console_follow_agent_run',
  title: 'Follow an agent run',
  description:
    "An agent run's events as a text/event-stream from Last-Event-ID, following a running run live until it " +
    'ends (the spec’s /agent/runs/{id}/events replays only what is stored).',
  route: { method: 'GET', path: '/console/api/agent/runs/:id/events' },
  params: AgentRunIdParams,
  output: AgentRun,
  render: json('Agent run'),
  uses: ['agentRuns'],
  // the run is read first, as its owner: another key's is 404 before any event is sent
  run: (services, { id }, ctx) => services.agentRuns.get(id, ctx.caller),
  events: {
    only: true,
    when: () => true,
    events: (services, { id }, _run, ctx, lastEventId) =>
      services.agentRuns.stream(id, ctx.caller, { afterId: lastEventId, follow: true, signal: ctx.signal }),
  },
});

/** The console's operations, as the registry lists them. */
export const CONSOLE_OPERATIONS = [
  usageSeriesOp,
  startCrawlOp,
  startImportOp,
  startCodeIndexOp,
  listJobsOp,
  getJobOp,
  retryDeliveryOp,
  listTasksOp,
  followAgentRunOp,
];
