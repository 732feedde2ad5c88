/**
 * The web console's own routes under /console/api (Trawl's, not the spec's; docs/console-api.md): usage
 * as a series, the operator's background jobs (crawl, import, code index), a webhook delivery retried,
 * the caller's MCP tasks. Each field says what it is; the ranges are the core's (src/core/).
 */
import { z } from 'zod';
import { CRAWL_BOUNDS } from '../core/crawl/crawl.types.js';
import { isCalendarDate, rangeProblem } from '../core/accounts/usage-series.js';
import { PageQuery, Timestamp, wireObject } from './common.schema.js';

const page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), hasMore: z.boolean(), nextCursor: z.string().nullable() });

const Day = z
  .string()
  .refine(isCalendarDate, 'must be a date written YYYY-MM-DD')
  .describe('A UTC day, YYYY-MM-DD (included).');

export const UsageSeriesQuery = wireObject({
  from: Day.optional().describe('First UTC day, YYYY-MM-DD; default: 29 days before `to`.'),
  to: Day.optional().describe('Last UTC day, YYYY-MM-DD; default: today.'),
  teamId: z.string().min(1).max(100).optional().describe('Only this team (its id or name); default: every team the key sees.'), // prettier-ignore
}).superRefine((q, ctx) => {
  // the core applies the same rule after its defaults (one rule: core/accounts/usage-series.ts)
  const problem = q.from && q.to ? rangeProblem(q.from, q.to) : undefined;
  if (problem) ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
});

export const UsageSeries = z.object({
  from: z.string().describe('First day of the series (UTC).'),
  to: z.string().describe('Last day of the series (UTC).'),
  data: z.array(
    z.object({
      day: z.string(),
      teamId: z.string(),
      team: z.string(),
      keyId: z.string().describe('The key; "" for calls without a key (the local process), "x402" for x402 payments.'),
      keyName: z.string(),
      operation: z.string().describe('The operation as usage names it (`search`, `contents`, …).'),
      requests: z.int().describe('Metered requests, as `GET /admin/usage` counts them.'),
      spent: z.number().describe('Dollars.'),
      p50Ms: z.int().nullable().describe('Median duration in ms (a bucket’s upper bound, within 20 %); null: none recorded.'), // prettier-ignore
      p95Ms: z.int().nullable().describe('95th-percentile duration in ms, as p50Ms.'),
    }),
  ),
});

const HttpUrl = z
  .string()
  .max(2048)
  .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'must be an http(s) URL');
const Pattern = z.string().min(1).max(500);

export const StartCrawlRequest = wireObject({
  urls: z.array(HttpUrl).min(1).max(100).describe('Seed URLs; the crawl follows same-site links and sitemaps.'),
  maxPages: z
    .int()
    .min(CRAWL_BOUNDS.limit.min)
    .max(CRAWL_BOUNDS.limit.max)
    .optional()
    .describe(`Pages attempted at most, resumed runs included (default ${CRAWL_BOUNDS.limit.default}).`),
  maxDepth: z
    .int()
    .min(CRAWL_BOUNDS.depth.min)
    .max(CRAWL_BOUNDS.depth.max)
    .optional()
    .describe(`Link hops from a seed; 0: the seeds only (default ${CRAWL_BOUNDS.depth.default}).`),
  include: z.array(Pattern).max(50).optional().describe('Only URLs matching one of these globs.'),
  exclude: z.array(Pattern).max(50).optional().describe('No URL matching one of these globs.'),
});

export const ImportQuery = wireObject({
  collection: z
    .string()
    .min(1)
    .max(200)
    .default('upload')
    .describe('Collection of the documents (records without a `url` get `import://<collection>/<_id>`).'),
});

export const StartCodeIndexRequest = wireObject({
  path: z.string().min(1).max(4096).describe('Absolute path of a folder on the server.'),
  name: z.string().min(1).max(200).optional().describe("The source's name in locations; default: the folder's name."),
});

const Progress = z.object({
  done: z.int(),
  total: z.int().nullable().describe('null: not known yet (an import reads until the file ends).'),
  failed: z.int(),
  message: z.string().nullable(),
});

export const OperatorJob = z.object({
  id: z.string(),
  kind: z.enum(['crawl', 'import', 'code']),
  state: z
    .enum(['running', 'completed', 'failed', 'interrupted'])
    .describe('interrupted: the server running it stopped (or died) before it finished.'),
  input: z.record(z.string(), z.unknown()).describe('What was asked.'),
  progress: Progress,
  result: z.record(z.string(), z.unknown()).nullable().describe('What the job did, once it ended.'),
  error: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  crawl: z
    .object({
      counts: z.object({ queued: z.int(), done: z.int(), failed: z.int() }),
      failuresByTag: z.record(z.string(), z.int()),
      failures: z
        .array(
          z.object({
            url: z.string(),
            tag: z.string(),
            error: z.string().nullable(),
            httpStatusCode: z.int().nullable(),
          }),
        ) // prettier-ignore
        .describe('The first 50 failed URLs.'),
      frontier: z.array(z.object({ url: z.string(), depth: z.int() })).describe('The next 20 URLs to visit.'),
    })
    .nullable()
    .optional()
    .describe("A crawl's frontier as it stands now (crawl jobs only)."),
});
export const OperatorJobList = page(OperatorJob);
export const JobParams = z.object({ id: z.string().min(1).max(64).describe('Job id.') });
export const JobListQuery = wireObject({ ...PageQuery, limit: PageQuery.limit.default(20) });

export const DeliveryRetryParams = z.object({
  id: z.string().min(1).max(64).describe('Monitor id.'),
  deliveryId: z.string().min(1).max(64).describe('The delivery’s `eventId` (GET /monitors/{id}/deliveries).'),
});

export const TaskListQuery = wireObject({ ...PageQuery, limit: PageQuery.limit.default(20) });
export const McpTaskList = page(
  z.object({
    taskId: z.string(),
    status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
    tool: z.string(),
    statusMessage: z.string().nullable(),
    createdAt: Timestamp,
    lastUpdatedAt: Timestamp,
    runId: z.string().nullable().describe('The agent run the task follows (GET /console/api/agent/runs/{id}/events).'),
  }),
);
