/**
 * The scope a JSON-RPC message to /mcp needs before it reaches the MCP server: a `tools/call` needs its
 * tool's (a group tool's, by its `action`), anything else none. An access token lacking it is answered
 * with HTTP 403 and an `insufficient_scope` challenge, so the client can ask for it (step-up); an API
 * key lacking it keeps the tool's own refusal inside the result.
 */
import type { Scope } from '../../core/access/scopes.js';
import { groupOperations, MCP_TOOLS, mcpToolName } from '../../ops/registry.js';

/** The scope of a call of the tool `name` with `args`; undefined for an unknown tool or action (the server refuses those). */
export function scopeOfTool(name: string, args: unknown): Scope | undefined {
  const tool = MCP_TOOLS.find((t) => mcpToolName(t) === name);
  if (!tool) return undefined;
  if (tool.kind === 'operation') return tool.op.capability;
  if (tool.kind === 'doorOnly') return 'agent'; // agent_run starts and follows agent runs
  const action = (args as { action?: unknown } | null)?.action;
  const op = groupOperations(name).find((o) => o.toolGroup?.action === action);
  return op?.capability;
}

/** The scopes the messages of a /mcp body need (a batch's each): the tools' of its `tools/call`s. */
export function scopesOfMessage(body: unknown): Scope[] {
  const messages = Array.isArray(body) ? body : [body];
  const scopes = new Set<Scope>();
  for (const message of messages) {
    const m = message as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
    if (m?.method !== 'tools/call' || typeof m.params?.name !== 'string') continue;
    const scope = scopeOfTool(m.params.name, m.params.arguments);
    if (scope) scopes.add(scope);
  }
  return [...scopes];
}
