/** /agent/runs: create, list, events, and the AgentRun object. */
import { z } from 'zod';
import { Timestamp, wireObject } from './common.schema.js';
import { checkJsonSchema } from './json-schema.js';
import { Metadata } from './monitors.schema.js';

export const Effort = z
  .enum(['minimal', 'low', 'medium', 'high', 'xhigh', 'auto', 'max'])
  .describe(
    'minimal $0.012, low $0.025, medium $0.10, high $0.50, xhigh $1.00 per request; auto metered (cap $5); max beta, metered (cap $20).',
  );

export const AgentRunStatus = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);

const Row = z.record(z.string(), z.unknown());

export const CreateAgentRunRequest = wireObject({
  query: z.string().min(1).max(20000).describe('The task.'),
  outputSchema: z
    .record(z.string(), z.unknown())
    .superRefine(checkJsonSchema)
    .optional()
    .describe('JSON Schema for output.structured. Bound arrays with maxItems; make unverifiable fields nullable.'),
  systemPrompt: z.string().max(20000).optional().describe('Instructions for the run.'),
  effort: Effort.default('auto'),
  budget: wireObject({
    maxCostDollars: z.number().min(1).max(100).describe('Cost ceiling in dollars, 1-100.'),
  })
    .optional()
    .describe('Only for effort auto or max.'),
  input: wireObject({
    data: z.array(Row).max(1000).optional().describe('Existing rows to enrich or expand.'),
    exclusion: z.array(Row).max(1000).optional().describe('Entries that must not be surfaced.'),
  }).optional(),
  dataSources: z
    .array(z.object({ provider: z.string().min(1).max(100) }).loose())
    .max(20)
    .optional()
    .describe('Data partners the run may use.'),
  previousRunId: z.string().min(1).max(64).optional().describe('Continue from this run (a new run is created).'),
  stream: z.boolean().optional().describe('Stream events; over HTTP, `Accept: text/event-stream` does the same.'),
  metadata: Metadata.optional(),
}).superRefine((req, ctx) => {
  if (req.budget && req.effort !== 'auto' && req.effort !== 'max') {
    ctx.addIssue({
      code: 'custom',
      path: ['budget', 'maxCostDollars'],
      message: `only allowed with effort "auto" or "max"; effort "${req.effort}" has a fixed price`,
    });
  }
});
export type CreateAgentRunRequest = z.infer<typeof CreateAgentRunRequest>;

export const AgentRun = z
  .object({
    id: z.string(),
    status: AgentRunStatus,
    createdAt: Timestamp,
    updatedAt: Timestamp.optional(),
    request: z.record(z.string(), z.unknown()).describe('The original request, including query.'),
    output: z
      .object({
        text: z.string().optional(),
        structured: z.unknown().optional(),
        grounding: z.array(z.record(z.string(), z.unknown())).optional(),
      })
      .nullable()
      .optional(),
    costDollars: z.record(z.string(), z.unknown()).optional(),
    usage: z.object({ agentComputeUnits: z.number() }).loose().optional(),
    error: z.object({ code: z.string(), message: z.string() }).nullable().optional(),
  })
  .loose();
export type AgentRun = z.infer<typeof AgentRun>;

export const DeletedAgentRun = z.object({ id: z.string(), object: z.literal('agent_run'), deleted: z.literal(true) });

export const AgentRunIdParams = z.object({ id: z.string().min(1).max(64).describe('Agent run id.') });

export const ListAgentRunsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1-100.'),
  cursor: z.string().min(1).max(512).optional().describe('`nextCursor` of the previous page.'),
});

export const AgentRunList = z.object({
  data: z.array(AgentRun.pick({ id: true, status: true, createdAt: true, request: true }).loose()),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
});

export const AgentEvent = z.object({
  id: z.int().describe('Sequence number; send as Last-Event-ID to resume.'),
  event: z.string(),
  data: z.record(z.string(), z.unknown()),
  createdAt: Timestamp,
});

export const ListAgentEventsQuery = z.object({
  cursor: z.string().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const AgentEventList = z.object({
  data: z.array(AgentEvent),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
});
