/**
 * Which tools a server exposes: names and groups (`default`, `web`, `code`, `monitors`, `agent`, `all`)
 * from `--tools` / `TRAWL_TOOLS`, and within those, from `/mcp?tools=`. An empty setting is the default
 * set; the server's setting is the upper limit a URL chooses within.
 */
import { ConfigError } from '../config/config.js';
import { ALL_TOOLS, TOOL_GROUPS } from './catalog.js';

/** The names one may give: every tool, every group, `all`, and the per-operation names of earlier releases. */
export const LEGACY_TOOL_NAMES: Readonly<Record<string, string>> = {
  create_agent_run: 'agent_runs',
  list_agent_runs: 'agent_runs',
  get_agent_run: 'agent_runs',
  get_agent_run_events: 'agent_runs',
  cancel_agent_run: 'agent_runs',
  delete_agent_run: 'agent_runs',
};

/** What a selection named that is neither a tool nor a group, with the valid names. */
export class UnknownToolError extends Error {
  constructor(readonly unknown: readonly string[]) {
    super(
      `Unknown MCP tool or group name(s): ${unknown.join(', ')}. Tools: ${ALL_TOOLS.join(', ')}. ` +
        `Groups: ${Object.keys(TOOL_GROUPS).join(', ')}, all.`,
    );
  }
}

/** The tools `names` select, in catalog order; empty names select the default set. Throws UnknownToolError. */
export function resolveTools(names: readonly string[]): string[] {
  const wanted = names.map((n) => n.trim()).filter(Boolean);
  if (wanted.length === 0) return [...TOOL_GROUPS.default!];
  const chosen = new Set<string>();
  const unknown: string[] = [];
  for (const name of wanted) {
    if (name === 'all') ALL_TOOLS.forEach((t) => chosen.add(t));
    else if (TOOL_GROUPS[name]) TOOL_GROUPS[name].forEach((t) => chosen.add(t));
    else if (ALL_TOOLS.includes(name)) chosen.add(name);
    else if (LEGACY_TOOL_NAMES[name]) chosen.add(LEGACY_TOOL_NAMES[name]);
    else unknown.push(name);
  }
  if (unknown.length > 0) throw new UnknownToolError(unknown);
  return ALL_TOOLS.filter((t) => chosen.has(t));
}

/**
 * The tools a request to `/mcp?tools=…` gets, within the server's `allowed`: groups and `all` give
 * what of them the server serves; a tool named outside it is an error. Throws UnknownToolError for
 * unknown names, a plain Error for tools this server does not serve.
 */
export function narrowTools(allowed: readonly string[], requested: readonly string[]): string[] {
  const names = requested.map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) return [...allowed];
  const chosen = new Set<string>();
  for (const name of names) {
    // a group gives what of it the server serves; a tool (`monitors` is both) must be served
    const group = !ALL_TOOLS.includes(name) && (name === 'all' || TOOL_GROUPS[name] !== undefined);
    for (const tool of resolveTools([name])) if (!group || allowed.includes(tool)) chosen.add(tool);
  }
  const outside = [...chosen].filter((t) => !allowed.includes(t));
  if (outside.length > 0) {
    throw new Error(
      `not enabled on this server: ${outside.join(', ')} (it serves ${allowed.join(', ')}; the operator enables more with TRAWL_TOOLS)`,
    );
  }
  if (chosen.size === 0)
    throw new Error(`${names.join(', ')} selects none of the tools this server serves (${allowed.join(', ')})`);
  return ALL_TOOLS.filter((t) => chosen.has(t));
}

/** Checks the `--tools` / `TRAWL_TOOLS` setting at start-up: a ConfigError names the unknown names and the valid ones. */
export function checkToolsSetting(names: readonly string[]): void {
  try {
    resolveTools(names);
  } catch (err) {
    if (err instanceof UnknownToolError) throw new ConfigError(`TRAWL_TOOLS/--tools: ${err.message}`);
    throw err;
  }
}
