/**
 * The request side of the OpenAI-style Responses interface (model `svc-agent`): the request subset it
 * takes, its mapping onto an agent run's input, and agent-run errors retold with the Responses field
 * names. ./events.ts maps runs back onto Response objects; docs/responses.md is the contract.
 */
import { z } from 'zod';
import { ServiceError } from '../../errors.js';
import type { CreateAgentRunRequest } from '../../schemas/agent-runs.schema.js';
import { wireObject } from '../../schemas/common.schema.js';

export const RESPONSES_MODEL = 'svc-agent';
const MAX_TEXT = 20_000; // the agent run's own limits on query and systemPrompt
const SOURCES_INCLUDE = 'web_search_call.action.sources';

const unsupported = (why: string) => `not supported by ${RESPONSES_MODEL}: ${why} (docs/responses.md)`;
const NO_TOOLS = unsupported("it researches with Trawl's own search and takes no tools");
const NO_HISTORY = unsupported('each response is a new agent run; send the whole task in input');
const NO_SAMPLING = unsupported('the research loop sets its own model settings');
/** Fields of OpenAI's request that svc-agent refuses, with the reason given back. Others: unknown. */
const REFUSED: Record<string, string> = {
  tools: NO_TOOLS,
  tool_choice: NO_TOOLS,
  parallel_tool_calls: NO_TOOLS,
  max_tool_calls: NO_TOOLS,
  previous_response_id: NO_HISTORY,
  conversation: NO_HISTORY,
  context_management: NO_HISTORY,
  prompt: unsupported('stored prompt templates do not exist here; send instructions and input'),
  temperature: NO_SAMPLING,
  top_p: NO_SAMPLING,
  top_logprobs: NO_SAMPLING,
  max_output_tokens: NO_SAMPLING,
  truncation: NO_SAMPLING,
  service_tier: unsupported('there is one tier'),
  prompt_cache_key: unsupported('there is no prompt cache'),
  prompt_cache_retention: unsupported('there is no prompt cache'),
  prompt_cache_options: unsupported('there is no prompt cache'),
  safety_identifier: unsupported('keys identify callers'),
  user: unsupported('keys identify callers'),
  moderation: unsupported('there is no moderation step'),
};

/** An object whose `gate` fields are checked first, so a wrong kind is one clear error, then strictly. */
const gated = <S extends z.ZodRawShape>(gate: z.ZodRawShape, shape: S) =>
  (z.looseObject(gate) as z.ZodType<unknown>).pipe(z.strictObject(shape));

const TextPart = gated(
  { type: z.literal('input_text', { error: 'only input_text parts are supported (no images, files or audio)' }) },
  { type: z.literal('input_text'), text: z.string() },
);
const Role = z.enum(['user', 'system', 'developer'], {
  error:
    'must be "user", "system" or "developer": earlier assistant turns are not supported (each response is a new agent run)',
});
const InputMessage = gated(
  { type: z.literal('message', { error: 'only messages are supported as input items' }).optional(), role: Role },
  { type: z.literal('message').optional(), role: Role, content: z.union([z.string(), z.array(TextPart).min(1)]) },
);

/** Nulls at the top level mean "not set", as OpenAI treats them; so does an empty tools or include list. */
const unset = (body: unknown) => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const empty = (k: string, v: unknown) =>
    v === null || ((k === 'tools' || k === 'include') && Array.isArray(v) && v.length === 0);
  return Object.fromEntries(Object.entries(body).filter(([k, v]) => !empty(k, v)));
};

