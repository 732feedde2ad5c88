/**
 * What an agent sees of each tool in `tools/list`: a short description and the input fields it needs
 * in most calls, as plain JSON Schema written for a model (no output schemas). A tool still accepts
 * every field of its REST endpoint (validated by the endpoint's schema); the full reference is the
 * `trawl://tools/{name}` resource and docs/mcp.md. A unit test keeps these fields in step with the
 * endpoints' schemas, and the token budgets (docs/mcp.md) in force.
 */
import { FENCE_NOTICE } from './answer/fence.js';

type Json = Record<string, unknown>;

/** One advertised tool. */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, Json>; required?: string[] };
  annotations: {
    readOnlyHint: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: boolean;
  };
  /** Whether a `tools/call` may carry a `task` (MCP tasks, docs/mcp.md). */
  execution?: { taskSupport: 'optional' };
}

const str = (description?: string): Json => ({ type: 'string', ...(description ? { description } : {}) });
const strings = (description?: string): Json => ({ type: 'array', items: { type: 'string' }, ...(description ? { description } : {}) }); // prettier-ignore
const int = (minimum: number, maximum: number, description?: string): Json => ({ type: 'integer', minimum, maximum, ...(description ? { description } : {}) }); // prettier-ignore

/** The paging fields every content tool takes: the budget of the answer and the cursor of its next part. */
export const PAGING: Record<string, Json> = {
  cursor: str('nextCursor of a cut answer; repeat the other arguments.'),
  maxTokens: int(500, 25000, 'Answer budget in tokens (default 6000).'),
};

const CONTENTS: Json = {
  type: 'object',
  description: 'Per result, e.g. {"text":{"maxCharacters":4000}}, {"highlights":true}, {"summary":true}. Default: 1500 characters of text.', // prettier-ignore
};
const READ_WEB = { readOnlyHint: true, openWorldHint: true } as const;
/** Long tools may run as MCP tasks (src/mcp/tasks/); without `task` they answer as before. */
const TASK_OPTIONAL = { taskSupport: 'optional' } as const;

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'search',
    title: 'Web search',
    description: `Search the web and the local index. Returns ranked results with page text. ${FENCE_NOTICE}`,
    inputSchema: {
      type: 'object',
      properties: {
        query: str(),
        numResults: int(1, 100),
        type: { enum: ['auto', 'fast', 'instant', 'deep-lite', 'deep', 'deep-reasoning'], description: 'fast for lookups, deep for research.' }, // prettier-ignore
        includeDomains: strings(),
        excludeDomains: strings(),
        startPublishedDate: str('ISO 8601 date.'),
        contents: CONTENTS,
        ...PAGING,
      },
      required: ['query'],
    },
    annotations: READ_WEB,
    execution: TASK_OPTIONAL,
  },
  {
    name: 'get_contents',
    title: 'Read pages',
    description: `Read pages (urls, or ids from search) as clean Markdown, whole; long pages come in parts. ${FENCE_NOTICE}`,
    inputSchema: {
      type: 'object',
      properties: {
        urls: { ...strings(), maxItems: 100 },
        maxAgeHours: { type: 'integer', description: 'Oldest cached copy to accept; 0 fetches live.' },
        ...PAGING,
      },
    },
    annotations: READ_WEB,
    execution: TASK_OPTIONAL,
  },
  {
    name: 'get_code_context',
    title: 'Code context',
    description: `Code examples for a programming question from indexed repositories, packages and docs. ${FENCE_NOTICE}`,
    inputSchema: {
      type: 'object',
      properties: { query: str(), tokensNum: { type: ['string', 'integer'], description: '"dynamic" (default) or 50-100000.' }, ...PAGING }, // prettier-ignore
      required: ['query'],
    },
    annotations: READ_WEB,
  },
  {
    name: 'find_similar',
    title: 'Find similar pages',
    description: `Pages like a given URL (same topic, kind, audience). ${FENCE_NOTICE}`,
    inputSchema: {
      type: 'object',
      properties: { url: str(), numResults: int(1, 100), includeDomains: strings(), excludeDomains: strings(), contents: CONTENTS, ...PAGING }, // prettier-ignore
      required: ['url'],
    },
    annotations: READ_WEB,
  },
  {
    name: 'monitors',
    title: 'Monitors',
    description:
      'Scheduled searches that post new results to a signed HTTPS webhook. Actions: create (search, webhook, ' +
      'trigger; answers webhookSecret once), list, get, update, delete, trigger (run now), list_runs, get_run, ' +
      'list_deliveries. Other arguments as in the REST API (resource trawl://tools/monitors).',
    inputSchema: {
      type: 'object',
      properties: {
        action: { enum: ['create', 'list', 'get', 'update', 'delete', 'trigger', 'list_runs', 'get_run', 'list_deliveries'] }, // prettier-ignore
        id: str('Monitor id.'),
        runId: str(),
        search: { type: 'object', description: '{"query": "...", "numResults": 10}' },
        trigger: { type: ['object', 'null'], description: '{"type": "interval", "period": "1d"}' },
        webhook: { type: 'object', description: '{"url": "https://..."}' },
        status: { enum: ['active', 'paused'] },
        cursor: str(),
      },
      required: ['action'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'agent_run',
    title: 'Research with an agent',
    description:
      'Research a task with an agent run and wait for its answer with sources. Give query to start, or the ' +
      `runId an earlier call answered to keep waiting (the run goes on past waitSeconds). ${FENCE_NOTICE}`,
    inputSchema: {
      type: 'object',
      properties: {
        query: str(),
        effort: { enum: ['minimal', 'low', 'medium', 'high', 'xhigh', 'auto'] },
        runId: str(),
        waitSeconds: int(0, 600, 'Default 50.'),
      },
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    execution: TASK_OPTIONAL,
  },
  {
    name: 'agent_runs',
    title: 'Agent runs',
    description:
      'Manage agent runs. Actions: create (query, effort, outputSchema...; answers at once), list, get, events, ' +
      'cancel, delete. Other arguments as in the REST API (resource trawl://tools/agent_runs).',
    inputSchema: {
      type: 'object',
      properties: {
        action: { enum: ['create', 'list', 'get', 'events', 'cancel', 'delete'] },
        id: str('Run id.'),
        query: str(),
        cursor: str(),
      },
      required: ['action'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
];

/** The tool groups `--tools`, `TRAWL_TOOLS` and `/mcp?tools=` can name, besides each tool and `all`. */
export const TOOL_GROUPS: Readonly<Record<string, readonly string[]>> = {
  default: ['search', 'get_contents', 'get_code_context'],
  web: ['search', 'get_contents', 'find_similar'],
  code: ['get_code_context'],
  monitors: ['monitors'],
  agent: ['agent_run', 'agent_runs'],
};

/** Every tool name, in the order tools/list gives them. */
export const ALL_TOOLS: readonly string[] = TOOL_SPECS.map((t) => t.name);

let listed: Map<string, Json> | undefined;

/** A tool's entry of `tools/list` (built once per process). */
export function advertised(name: string): Json {
  listed ??= new Map(TOOL_SPECS.map((t) => [t.name, { ...t }]));
  const tool = listed.get(name);
  if (!tool) throw new Error(`no MCP tool named ${name}`);
  return tool;
}
