/**
 * What an agent sees of each tool in `tools/list`: a short description and the input fields it needs
 * in most calls, as plain JSON Schema written for a model (no output schemas). The entries are generated
 * from the registry (catalog.generated.ts, by `node scripts/catalog.mjs`: each operation's `toolText`
 * and annotations), so this module, on the start-up path of `trawl mcp`, loads no operation. A tool
 * still accepts every field of its REST endpoint (validated by the endpoint's schema); the full
 * reference is the `trawl://tools/{name}` resource and docs/mcp.md. Unit tests keep the advertised
 * fields in step with the endpoints' schemas, and the token budgets (docs/mcp.md) in force.
 */
import { TOOL_SPECS } from './catalog.generated.js';

export type { ToolSpec } from './catalog-spec.js';
export { TOOL_SPECS } from './catalog.generated.js';

type Json = Record<string, unknown>;

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