/** The Responses request subset svc-agent takes; any other field is refused, naming it. */
export const ResponsesRequest = z.preprocess(
  unset,
  wireObject(
    {
      model: z.literal(RESPONSES_MODEL, {
        error: (iss) =>
          iss.input === undefined
            ? `is required; use "${RESPONSES_MODEL}"`
            : `must be "${RESPONSES_MODEL}": the one model Trawl serves here (agent runs; docs/responses.md)`,
      }),
      input: z.union([z.string().min(1), z.array(InputMessage).min(1)]),
      instructions: z.string().max(MAX_TEXT).optional(),
      reasoning: z
        .strictObject({
          effort: z.enum(['minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
          summary: z.null({ error: unsupported('it writes no reasoning summaries') }).optional(),
          generate_summary: z.null({ error: unsupported('it writes no reasoning summaries') }).optional(),
        })
        .optional(),
      background: z.boolean().optional(),
      stream: z.boolean().optional(),
      stream_options: z.strictObject({ include_obfuscation: z.boolean().optional() }).optional(),
      metadata: z
        .record(z.string().min(1).max(64), z.string().max(512))
        .refine((m) => Object.keys(m).length <= 16, { message: 'at most 16 keys' })
        .optional(),
      store: z.literal(true, { error: 'must be true: every agent run is stored (delete it by id)' }).optional(),
      text: z
        .strictObject({
          format: gated(
            {
              type: z.literal('text', {
                error: unsupported('only plain text answers; use /agent/runs with outputSchema for structured output'),
              }),
            },
            { type: z.literal('text') },
          ).optional(),
        })
        .optional(),
      include: z.array(z.literal(SOURCES_INCLUDE, { error: `only "${SOURCES_INCLUDE}" (always included)` })).optional(),
    },
    REFUSED,
  ),
);
export type ResponsesRequest = z.output<typeof ResponsesRequest>;

/** The query of GET /v1/responses/{id} (`include[]` is passed as `include`). */
export const RetrieveResponseQuery = wireObject({
  stream: z.enum(['true', 'false']).optional(),
  starting_after: z.coerce.number().int().min(0).optional(),
  include_obfuscation: z.enum(['true', 'false']).optional(),
  include: z.array(z.literal(SOURCES_INCLUDE)).optional(),
});

/** How a request runs: the agent run to create, and whether to stream and/or return at once. */
export interface ResponsesCall {
  run: CreateAgentRunRequest;
  stream: boolean;
  background: boolean;
}

const textOf = (content: string | { text: string }[]) =>
  typeof content === 'string' ? content : content.map((p) => p.text).join('\n');

/**
 * The agent run a Responses request asks for: user text is the query, instructions and system or
 * developer messages the system prompt, `reasoning.effort` the effort (default `auto`). Throws
 * INVALID_REQUEST_BODY naming `input` or `instructions` when they pass the run's limits.
 */
export function toAgentRunRequest(req: ResponsesRequest): ResponsesCall {
  const messages = typeof req.input === 'string' ? [{ role: 'user', content: req.input }] : req.input;
  const query = messages
    .filter((m) => m.role === 'user')
    .map((m) => textOf(m.content).trim())
    .filter(Boolean)
    .join('\n\n');
  const system = [req.instructions, ...messages.filter((m) => m.role !== 'user').map((m) => textOf(m.content))]
    .map((s) => s?.trim())
    .filter(Boolean)
    .join('\n\n');
  const invalid = (field: string, message: string) =>
    new ServiceError('INVALID_REQUEST_BODY', `${field}: ${message}`, { field });
  if (!query) throw invalid('input', 'has no user text; send the task as a string or in user messages');
  if (query.length > MAX_TEXT) throw invalid('input', `user text must be at most ${MAX_TEXT} characters`);
  if (system.length > MAX_TEXT)
    throw invalid('instructions', `with system and developer messages, must be at most ${MAX_TEXT} characters`);
  const run: CreateAgentRunRequest = {
    query,
    effort: req.reasoning?.effort ?? 'auto',
    ...(system ? { systemPrompt: system } : {}),
    ...(req.metadata ? { metadata: req.metadata } : {}),
  };
  return { run, stream: req.stream === true, background: req.background === true };
}

const RENAMED: Record<string, string> = { effort: 'reasoning.effort', query: 'input', systemPrompt: 'instructions' };

/** An agent-run error about a run field, retold with the Responses field it came from. */
export function asResponsesError(err: unknown): unknown {
  if (!(err instanceof ServiceError) || !err.field || !RENAMED[err.field]) return err;
  const field = RENAMED[err.field]!;
  const message = err.message.startsWith(`${err.field}:`) ? field + err.message.slice(err.field.length) : err.message;
  return new ServiceError(err.tag, message, { field, cause: err });
}
